"""The gevent serving model with what runs inside an API process: psycopg 3 and SQLAlchemy's
pool on real PostgreSQL, and the forkserver sandbox. Each check runs in a fresh interpreter
patched the way gunicorn's gevent worker patches it, and watches a ticker greenlet: if a
call blocked the event loop instead of yielding, the ticker stalls. (The embedded worker
thread under gevent is exercised by every `ledgerline serve` test: tests/e2e, tests/hostile.)"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import pytest

TICKER = """
from gevent import monkey
monkey.patch_all()
import json, time, gevent
gaps, last, done = [], [time.monotonic()], [False]
def tick():
    while not done[0]:
        gevent.sleep(0.01)
        now = time.monotonic(); gaps.append(now - last[0]); last[0] = now
ticker = gevent.spawn(tick)
def measure():
    gaps.clear(); last[0] = time.monotonic()
def report(**extra):
    done[0] = True; ticker.join()
    print(json.dumps({"max_gap": max(gaps), **extra}))
"""


def run_patched(body: str, env: dict | None = None, start_new_session: bool = False) -> dict:
    import os

    out = subprocess.run([sys.executable, "-c", TICKER + textwrap.dedent(body)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, **(env or {})}, start_new_session=start_new_session)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.integration
def test_psycopg_queries_and_the_sqlalchemy_pool_yield_to_other_greenlets(pg_server):
    result = run_patched(f"""
        from sqlalchemy import text
        from ledgerline.adapters.db.engine import make_engine, transaction
        engine = make_engine({pg_server.url!r})
        def sleep_in_db(seconds=0.4):
            with transaction(engine, write=False) as conn:
                conn.execute(text(f"SELECT pg_sleep({{seconds}})"))
        sleep_in_db(0)  # imports and dialect set-up: once per process, not per request
        measure()
        started = time.monotonic()
        gevent.joinall([gevent.spawn(sleep_in_db) for _ in range(6)], raise_error=True)
        report(elapsed=time.monotonic() - started)
    """)
    # Six 0.4 s queries run side by side on the pool, and the loop never stalls.
    assert result["elapsed"] < 2.0, result
    assert result["max_gap"] < 0.1, result


@pytest.mark.integration
def test_the_job_ended_listener_waits_without_blocking_the_loop(pg_server):
    """An API process's LISTEN connection (adapters/job_endings.py) idles in a thread, which
    gevent makes a greenlet: its waits for notifications must yield, and a NOTIFY wakes a
    waiter at once."""
    result = run_patched(f"""
        from ledgerline.adapters.db.engine import make_engine, transaction
        from ledgerline.adapters.db.notify import announce_job_ended
        from ledgerline.adapters.job_endings import JobEndings
        engine = make_engine({pg_server.url!r})
        endings = JobEndings(engine, notified=True)
        with endings.watch("job_x") as ended:
            gevent.sleep(0.5)  # listening now
            measure()
            started = time.monotonic()
            def notify():
                with transaction(engine, write=True) as conn:
                    announce_job_ended(conn, "job_x")
            gevent.spawn_later(1.5, notify)
            woken = ended.wait(10)
            report(woken=woken, after=time.monotonic() - started)
    """)
    assert result["woken"] and result["after"] < 5, result
    assert result["max_gap"] < 0.1, result


def test_the_forkserver_sandbox_extracts_without_blocking_the_loop(tmp_path):
    from tests.hostile.test_api_stays_responsive import text_pdf

    pdf = tmp_path / "invoice.pdf"
    # Enough lines that one extraction on the loop would stall it far beyond the bound below.
    pdf.write_bytes(text_pdf(["Invoice INV-9", "Total 10.00 EUR"]
                             + [f"Item {n} consulting hours 1.00 {n}.00" for n in range(48)]))
    result = run_patched(f"""
        from ledgerline.adapters.extractor import PdfExtractor
        from ledgerline.adapters.sandbox import SandboxedExtractor, SandboxLimits
        sandbox = SandboxedExtractor(PdfExtractor(), SandboxLimits(timeout_seconds=30))
        # A cold fork server preloads for seconds (pdfminer, the official rules, Tesseract's
        # models); a worker warms it before its first claim, and the wait must not stall the loop.
        measure()
        warming = time.monotonic()
        sandbox.warm()
        warm_seconds = time.monotonic() - warming
        warm_gap = max(gaps)
        once = time.monotonic()
        sandbox.extract({str(pdf)!r}, "blake3:" + "0" * 64)
        one_extraction = time.monotonic() - once
        measure()
        started = time.monotonic()
        documents = gevent.joinall([gevent.spawn(sandbox.extract, {str(pdf)!r}, "blake3:" + "0" * 64)
                                    for _ in range(3)], raise_error=True)
        numbers = [g.value["fields"]["invoice_number"]["value"] for g in documents]
        report(numbers=numbers, elapsed=time.monotonic() - started, warm_gap=warm_gap,
               warm_seconds=warm_seconds, one_extraction=one_extraction)
    """)
    assert result["numbers"] == ["INV-9"] * 3
    # Relative bounds: on a loaded machine every gap grows, an extraction's time with it. The
    # warm-up preloads for seconds (3.5 s on an idle machine) and an extraction run on the loop
    # would stall it for their whole time; one stall of 280 ms was seen in a busy full suite.
    # An extraction on the loop would stall it for at least an extraction's whole time (a
    # warm-up for its whole time): bounds well below those, loose enough for a loaded machine.
    assert result["warm_gap"] < max(0.5, result["warm_seconds"] / 2), result
    assert result["max_gap"] < max(0.5, result["one_extraction"] * 0.8), result


def test_under_gevent_a_spare_child_is_forked_only_while_the_fork_server_runs():
    """A spare's start runs on the loop; one that found the server gone would start another
    and wait on the loop for its preloading (seconds): only a document's own start may."""
    result = run_patched("""
        import os, signal
        from multiprocessing import forkserver
        from ledgerline.adapters.extractor import PdfExtractor
        from ledgerline.adapters.sandbox import SandboxedExtractor
        sandbox = SandboxedExtractor(PdfExtractor())
        sandbox.warm()
        spare_while_up = sandbox._spare is not None
        sandbox.cancel()  # drops the spare
        sandbox.resume()
        os.kill(forkserver._forkserver._forkserver_pid, signal.SIGKILL)  # the OOM killer's way
        time.sleep(1)
        measure()
        sandbox._prepare_spare()
        report(spare_while_up=spare_while_up, spare_when_gone=sandbox._spare is not None)
    """)
    assert result["spare_while_up"] and not result["spare_when_gone"], result
    assert result["max_gap"] < 0.5, result


def test_a_sigterm_to_the_process_group_leaves_the_fork_server_running(tmp_path):
    """systemd's stop (and `kill -- -PGID`) sends SIGTERM to every process of the group. The
    fork server must survive it: one killed in the middle of a start left that start waiting
    for ever, and `serve`'s shutdown sat out gunicorn's whole graceful timeout. The children
    keep the default action (multiprocessing's `terminate()` needs it)."""
    from tests.hostile.test_api_stays_responsive import text_pdf

    pdf = tmp_path / "invoice.pdf"
    pdf.write_bytes(text_pdf(["Invoice INV-9", "Total 10.00 EUR"]))
    result = run_patched(f"""
        import os, signal
        from multiprocessing import forkserver
        from ledgerline.adapters.extractor import PdfExtractor
        from ledgerline.adapters.sandbox import SandboxedExtractor
        terms = []
        signal.signal(signal.SIGTERM, lambda *_: terms.append(1))  # as gunicorn's worker does
        sandbox = SandboxedExtractor(PdfExtractor())
        sandbox.warm()
        server = forkserver._forkserver._forkserver_pid
        spare = sandbox._spare.proc
        os.killpg(os.getpgrp(), signal.SIGTERM)
        time.sleep(0.5)
        server_alive = os.waitid(os.P_PID, server, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
        spare.join(5)
        spare_exit = spare.exitcode
        document = sandbox.extract({str(pdf)!r}, "blake3:" + "0" * 64)
        report(server_alive=server_alive, spare_exit=spare_exit, terms=len(terms),
               same_server=forkserver._forkserver._forkserver_pid == server,
               number=document["fields"]["invoice_number"]["value"])
    """, start_new_session=True)
    assert result["terms"] == 1, result  # this process got its signal, and only once
    assert result["server_alive"] and result["same_server"], result
    assert result["spare_exit"] == -signal.SIGTERM, result
    assert result["number"] == "INV-9", result


def test_two_instances_on_one_host_share_nothing_and_clean_up(tmp_path):
    """Each `ledgerline serve` gets its own control socket and metrics directory (gone when it
    exits), and the container health check finds where each one listens."""
    import shutil
    import tempfile
    from pathlib import Path

    # A short TMPDIR of its own: a unix socket path holds at most 107 bytes.
    runtime = Path(tempfile.mkdtemp(prefix="ll-", dir="/tmp"))
    try:
        _two_instances(tmp_path, runtime)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def _two_instances(tmp_path, runtime):
    import os

    import requests

    from ledgerline.adapters.db.migrate import upgrade
    from tests.e2e.service import served

    url = f"sqlite:///{tmp_path}/ledgerline.sqlite3"
    upgrade(url)
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(TMPDIR=str(runtime), LEDGERLINE_DATABASE_URL=url,
               LEDGERLINE_STORAGE_URL=f"file://{tmp_path}/objects")
    check = [sys.executable, "-m", "ledgerline.http.healthcheck"]

    def healthcheck():
        return subprocess.run(check, env=env, capture_output=True, text=True, timeout=30)

    assert healthcheck().returncode == 0  # a container without an API: nothing to check
    killed = runtime / "ledgerline-gunicorn-killed"  # an instance that died by SIGKILL
    killed.mkdir()
    (killed / "instance.json").write_text(json.dumps({"pid": 2 ** 22 + 1, "listen": ["x:1"]}))
    with served(env, "--workers", "1", "--no-embedded-worker", log_path=tmp_path / "a.log") as a, \
            served(env, "--workers", "1", "--no-embedded-worker", log_path=tmp_path / "b.log") as b:
        dirs = sorted(runtime.glob("ledgerline-gunicorn-*"))
        assert len(dirs) == 2 and killed not in dirs  # the dead one's directory was removed
        for d in dirs:
            assert (d / "gunicorn.ctl").is_socket()
            listen = json.loads((d / "instance.json").read_text())["listen"]
            assert f"http://{listen[0]}" in (a, b)
        for base in (a, b):
            assert requests.get(f"{base}/healthz", timeout=5).status_code == 200
        assert any((d / "metrics").glob("*.db") for d in dirs)  # each process counts in its own
        assert healthcheck().returncode == 0
    assert list(runtime.glob("ledgerline-gunicorn-*")) == []
    assert healthcheck().returncode == 0


def test_the_health_check_fails_when_the_recorded_api_does_not_answer(tmp_path):
    import os

    from tests.servers import free_port

    instance = tmp_path / "ledgerline-gunicorn-test"
    instance.mkdir()
    (instance / "instance.json").write_text(json.dumps(
        {"pid": os.getpid(), "listen": [f"0.0.0.0:{free_port()}"]}))
    out = subprocess.run([sys.executable, "-m", "ledgerline.http.healthcheck"],
                         env={**os.environ, "TMPDIR": str(tmp_path)}, capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 1 and "unhealthy" in out.stdout


def test_sigterm_stops_an_idle_serve_at_once_whether_or_not_its_sandbox_is_warm(tmp_path):
    """With no job in hand nothing is owed to anyone: `serve` must not sit out gunicorn's
    graceful timeout (30 s), neither while its sandbox still preloads nor after a job."""
    import os
    import time

    import requests

    from ledgerline.adapters.db.migrate import upgrade
    from tests.e2e.service import create_key, ledgerline, served
    from tests.hostile.test_api_stays_responsive import text_pdf

    url = f"sqlite:///{tmp_path}/ledgerline.sqlite3"
    upgrade(url)
    env = {**os.environ, "LEDGERLINE_DATABASE_URL": url,
           "LEDGERLINE_STORAGE_URL": f"file://{tmp_path}/objects",
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")}
    (tmp_path / "metrics").mkdir()
    ledgerline(env, "accounts", "create", "acme")
    key = create_key(env, "customer", "acme")
    pdf = text_pdf(["Invoice INV-9", "Total 10.00 EUR"])
    for after_a_job in (False, True):
        log = tmp_path / f"serve-{after_a_job}.log"
        with served(env, "--workers", "2", log_path=log) as base:
            if after_a_job:
                answer = requests.post(f"{base}/v1/accounts/acme/invoices", data=pdf, timeout=90,
                                       headers={"Authorization": f"Bearer {key}",
                                                "Content-Type": "application/pdf",
                                                "Prefer": "wait=60"})
                assert answer.json()["status"] == "completed", answer.text
            stopping = time.monotonic()
        took = time.monotonic() - stopping
        # Well under gunicorn's graceful 30 s, with room for a loaded machine's slow exits.
        assert took < 20, (after_a_job, took, log.read_text()[-2000:])
        assert "Traceback" not in log.read_text()
