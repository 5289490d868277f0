"""Corrections that re-check the invoice, and the duplicate flag of lists and exports.

- results and invoices: `number_key` (domain.duplicates.number_key of the invoice number),
  compared as stored like `seller_key`, with indexes (account, seller_key, number_key) and
  (account, seller_key, issue_date): the two ways another file may bill the same thing.
- invoices: `review_required`, the invoice's own once corrected (its checks ran again on the
  corrected values); before this release a correction never changed it, so a corrected
  invoice starts with its result's.

Backfilled in batches from the stored values. On a live PostgreSQL the columns are nullable
(no rewrite) and the indexes are built CONCURRENTLY.

Revision ID: 0009_rechecks_and_duplicates
Revises: 0008_job_origin
"""
import contextlib

import sqlalchemy as sa
from alembic import op

revision = '0009_rechecks_and_duplicates'
down_revision = '0008_job_origin'
branch_labels = None
depends_on = None

BACKFILL_BATCH = 1000
INDEXES = [(f"ix_{table}_account_seller_key_{last}", table, ["account", "seller_key", last])
           for table in ("results", "invoices") for last in ("number_key", "issue_date")]


def _concurrently():
    postgres = op.get_bind().dialect.name == "postgresql"
    return (op.get_context().autocommit_block() if postgres else contextlib.nullcontext(),
            postgres)


def upgrade() -> None:
    for table in ("results", "invoices"):
        op.add_column(table, sa.Column('number_key', sa.String(200), nullable=True))
    op.add_column('invoices', sa.Column('review_required', sa.Boolean(), nullable=True))
    _backfill("results", "")
    _backfill("invoices", " AND corrected_at IS NOT NULL")
    op.execute("UPDATE invoices SET review_required = (SELECT r.review_required FROM jobs j "
               "LEFT JOIN jobs l ON l.id = j.leader_id JOIN results r ON r.id = "
               "COALESCE(l.result_id, j.result_id) WHERE j.id = invoices.job_id) "
               "WHERE corrected_at IS NOT NULL")
    block, postgres = _concurrently()
    with block:
        for name, table, columns in INDEXES:
            op.create_index(name, table, columns, if_not_exists=True,
                            postgresql_concurrently=postgres)


def _backfill(table: str, where: str) -> None:
    from ledgerline.domain.duplicates import number_key

    bind = op.get_bind()
    last = ""
    while True:
        rows = bind.execute(sa.text(
            f"SELECT id, invoice_number FROM {table} WHERE id > :last{where} ORDER BY id "
            "LIMIT :batch"), {"last": last, "batch": BACKFILL_BATCH}).all()
        if not rows:
            return
        bind.execute(sa.text(f"UPDATE {table} SET number_key = :key WHERE id = :id"),
                     [{"id": row.id, "key": number_key(row.invoice_number)} for row in rows])
        last = rows[-1].id


def downgrade() -> None:
    block, postgres = _concurrently()
    with block:
        for name, table, _ in INDEXES:
            op.drop_index(name, table_name=table, if_exists=True,
                          postgresql_concurrently=postgres)
    with op.batch_alter_table('invoices') as batch:
        batch.drop_column('review_required')
        batch.drop_column('number_key')
    with op.batch_alter_table('results') as batch:
        batch.drop_column('number_key')
