"""The claim reads the queue in order from its own index, whatever the planner's estimates.

The claim is a prepared statement whose generic plan PostgreSQL makes once per connection,
often while the queue is empty. Then two other partial indexes of work in flight, those of one
account's work (its fair position, its in-flight cache keys), looked as good as ix_jobs_queue
for it: scanning one and sorting an estimated single row cost no more than reading the queue in
order. Once a backlog formed, every claim sorted the whole queue. Their predicates now add
`account IS NOT NULL`: true of every row (the column is NOT NULL), implied by the lookups that
name an account, and not by the claim, which names none.

The new indexes are built before the old ones are dropped, on PostgreSQL CONCURRENTLY (outside
a transaction: writes go on) and giving up after `lock_timeout` rather than queueing traffic. If
the migration is interrupted while building an index, drop the index it names as INVALID
(`\\d jobs` shows it) and run `ledgerline db upgrade` again.

Revision ID: 0012_account_in_flight
Revises: 0011_lost_originals
"""
import sqlalchemy as sa
from alembic import op

revision = '0012_account_in_flight'
down_revision = '0011_lost_originals'
branch_labels = None
depends_on = None

IN_FLIGHT = "status IN ('pending', 'running') AND leader_id IS NULL"
ACCOUNT_IN_FLIGHT = f"{IN_FLIGHT} AND account IS NOT NULL"
LOCK_TIMEOUT = "5s"
# old name, new name, columns
RENAMED = [
    ("ix_jobs_account_queue", "ix_jobs_account_in_flight_position",
     ["account", "fair_position"]),
    ("ix_jobs_in_flight_cache_key", "ix_jobs_account_in_flight_cache_key",
     ["account", "cache_key"]),
]


def upgrade() -> None:
    _swap([(new, old, columns, ACCOUNT_IN_FLIGHT) for old, new, columns in RENAMED])


def downgrade() -> None:
    _swap([(old, new, columns, IN_FLIGHT) for old, new, columns in RENAMED])


def _swap(indexes: list[tuple[str, str, list[str], str]]) -> None:
    """Each (name to create, name to drop, columns, predicate): all created, then dropped."""
    postgres = op.get_bind().dialect.name == "postgresql"
    if not postgres:
        _create_then_drop(indexes, concurrently=False)
        return
    op.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
    with op.get_context().autocommit_block():
        _create_then_drop(indexes, concurrently=True)


def _create_then_drop(indexes, *, concurrently: bool) -> None:
    for create, _, columns, where in indexes:
        predicate = sa.text(where)
        op.create_index(create, "jobs", columns, if_not_exists=True,
                        postgresql_concurrently=concurrently, postgresql_where=predicate,
                        sqlite_where=predicate)
    for _, drop, _, _ in indexes:
        op.drop_index(drop, table_name="jobs", if_exists=True,
                      postgresql_concurrently=concurrently)
