"""Shadow mode predicts the saving: the same traffic, replayed in shadow and then with the
cache on, shows as "would have saved" in the first exactly what the second saves."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from ledgerline.domain.cache import CacheMode
from ledgerline.http.app import create_app
from ledgerline.service_layer.report import Days, duplicate_report
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from sqlalchemy import func, select, update

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import jobs, model_calls
from tests.fakes import ControlledExtractor, pdf_bytes

NOON = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)

# (who uploads, which file, fresh?) or "work": let the workers drain the queue.
TRAFFIC = [
    ("supplier", "a", False), ("customer", "a", False),  # the same file twice, in flight
    "work",
    ("customer", "a", False),                             # again, once it is done
    ("supplier", "b", False),
    "work",
    ("customer", "b", True),                              # Cache-Control: no-cache
    ("customer", "c", False), ("supplier", "c", False), ("supplier2", "c", False),
    "work",
    ("customer", "c", False), ("supplier", "d", False),
    "work",
]


def replay(make_services, mode: CacheMode, day: int = 0) -> tuple[dict, list[str]]:
    """The traffic in its own account, then moved to a day of its own (the database stamps
    every time with its clock), so that replays do not mix."""
    services = make_services(extractor=ControlledExtractor(), cache_mode=mode)
    tenant = make_tenant(services, f"acme-{mode.value}")
    client = create_app(services).test_client()
    headers = []
    for step in TRAFFIC:
        if step == "work":
            while Worker(services, name=f"w-{mode.value}").run_once():
                pass
            continue
        who, tag, fresh = step
        resp = client.post(f"/v1/accounts/{tenant.account}/invoices", data=pdf_bytes(tag), headers={
            "Authorization": f"Bearer {tenant.keys[who]}", "Content-Type": "application/pdf",
            **({"Cache-Control": "no-cache"} if fresh else {})})
        assert resp.status_code in (201, 202), resp.json
        headers.append(resp.headers["Ledgerline-Cache"])
    moved_to = move_to(services, tenant.account, NOON + timedelta(days=day))
    [doc] = duplicate_report(services.engine, services.settings, Days(moved_to, moved_to))
    return doc, headers


def move_to(services, account: str, shift_to: datetime):
    """Shift the account's jobs and calls to start at `shift_to`, keeping order and spacing."""
    with transaction(services.engine, write=True) as conn:
        first = conn.execute(select(func.min(jobs.c.created_at))
                             .where(jobs.c.account == account)).scalar()
        delta = shift_to - first
        for table, columns in ((jobs, ("created_at", "updated_at", "finished_at", "run_after",
                                       "claimed_at")),
                               (model_calls, ("started_at", "finished_at"))):
            for row in conn.execute(select(table).where(table.c.account == account)).all():
                values = {c: getattr(row, c) + delta for c in columns if getattr(row, c)}
                conn.execute(update(table).where(table.c.id == row.id).values(**values))
    return shift_to.date()


def test_shadow_mode_would_have_saved_what_the_cache_then_saves(make_services):
    shadow, shadow_headers = replay(make_services, CacheMode.SHADOW)
    on, on_headers = replay(make_services, CacheMode.ON, day=1)

    assert on_headers == ["miss", "joined", "hit", "miss", "bypass", "miss", "joined", "joined",
                          "hit", "miss"]
    assert shadow_headers == ["miss"] * 4 + ["bypass"] + ["miss"] * 5

    saved, would_save = on["requests"], shadow["requests"]
    assert saved["cost_avoided"] > 0
    assert would_save["cost_would_be_avoided"] == saved["cost_avoided"]
    assert (would_save["would_be_hits"], would_save["would_be_joined"]) == (
        saved["cache_hits"], saved["joined"])
    assert (would_save["cache_hits"], would_save["joined"], would_save["cost_avoided"]) == (0, 0, 0)
    # What the cache avoided is exactly the extra work shadow mode did.
    assert would_save["model_calls"] - saved["model_calls"] == saved["cache_hits"] + saved["joined"]
    assert would_save["total"] == saved["total"] == 10
    [shadow_op], [on_op] = shadow["operations"], on["operations"]
    # In shadow mode the avoidable calls happen, and the ledger sees them repeat; with the
    # cache on, only the fresh-processing request repeats.
    assert shadow_op["repeat_calls"] == saved["cache_hits"] + saved["joined"] + 1
    assert on_op["repeat_calls"] == 1


@pytest.mark.parametrize("mode", [CacheMode.OFF])
def test_with_the_cache_off_only_in_flight_joins_save(make_services, mode):
    doc, headers = replay(make_services, mode)
    assert "hit" not in headers and headers.count("joined") == 3
    assert doc["requests"]["cost_avoided"] == pytest.approx(3 * 0.004)
