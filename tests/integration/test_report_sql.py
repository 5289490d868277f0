"""The duplicate-work report's counting, in the database, on SQLite and PostgreSQL."""
from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from ledgerline.adapters.db.accounts import create_account, create_key
from ledgerline.adapters.db.engine import make_engine, transaction
from ledgerline.adapters.db.tables import jobs, model_calls
from ledgerline.config import Settings
from ledgerline.domain.identity import Role
from ledgerline.service_layer.report import Days, duplicate_report

DAY = date(2026, 11, 29)
MIDNIGHT = datetime(2026, 11, 29, tzinfo=timezone.utc)
PRICE = Decimal("0.004")


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, tmp_path):
    if request.param == "sqlite":
        yield _engine(request.getfixturevalue("migrated_sqlite")(tmp_path / "report.sqlite3"))
        return
    pg = request.getfixturevalue("pg_server")
    name = f"r_{uuid.uuid4().hex[:12]}"
    url = pg.create_database(name, template="ledgerline_template")
    yield _engine(url)
    pg.drop_database(name)


def _engine(url):
    engine = make_engine(url)
    _engine.built.append(engine)
    return engine


_engine.built = []


@pytest.fixture(autouse=True)
def _dispose_engines():
    yield
    while _engine.built:
        _engine.built.pop().dispose()


def at(seconds: float) -> datetime:
    return MIDNIGHT + timedelta(seconds=seconds)


class Ledger:
    def __init__(self, engine):
        self.engine = engine
        self.calls, self.jobs = [], []
        with transaction(engine, write=True) as conn:
            create_account(conn, "acme", MIDNIGHT)
            self.caller, _ = create_key(conn, Role.CUSTOMER, "acme", None, MIDNIGHT)

    def call(self, request_hash, start, end, *, operation="extract_invoice", cost=PRICE):
        self.calls.append(dict(
            operation=operation, account="acme", job_id="job_x", request_hash=request_hash,
            started_at=at(start), finished_at=None if end is None else at(end),
            outcome="published" if end is not None else "running", cost=cost, worker="w",
            fencing_token=1))
        return self

    def job(self, outcome, *, would_be=None, created=60.0):
        n = len(self.jobs)
        self.jobs.append(dict(
            id=f"job_{n}", account="acme", caller_id=self.caller, idempotency_key=None,
            request_hash=f"r{n}", cache_key=f"k{n}", content_hash=f"c{n}", status="completed",
            outcome=outcome, would_be=would_be, fresh=outcome == "bypass", fencing_token=0,
            attempts=0, run_after=at(created), created_at=at(created), updated_at=at(created)))
        return self

    def report(self, first=DAY, last=DAY, lease_seconds=30.0):
        with transaction(self.engine, write=True) as conn:
            if self.calls:
                conn.execute(model_calls.insert(), self.calls)
            if self.jobs:
                conn.execute(jobs.insert(), self.jobs)
        self.calls, self.jobs = [], []
        settings = Settings(price_per_call=PRICE, lease_seconds=lease_seconds)
        return duplicate_report(self.engine, settings, Days(first, last))


def only_operation(doc, name="extract_invoice"):
    [op] = [o for o in doc["operations"] if o["operation"] == name]
    return op


def test_a_hash_seen_earlier_that_day_makes_a_repeat(engine):
    doc, = (Ledger(engine)
            .call("a", 10, 20).call("a", 100, 110).call("a", 200, 210)
            .call("b", 10, 20).call("c", 300, 310)
            .report())
    op = only_operation(doc)
    assert op == {"operation": "extract_invoice", "calls": 5, "distinct_hashes": 3,
                  "repeat_calls": 2, "repeat_share": 0.4, "cost": 0.02, "repeat_cost": 0.008,
                  "overlapping_calls": 0, "overlapping_cost": 0.0,
                  "overlapping_repeat_calls": 0, "unbilled_calls": 0}


def test_calls_in_flight_together_overlap_and_each_one_counts(engine):
    doc, = (Ledger(engine)
            .call("a", 0, 10).call("a", 5, 6).call("a", 20, 30)   # first two overlap
            .call("b", 0, 100).call("b", 50, 60).call("b", 99, 120)  # all three overlap b1
            .call("c", 0, 10).call("c", 10, 20)                   # touching is not overlapping
            .report())
    op = only_operation(doc)
    assert op["calls"] == 8 and op["repeat_calls"] == 5
    assert op["overlapping_calls"] == 5
    assert op["overlapping_cost"] == 0.02
    assert op["overlapping_repeat_calls"] == 3


def test_a_call_whose_worker_died_is_in_flight_for_one_lease(engine):
    ledger = Ledger(engine)
    ledger.call("a", 0, None).call("a", 25, 26)    # inside the 30 s lease: overlap
    ledger.call("b", 0, None).call("b", 35, 36)    # after it: no overlap
    doc, = ledger.report(lease_seconds=30)
    assert only_operation(doc)["overlapping_calls"] == 2


def test_operations_days_and_hashes_are_counted_apart(engine):
    ledger = Ledger(engine)
    ledger.call("a", 10, 20).call("a", 15, 25, operation="classify")
    ledger.call("a", 86400 + 10, 86400 + 20)       # next day: not a repeat of today's
    ledger.call("a", -100, -5)                      # the day before
    first, second = ledger.report(first=DAY, last=DAY + timedelta(days=1))
    assert only_operation(first)["repeat_calls"] == 0
    assert only_operation(first)["overlapping_calls"] == 0
    assert only_operation(first, "classify")["calls"] == 1
    assert first["requests"]["model_calls"] == 2
    assert only_operation(second)["calls"] == 1 and second["day"] == "2026-11-30"


def test_days_without_traffic_are_reported_empty(engine):
    docs = Ledger(engine).report(first=DAY, last=DAY + timedelta(days=2))
    assert [d["day"] for d in docs] == ["2026-11-29", "2026-11-30", "2026-12-01"]
    assert docs[1] == {"day": "2026-11-30", "operations": [], "spend": [], "requests": {
        "total": 0, "retries": 0, "cache_hits": 0, "joined": 0, "bypass": 0, "model_calls": 0,
        "cost_avoided": 0.0, "would_be_hits": 0, "would_be_joined": 0,
        "cost_would_be_avoided": 0.0}}


def test_the_request_side_counts_uploads_by_cache_outcome(engine):
    ledger = Ledger(engine).call("a", 10, 20).call("b", 10, 20)
    for outcome in ["hit", "hit", "hit", "joined", "bypass", "miss"]:
        ledger.job(outcome)
    ledger.job("miss", would_be="hit").job("miss", would_be="joined")
    ledger.job("hit", created=86400 + 5)          # tomorrow's
    doc, = ledger.report()
    assert doc["requests"] == {
        "total": 8, "retries": 0, "cache_hits": 3, "joined": 1, "bypass": 1, "model_calls": 2,
        "cost_avoided": 0.016, "would_be_hits": 1, "would_be_joined": 1,
        "cost_would_be_avoided": 0.008}


def test_the_contract_example_arithmetic(engine):
    ledger = Ledger(engine)
    for n in range(40):
        ledger.call(f"h{n % 34}", n * 100, n * 100 + 10)
    doc, = ledger.report()
    op = only_operation(doc)
    assert (op["calls"], op["distinct_hashes"], op["repeat_calls"]) == (40, 34, 6)
    assert op["repeat_share"] == 0.15 and op["cost"] == 0.16 and op["repeat_cost"] == 0.024
