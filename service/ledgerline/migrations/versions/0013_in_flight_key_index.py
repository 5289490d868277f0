"""On PostgreSQL, "one extraction in flight per key" indexes only the keys of work in flight.

The unique constraint on jobs (account, inflight_key) indexed every job, and every finished,
failed, joined or served job has a NULL key: all of an account's history sat in the index as
NULL entries after its few keys in flight. A claim cannot update a job in place (it changes
`status`, which the queue's partial indexes name), so each claim put its new row version into
that index among them: with two million past jobs, the claim's UPDATE of jobs took 0.24 ms
against 0.10 ms on an empty database (bench/history.py's databases; with this index, 0.11
against 0.10 ms). A partial unique index (`WHERE inflight_key IS NOT NULL`) enforces the same:
NULLs never collided. The lookups (a joinable leader, a hit's "no extraction in flight") name
a key, which implies the predicate, prepared statements included.

Built CONCURRENTLY before the constraint is dropped (both enforce the rule meanwhile);
statements that need a strong lock give up after `lock_timeout` rather than queue traffic. If
the migration is interrupted while building the index, drop the index it names as INVALID
(`\\d jobs` shows it) and run `ledgerline db upgrade` again.

SQLite keeps its constraint: it is inline in the table, and only a rebuild of jobs (with
foreign keys off, outside any transaction) could drop it; the embedded database has no
history of that size to speak of. The tables' metadata says as much (ddl_if).

Revision ID: 0013_in_flight_key_index
Revises: 0012_account_in_flight
"""
from alembic import op

revision = '0013_in_flight_key_index'
down_revision = '0012_account_in_flight'
branch_labels = None
depends_on = None

CONSTRAINT = "uq_jobs_account_inflight_key"
# Its own name, not the constraint's: SQLite keeps the constraint under that name, and one name
# for two objects on two dialects confuses a comparison of the tables with the migrations.
INDEX = "uq_jobs_account_inflight_key_in_flight"
BUILDING = f"{CONSTRAINT}_full"
LOCK_TIMEOUT = "5s"


def upgrade() -> None:
    _on_postgresql(
        f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} "
        "ON jobs (account, inflight_key) WHERE inflight_key IS NOT NULL",
        f"ALTER TABLE jobs DROP CONSTRAINT IF EXISTS {CONSTRAINT}")


def downgrade() -> None:
    _on_postgresql(
        f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS {BUILDING} "
        "ON jobs (account, inflight_key)",
        f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}",
        # The full index becomes the constraint, under the constraint's name.
        f"ALTER TABLE jobs ADD CONSTRAINT {CONSTRAINT} UNIQUE USING INDEX {BUILDING}")


def _on_postgresql(*statements: str) -> None:
    """The statements in turn, each committed on its own (CONCURRENTLY runs in no
    transaction), on PostgreSQL only: SQLite keeps its constraint."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
    with op.get_context().autocommit_block():
        for statement in statements:
            op.execute(statement)
