"""Retention: `purge` removes the engine's old rows and unused originals and nothing in use,
on every backend, and may run twice (or on two hosts) at once."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from ledgerline.adapters.db.clock import db_now_plus
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import (blobs, cache_entries, invoices, jobs, model_calls,
                                           results, shadow_fields)
from ledgerline.ports.storage import original_key
from ledgerline.service_layer.retention import purge
from tests.fakes import pdf_bytes
from tests.integration.test_engine_promises import Env

DAYS = 40


def count(services, table) -> int:
    with transaction(services.engine, write=False) as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar()


def age_everything(services, days: int = DAYS) -> None:
    """Make every row `days` old (the database's clock cannot be moved; the rows can)."""
    with transaction(services.engine, write=True) as conn:
        old = db_now_plus(-days * 86400)
        conn.execute(update(model_calls).values(started_at=old, finished_at=old))
        conn.execute(update(jobs).values(created_at=old, finished_at=old))
        conn.execute(update(results).values(created_at=old))
        conn.execute(update(blobs).values(stored_at=old))


@pytest.fixture
def env(make_services):
    from tests.fakes import ControlledExtractor

    return Env(make_services(extractor=ControlledExtractor()), None)


def test_old_ledger_rows_go_and_everything_an_invoice_shows_stays(env):
    kept = env.upload("kept").json["id"]
    env.upload("kept", role="supplier")
    env.work()
    age_everything(env.services)
    done = purge(env.services, timedelta(days=30))
    assert (done.calls, done.jobs, done.results, done.originals) == (1, 0, 0, 0)
    assert count(env.services, model_calls) == 0
    got = env.get(kept)
    assert got["status"] == "completed" and got["extraction"] is not None
    assert env.upload("kept").headers["Ledgerline-Cache"] == "hit"  # the cache entry stays
    assert purge(env.services, timedelta(days=30)).as_dict() == {
        "calls": 0, "jobs": 0, "results": 0, "originals": 0, "adopted_objects": 0,
        "shadow_fields": 0, "invoices": 0, "webhook_deliveries": 0, "sessions": 0}


def test_what_only_deleted_invoices_used_goes_with_them(env):
    gone = env.upload("gone").json["id"]
    env.upload("stays")
    env.work()
    age_everything(env.services)
    with transaction(env.services.engine, write=True) as conn:  # as invoice deletion will
        job_id = conn.execute(select(invoices.c.job_id).where(invoices.c.id == gone)).scalar()
        result_id = conn.execute(select(jobs.c.result_id).where(jobs.c.id == job_id)).scalar()
        conn.execute(invoices.delete().where(invoices.c.id == gone))
        conn.execute(cache_entries.delete().where(cache_entries.c.result_id == result_id))
        key = conn.execute(select(blobs.c.storage_key).join(
            jobs, jobs.c.content_hash == blobs.c.content_hash).where(jobs.c.id == job_id)).scalar()
    assert env.services.store.exists(key)
    done = purge(env.services, timedelta(days=30))
    assert (done.jobs, done.results, done.originals) == (1, 1, 1)
    assert not env.services.store.exists(key)
    assert (count(env.services, jobs), count(env.services, results),
            count(env.services, blobs)) == (1, 1, 1)


def test_young_rows_and_originals_in_use_are_never_touched(env):
    env.upload("young")
    pending = env.upload("pending").json["id"]  # not worked: its job is in flight
    with transaction(env.services.engine, write=True) as conn:
        conn.execute(invoices.delete().where(invoices.c.id == pending))
        conn.execute(update(blobs).values(stored_at=db_now_plus(-DAYS * 86400)))
    done = purge(env.services, timedelta(days=30))
    assert (done.jobs, done.results, done.originals) == (0, 0, 0)  # in flight: kept
    env.work()
    # Finished now, and nothing else uses its original; the other one's invoice keeps its own.
    assert purge(env.services, timedelta(days=30)).originals == 1
    assert count(env.services, blobs) == 1


def test_an_object_the_database_never_recorded_is_recorded_then_removed(env):
    """An upload that died between storing the original and committing."""
    key = original_key("acme", "blake3:" + "cd" * 32)
    stray = Path(env.services.settings.spool_dir or "/tmp") / f"stray-{os.getpid()}.pdf"
    stray.write_bytes(pdf_bytes("stray"))
    import hashlib

    env.services.store.put_file(key, str(stray), hashlib.sha256(stray.read_bytes()).digest())
    stray.unlink()
    first = purge(env.services, timedelta(0))
    assert first.adopted == 1 and env.services.store.exists(key)  # recorded, not yet removed
    assert purge(env.services, timedelta(0)).originals == 1
    assert not env.services.store.exists(key)


def test_two_purges_at_once_remove_each_row_once(env):
    for i in range(30):
        env.upload(f"many-{i}")
    env.work()
    age_everything(env.services)
    with transaction(env.services.engine, write=True) as conn:
        conn.execute(invoices.delete())
        conn.execute(cache_entries.delete())
    outcomes = []

    def run():
        outcomes.append(purge(env.services, timedelta(days=30), batch=7))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(o.jobs for o in outcomes) == 30 and sum(o.originals for o in outcomes) == 30
    assert sum(o.calls for o in outcomes) == 30
    assert count(env.services, jobs) == count(env.services, blobs) == 0


def test_old_shadow_comparisons_go_by_whole_days_and_todays_stay(env):
    """The agreement report counts by UTC day, like the duplicate-work report: a day's
    comparisons go together, once the whole day is before the horizon."""
    with transaction(env.services.engine, write=True) as conn:
        for row, age_days in enumerate((DAYS, DAYS, 0)):
            conn.execute(shadow_fields.insert().values(
                call_id=f"call-{row}", job_id=f"job-{row}", account="acme",
                started_at=db_now_plus(-age_days * 86400), serving_provider="rules",
                candidate_provider="openai", candidate_model="standin-1",
                field="invoice_number", agreement="agree"))
    assert purge(env.services, timedelta(days=30)).shadow_fields == 2
    with transaction(env.services.engine, write=False) as conn:
        assert conn.execute(select(shadow_fields.c.call_id)).scalars().all() == ["call-2"]
    assert purge(env.services, timedelta(days=30)).shadow_fields == 0


def test_the_purge_command_refuses_a_horizon_that_could_race_an_upload(tmp_path):
    env = {**os.environ, "LEDGERLINE_DATABASE_URL": f"sqlite:///{tmp_path}/p.sqlite3",
           "LEDGERLINE_STORAGE_URL": f"file://{tmp_path}/objects"}
    cli = [str(Path(sys.executable).parent / "ledgerline")]
    short = subprocess.run(cli + ["purge", "--older-than", "10m"], env=env, capture_output=True,
                           text=True)
    assert short.returncode == 2 and "at least 1h" in short.stderr
    unmigrated = subprocess.run(cli + ["purge", "--older-than", "30d"], env=env,
                                capture_output=True, text=True)
    assert unmigrated.returncode == 2 and "run `ledgerline db upgrade`" in unmigrated.stderr
    subprocess.run(cli + ["db", "upgrade"], env=env, check=True, capture_output=True)
    ok = subprocess.run(cli + ["purge", "--older-than", "30d"], env=env, capture_output=True,
                        text=True)
    assert ok.returncode == 0, ok.stderr
    assert '"purged": {"calls": 0' in ok.stdout
