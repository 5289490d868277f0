"""The queue's statements find work through its partial indexes also as prepared statements.

psycopg prepares a statement after a few executions, and PostgreSQL then plans it once for any
parameters (a generic plan). Such a plan may use a partial index only if the statement's text
implies the index's predicate: with the in-flight statuses bound as parameters it could not,
and each claim scanned the whole job table and sorted the queue. Here every statement runs
with a generic plan, sequential scans priced out, and the plans as PostgreSQL ran them
(auto_explain, sent to this client) are read back.
"""
from __future__ import annotations

import contextlib
import re
import uuid
from types import SimpleNamespace

import pytest

from ledgerline.adapters.db.database import SqlDatabase
from ledgerline.adapters.db.engine import make_engine
from tests.conftest import TEMPLATE_DB
from tests.contract.steps import claim, upload
from tests.tenants import sql_tenant

QUEUE_INDEXES = ("ix_jobs_queue", "ix_jobs_account_in_flight_position")  # partial: in flight


@pytest.fixture
def queue(pg_server):
    name = f"p_{uuid.uuid4().hex[:12]}"
    engine = make_engine(pg_server.create_database(name, template=TEMPLATE_DB))
    store = SimpleNamespace(db=SqlDatabase(engine))
    customer = sql_tenant(engine, "acme")["customer"]
    yield store, customer
    engine.dispose()
    pg_server.drop_database(name)


@contextlib.contextmanager
def generic_plans(db: SqlDatabase):
    """Inside: every statement on the held connection planned as a generic plan, without
    sequential scans where any index will do; yields the plans as they ran."""
    plans: list[str] = []
    with db.one_connection():
        with db.transaction(write=False) as tx:
            for setting in ("LOAD 'auto_explain'", "SET auto_explain.log_min_duration = 0",
                            "SET auto_explain.log_nested_statements = on",
                            "SET auto_explain.log_level = notice",
                            "SET plan_cache_mode = force_generic_plan",
                            "SET enable_seqscan = off"):
                tx.conn.exec_driver_sql(setting)
            tx.conn.connection.driver_connection.add_notice_handler(
                lambda notice: plans.append(notice.message_primary or ""))
        yield plans


def plan_of(plans: list[str], opening: str) -> str:
    [found] = [plan for plan in plans if f"Query Text: {opening}" in plan]
    return found


def test_a_claim_takes_the_head_of_the_queue_from_its_index(queue):
    store, customer = queue
    for i in range(3):
        upload(store, customer, f"queued-{i}")
    with generic_plans(store.db) as plans:
        job, _ = claim(store, "w1")
    assert job is not None
    plan = plan_of(plans, "WITH claimed AS")
    assert "Index Scan using ix_jobs_queue on jobs" in plan, plan
    assert "Seq Scan on jobs" not in plan, plan


def test_a_claim_planned_on_an_empty_queue_still_reads_it_in_order(queue):
    """A worker's first claims usually find nothing, and its prepared claim keeps the plan
    made then: with every partial index empty, any of them and a sort looked as cheap as the
    queue's own index in order, and a later backlog was sorted whole at every claim."""
    store, customer = queue
    for i in range(200):
        upload(store, customer, f"done-{i}")
    with store.db.transaction(write=True) as tx:
        tx.conn.exec_driver_sql("UPDATE jobs SET status = 'completed', inflight_key = NULL")
    with generic_plans(store.db) as plans:
        assert claim(store, "w1") == (None, None)
    plan = plan_of(plans, "WITH claimed AS")
    assert "Index Scan using ix_jobs_queue on jobs" in plan, plan
    assert "Sort Key: jobs.fair_position" not in plan, plan


def test_an_arrival_finds_its_fair_position_from_the_queue_indexes(queue):
    store, customer = queue
    upload(store, customer, "first")
    with generic_plans(store.db) as plans:
        upload(store, customer, "second")
    plan = plan_of(plans, "WITH new_job AS")  # the job, its invoice and NOTIFY
    probes = re.findall(r"(Seq Scan|using \w+) on jobs (q|mine)\b", plan)
    assert {table for _, table in probes} == {"q", "mine"}, plan
    assert {how for how, _ in probes} <= {f"using {index}" for index in QUEUE_INDEXES}, plan
