"""The claim's generic plan (a prepared statement's, which PostgreSQL settles on after a few
executions when it looks no dearer than plans made for the values) uses the queue's partial
index and is chosen: on a job table with a history, a claim is not planned anew at every
call."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import text
from sqlalchemy.dialects import postgresql

from ledgerline.adapters.db import prebuilt
from ledgerline.adapters.db.postgresql.claims import _claim_and_start_statement
from tests.integration.loaded_history import loaded_history


VERSIONS = "invoice-v2/p/m/c"


@pytest.fixture
def conn(pg_server):
    # finished jobs, and statistics of them
    with loaded_history(pg_server, 20_000, VERSIONS, accounts=2) as engine, \
            engine.connect() as conn:
        yield conn


def plans(conn, statement, values: dict) -> dict[str, str]:
    """EXPLAIN of `statement` as sent (IN lists expanded), prepared, with a plan made for
    the values ("custom") and a generic one."""
    sent = (statement.compile(dialect=postgresql.dialect())
            .construct_expanded_state(values))
    names: list[str] = []

    def numbered(match):
        names.append(match.group(1))
        return f"${len(names)}"

    sql = re.sub(r"%\((\w+)\)s", numbered, sent.statement)
    args = ", ".join("NULL" if sent.parameters[n] is None else f"'{sent.parameters[n]}'"
                     for n in names)
    conn.exec_driver_sql(f"PREPARE probe AS {sql}")
    explained = {}
    for kind in ("custom", "generic"):
        conn.execute(text(f"SET plan_cache_mode = force_{kind}_plan"))
        explained[kind] = "\n".join(
            conn.exec_driver_sql(f"EXPLAIN EXECUTE probe({args})").scalars())
    return explained


def total_cost(plan: str) -> float:
    return float(re.search(r"cost=[\d.]+\.\.([\d.]+)", plan).group(1))


def test_the_claims_generic_plan_reads_the_queue_index_and_is_chosen(conn):
    explained = plans(conn, _claim_and_start_statement().statement, prebuilt.values(
        owner="w", lease_seconds=30.0, extractor_versions=VERSIONS, call_id="call_1",
        operation="extract_invoice", cost=0.004, provider=None, model=None, cost_basis=None))
    generic = explained["generic"]
    assert "ix_jobs_queue" in generic, generic
    # PostgreSQL keeps a generic plan that costs no more than those made for the values.
    assert total_cost(generic) <= total_cost(explained["custom"]), explained
