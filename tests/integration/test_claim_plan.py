"""The claim's generic plan (a prepared statement's, which PostgreSQL settles on after a few
executions) uses the queue's partial index: a claim is not planned anew at every call."""
from __future__ import annotations

import re
import uuid

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.pool import NullPool

from ledgerline.adapters.db import prebuilt
from ledgerline.adapters.db.postgresql.claims import _claim_and_start_statement


@pytest.fixture
def conn(pg_server):
    name = f"g_{uuid.uuid4().hex[:12]}"
    url = pg_server.create_database(name, template="ledgerline_template")
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as conn:
        yield conn
    engine.dispose()
    pg_server.drop_database(name)


def generic_plan(conn, statement, values: dict) -> str:
    """EXPLAIN of `statement` as sent (IN lists expanded), prepared with a generic plan."""
    sent = (statement.compile(dialect=postgresql.dialect())
            .construct_expanded_state(values))
    names: list[str] = []

    def numbered(match):
        names.append(match.group(1))
        return f"${len(names)}"

    sql = re.sub(r"%\((\w+)\)s", numbered, sent.statement)
    args = ", ".join("NULL" if sent.parameters[n] is None else f"'{sent.parameters[n]}'"
                     for n in names)
    conn.execute(text("SET plan_cache_mode = force_generic_plan"))
    conn.exec_driver_sql(f"PREPARE probe AS {sql}")
    return "\n".join(conn.exec_driver_sql(f"EXPLAIN EXECUTE probe({args})").scalars())


def test_the_claims_generic_plan_reads_the_queue_index(conn):
    plan = generic_plan(conn, _claim_and_start_statement(), prebuilt.values(
        owner="w", lease_seconds=30.0, extractor_versions="v", call_id="call_1",
        operation="extract_invoice", cost=0.004, provider=None, model=None, cost_basis=None))
    assert "ix_jobs_queue" in plan, plan
