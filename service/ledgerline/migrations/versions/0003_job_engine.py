"""The job engine: versions bound to jobs, fair and O(1) claims, idempotent worker writes.

- jobs: `extractor_versions` (a worker claims only jobs keyed with its own extractor),
  `fair_position` (claims rotate between accounts), `claimed_at` (start of the current attempt,
  which orders cache updates), `retry_of` (jobs made by the retry endpoint).
- model_calls: `call_id`, made by the worker, unique, so a retried ledger write adds no row.
- cache_entries: `started_at` of the extraction behind the entry (a publish replaces an entry
  only with a later-started extraction).
- invoices -> blobs foreign key on (account, content_hash), with its index: a purge can never
  remove the original of an invoice, and an upload that trusted a row a purge just removed fails
  and stores the file again instead of pointing at nothing.
- Indexes: the queue is indexed only while work is in flight (partial indexes on pending and
  running leaders), so finished and joined jobs — nearly all of the history — never slow a
  claim; `model_calls(job_id)` for the abandoned-call sweep; `result_id` on jobs and
  cache_entries, so that the purge (and the foreign keys' checks) find references by index; the report's index also carries
  `outcome`. Dropped: ix_jobs_created_at (ix_jobs_created_at_outcome_would_be starts with the
  same column), ix_jobs_status_run_after and ix_jobs_account_cache_key_status (replaced by
  partial indexes), the full ix_jobs_leader_id (now partial), and the model_calls indexes no
  query uses.

On a live PostgreSQL: new columns are nullable or have a constant default (no table rewrite),
every statement that needs a strong lock gives up after `lock_timeout` instead of queueing the
traffic behind it, indexes are built and dropped CONCURRENTLY (outside a transaction: writes go
on), and the foreign key is added NOT VALID and then validated, which blocks no writes. Only
jobs in flight are backfilled. If the migration is interrupted while building an index, drop
the index it names as INVALID (`\\d jobs` shows it) and run `ledgerline db upgrade` again.
Jobs accepted by an older API carry no versions and are left to older workers; upgrade API and
workers together.

Revision ID: 0003
Revises: 0002
"""
from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

IN_FLIGHT = "status IN ('pending', 'running') AND leader_id IS NULL"
JOINED = "leader_id IS NOT NULL"
LOCK_TIMEOUT = "5s"

NEW_INDEXES = [
    # name, table, columns, unique, partial predicate
    ("ix_jobs_queue", "jobs", ["extractor_versions", "fair_position", "created_at"], False,
     IN_FLIGHT),
    ("ix_jobs_account_queue", "jobs", ["account", "fair_position"], False, IN_FLIGHT),
    ("ix_jobs_in_flight_cache_key", "jobs", ["account", "cache_key"], False, IN_FLIGHT),
    ("ix_jobs_joined_leader_id", "jobs", ["leader_id"], False, JOINED),
    ("ix_model_calls_job_id", "model_calls", ["job_id"], False, None),
    ("uq_model_calls_call_id", "model_calls", ["call_id"], True, None),
    ("ix_model_calls_day_hash_outcome", "model_calls",
     [sa.text("date(started_at)"), "operation", "request_hash", "started_at", "id",
      "finished_at", "cost", "outcome"], False, None),
    ("ix_invoices_account_content_hash", "invoices", ["account", "content_hash"], False, None),
    ("ix_jobs_result_id", "jobs", ["result_id"], False, None),
    ("ix_cache_entries_result_id", "cache_entries", ["result_id"], False, None),
]
OLD_INDEXES = [
    ("ix_jobs_created_at", "jobs"),
    ("ix_jobs_status_run_after", "jobs"),
    ("ix_jobs_account_cache_key_status", "jobs"),
    ("ix_jobs_leader_id", "jobs"),
    ("ix_model_calls_day_hash", "model_calls"),
    ("ix_model_calls_operation_started_at", "model_calls"),
    ("ix_model_calls_request_hash_started_at", "model_calls"),
]
INVOICE_BLOB_FK = "fk_invoices_account_blobs"


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        op.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
    op.add_column('jobs', sa.Column('extractor_versions', sa.String(length=300), nullable=True))
    op.add_column('jobs', sa.Column('fair_position', sa.BigInteger(), nullable=False,
                                    server_default=sa.text('0')))
    op.add_column('jobs', sa.Column('claimed_at', sa.DateTime(), nullable=True))
    op.add_column('jobs', sa.Column('retry_of', sa.String(length=32), nullable=True))
    op.add_column('model_calls', sa.Column('call_id', sa.String(length=40), nullable=True))
    op.add_column('cache_entries', sa.Column('started_at', sa.DateTime(), nullable=True))
    _backfill_in_flight()
    if postgres:
        op.execute(f"ALTER TABLE invoices ADD CONSTRAINT {INVOICE_BLOB_FK} FOREIGN KEY "
                   "(account, content_hash) REFERENCES blobs (account, content_hash) NOT VALID")
        with op.get_context().autocommit_block():
            op.execute(f"ALTER TABLE invoices VALIDATE CONSTRAINT {INVOICE_BLOB_FK}")
            _swap_indexes(concurrently=True)
    else:
        with op.batch_alter_table('invoices', recreate='always') as batch:
            batch.create_foreign_key(INVOICE_BLOB_FK, 'blobs', ['account', 'content_hash'],
                                     ['account', 'content_hash'])
        _swap_indexes(concurrently=False)


def _backfill_in_flight() -> None:
    """Work in flight gets the versions of the extractor this release runs by default and a
    queue position in arrival order; finished jobs need neither."""
    from ledgerline.adapters.extractor import PdfExtractor

    label = PdfExtractor(use_embedded_xml=True).versions.label
    bind = op.get_bind()
    ids = [row[0] for row in bind.execute(sa.text(
        f"SELECT id FROM jobs WHERE {IN_FLIGHT} ORDER BY created_at"))]
    for position, job_id in enumerate(ids):
        bind.execute(sa.text("UPDATE jobs SET extractor_versions = :label, fair_position = :pos "
                             "WHERE id = :id"), {"label": label, "pos": position, "id": job_id})


def _swap_indexes(*, concurrently: bool) -> None:
    for name, table, columns, unique, where in NEW_INDEXES:
        where_clause = sa.text(where) if where else None
        op.create_index(name, table, columns, unique=unique, if_not_exists=True,
                        postgresql_concurrently=concurrently, postgresql_where=where_clause,
                        sqlite_where=where_clause)
    for name, table in OLD_INDEXES:
        op.drop_index(name, table_name=table, if_exists=True,
                      postgresql_concurrently=concurrently)


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for name, table, _columns, _unique, _where in NEW_INDEXES:
        op.drop_index(name, table_name=table, if_exists=True)
    op.create_index('ix_jobs_created_at', 'jobs', ['created_at'])
    op.create_index('ix_jobs_status_run_after', 'jobs', ['status', 'run_after'])
    op.create_index('ix_jobs_account_cache_key_status', 'jobs', ['account', 'cache_key', 'status'])
    op.create_index('ix_jobs_leader_id', 'jobs', ['leader_id'])
    op.create_index('ix_model_calls_operation_started_at', 'model_calls',
                    ['operation', 'started_at'])
    op.create_index('ix_model_calls_request_hash_started_at', 'model_calls',
                    ['request_hash', 'started_at'])
    op.create_index('ix_model_calls_day_hash', 'model_calls',
                    [sa.text('date(started_at)'), 'operation', 'request_hash', 'started_at',
                     'id', 'finished_at', 'cost'])
    if postgres:
        op.drop_constraint(INVOICE_BLOB_FK, 'invoices', type_='foreignkey')
    else:
        with op.batch_alter_table('invoices', recreate='always') as batch:
            batch.drop_constraint(INVOICE_BLOB_FK, type_='foreignkey')
    op.drop_column('cache_entries', 'started_at')
    op.drop_column('model_calls', 'call_id')
    for column in ('retry_of', 'claimed_at', 'fair_position', 'extractor_versions'):
        op.drop_column('jobs', column)
