"""Webhooks an integrator can live with: fair claims, rotated secrets, events with their data.

- webhook_endpoints: `usage_seconds` (the time its attempts took, decaying; claims go to the
  account, then the endpoint, that used least), `claimed_at` (its last claim) and `busy_until`
  (the lease of the delivery in flight: one at a time per endpoint); `previous_secret` and
  `previous_secret_until`, the secret a rotation replaced, which signs beside the new one
  until then.
- webhook_deliveries: `payload`, the body of every attempt, kept from the first one; the queue
  index becomes (endpoint_id, next_attempt_at), the order claims read each endpoint in.
- webhook_attempts: `outcome`, how the attempt ended (domain.webhooks.OUTCOMES).

On a live PostgreSQL: every new column is nullable or has a constant default (no rewrite), and
the indexes are built and dropped CONCURRENTLY.

Revision ID: 0007_webhook_delivery
Revises: 0006_same_file_order
"""
import contextlib

import sqlalchemy as sa
from alembic import op

revision = '0007_webhook_delivery'
down_revision = '0006_same_file_order'
branch_labels = None
depends_on = None

DELIVERABLE = "status IN ('pending', 'delivering')"
NEW = ("ix_webhook_deliveries_endpoint_queue", ["endpoint_id", "next_attempt_at"])
OLD = ("ix_webhook_deliveries_queue", ["next_attempt_at"])
COLUMNS = [
    ("webhook_endpoints", sa.Column("usage_seconds", sa.Float(), nullable=False,
                                    server_default=sa.text("0"))),
    ("webhook_endpoints", sa.Column("claimed_at", sa.DateTime(), nullable=True)),
    ("webhook_endpoints", sa.Column("busy_until", sa.DateTime(), nullable=True)),
    ("webhook_endpoints", sa.Column("previous_secret", sa.String(100), nullable=True)),
    ("webhook_endpoints", sa.Column("previous_secret_until", sa.DateTime(), nullable=True)),
    ("webhook_deliveries", sa.Column("payload", sa.Text(), nullable=True)),
    ("webhook_attempts", sa.Column("outcome", sa.String(32), nullable=True)),
]


def _swap(create: tuple, drop: tuple) -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    where = sa.text(DELIVERABLE)
    with op.get_context().autocommit_block() if postgres else contextlib.nullcontext():
        op.create_index(create[0], "webhook_deliveries", create[1], if_not_exists=True,
                        postgresql_where=where, sqlite_where=where,
                        postgresql_concurrently=postgres)
        op.drop_index(drop[0], table_name="webhook_deliveries", if_exists=True,
                      postgresql_concurrently=postgres)


def upgrade() -> None:
    for table, column in COLUMNS:
        op.add_column(table, column)
    _swap(NEW, OLD)


def downgrade() -> None:
    _swap(OLD, NEW)
    for table, column in reversed(COLUMNS):
        with op.batch_alter_table(table) as batch:
            batch.drop_column(column.name)
