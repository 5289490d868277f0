"""What finance teams do after extraction: corrections and review, deletion and retention,
key revocation and dashboard sessions, webhooks.

- invoices: the correction overlay and its version, the invoice's own summary columns once it
  was corrected (with `seller_key`), the review resolution; invoice_corrections, its history.
- results: `seller_key` (domain.duplicates.seller_key of the seller name, so that SQL compares
  the rule's own folding) and `review_required`; both backfilled from the stored documents.
- accounts: `retention_days`, `deleted_at`. api_keys: `expires_at`, `revoked_at`,
  `replaced_by`. auth_state: the revocation generation and the session signing secret.
  dashboard_sessions.
- webhook_endpoints, webhook_deliveries (the outbox, claimed under leases), webhook_attempts
  (the delivery log).

On a live PostgreSQL: every new column is nullable or has a constant default (no rewrite),
new tables are empty, and the two indexes on existing tables are built CONCURRENTLY. The
backfill runs in batches of BACKFILL_BATCH rows, each its own statement.

Revision ID: 0005_lifecycle
Revises: 0004_provider_ledger
"""
import json
import secrets

import sqlalchemy as sa
from alembic import op

revision = '0005_lifecycle'
down_revision = '0004_provider_ledger'
branch_labels = None
depends_on = None

BACKFILL_BATCH = 1000
LOCK_TIMEOUT = "5s"
DELIVERABLE = "status IN ('pending', 'delivering')"


def _utc():
    return sa.DateTime()


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        op.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
    _add_columns()
    _create_tables()
    _backfill_results()
    if postgres:
        with op.get_context().autocommit_block():
            _index_existing(concurrently=True)
    else:
        _index_existing(concurrently=False)


def _add_columns() -> None:
    op.add_column('accounts', sa.Column('retention_days', sa.Integer(), nullable=True))
    op.add_column('accounts', sa.Column('deleted_at', _utc(), nullable=True))
    op.add_column('api_keys', sa.Column('expires_at', _utc(), nullable=True))
    op.add_column('api_keys', sa.Column('revoked_at', _utc(), nullable=True))
    op.add_column('api_keys', sa.Column('replaced_by', sa.String(32), nullable=True))
    op.add_column('results', sa.Column('seller_key', sa.String(300), nullable=True))
    op.add_column('results', sa.Column('review_required', sa.Boolean(), nullable=True))
    for _name, column in [
        ('version', sa.Column('version', sa.Integer(), nullable=False,
                              server_default=sa.text('0'))),
        ('corrected_at', sa.Column('corrected_at', _utc(), nullable=True)),
        ('corrections', sa.Column('corrections', sa.Text(), nullable=True)),
        ('invoice_number', sa.Column('invoice_number', sa.String(200), nullable=True)),
        ('issue_date', sa.Column('issue_date', sa.String(10), nullable=True)),
        ('seller_name', sa.Column('seller_name', sa.String(300), nullable=True)),
        ('gross_total', sa.Column('gross_total', sa.String(40), nullable=True)),
        ('currency', sa.Column('currency', sa.String(3), nullable=True)),
        ('seller_key', sa.Column('seller_key', sa.String(300), nullable=True)),
        ('review_resolved_at', sa.Column('review_resolved_at', _utc(), nullable=True)),
        ('review_resolved_by', sa.Column('review_resolved_by', sa.String(32), nullable=True)),
    ]:
        op.add_column('invoices', column)


def _create_tables() -> None:
    auth_state = op.create_table(
        'auth_state',
        sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('generation', sa.BigInteger(), nullable=False),
        sa.Column('session_secret', sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_auth_state'))
    op.bulk_insert(auth_state, [{"id": 1, "generation": 0,
                                 "session_secret": secrets.token_hex(32)}])
    op.create_table(
        'dashboard_sessions',
        sa.Column('id_hash', sa.String(64), nullable=False),
        sa.Column('key_id', sa.String(32), nullable=False),
        sa.Column('created_at', _utc(), nullable=False),
        sa.Column('expires_at', _utc(), nullable=False),
        sa.ForeignKeyConstraint(['key_id'], ['api_keys.id'],
                                name='fk_dashboard_sessions_key_id_api_keys'),
        sa.PrimaryKeyConstraint('id_hash', name='pk_dashboard_sessions'))
    op.create_index('ix_dashboard_sessions_key_id', 'dashboard_sessions', ['key_id'])
    op.create_table(
        'invoice_corrections',
        sa.Column('id', sa.String(32), nullable=False),
        sa.Column('account', sa.String(63), nullable=False),
        sa.Column('invoice_id', sa.String(32), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(16), nullable=False),
        sa.Column('author_key_id', sa.String(32), nullable=False),
        sa.Column('author_role', sa.String(16), nullable=False),
        sa.Column('author_name', sa.String(200), nullable=True),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.Column('changes', sa.Text(), nullable=False),
        sa.Column('created_at', _utc(), nullable=False),
        sa.ForeignKeyConstraint(['invoice_id'], ['invoices.id'],
                                name='fk_invoice_corrections_invoice_id_invoices'),
        sa.PrimaryKeyConstraint('id', name='pk_invoice_corrections'),
        sa.UniqueConstraint('invoice_id', 'version',
                            name='uq_invoice_corrections_invoice_id_version'))
    op.create_table(
        'webhook_endpoints',
        sa.Column('id', sa.String(32), nullable=False),
        sa.Column('account', sa.String(63), nullable=False),
        sa.Column('url', sa.String(2048), nullable=False),
        sa.Column('events', sa.String(200), nullable=False),
        sa.Column('secret', sa.String(100), nullable=False),
        sa.Column('created_by', sa.String(32), nullable=False),
        sa.Column('created_at', _utc(), nullable=False),
        sa.Column('failing_since', _utc(), nullable=True),
        sa.Column('disabled_at', _utc(), nullable=True),
        sa.Column('disabled_reason', sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(['account'], ['accounts.name'],
                                name='fk_webhook_endpoints_account_accounts'),
        sa.PrimaryKeyConstraint('id', name='pk_webhook_endpoints'))
    op.create_index('ix_webhook_endpoints_account', 'webhook_endpoints', ['account'])
    op.create_table(
        'webhook_deliveries',
        sa.Column('id', sa.String(160), nullable=False),
        sa.Column('endpoint_id', sa.String(32), nullable=False),
        sa.Column('event_id', sa.String(120), nullable=False),
        sa.Column('account', sa.String(63), nullable=False),
        sa.Column('type', sa.String(40), nullable=False),
        sa.Column('invoice_id', sa.String(32), nullable=False),
        sa.Column('detail', sa.String(64), nullable=True),
        sa.Column('occurred_at', _utc(), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', _utc(), nullable=False),
        sa.Column('first_attempt_at', _utc(), nullable=True),
        sa.Column('lease_owner', sa.String(120), nullable=True),
        sa.Column('lease_expires_at', _utc(), nullable=True),
        sa.Column('fencing_token', sa.Integer(), nullable=False),
        sa.Column('delivered_at', _utc(), nullable=True),
        sa.Column('last_status_code', sa.Integer(), nullable=True),
        sa.Column('last_error', sa.String(500), nullable=True),
        sa.ForeignKeyConstraint(['endpoint_id'], ['webhook_endpoints.id'],
                                name='fk_webhook_deliveries_endpoint_id_webhook_endpoints'),
        sa.PrimaryKeyConstraint('id', name='pk_webhook_deliveries'))
    op.create_index('ix_webhook_deliveries_endpoint_id_occurred_at', 'webhook_deliveries',
                    ['endpoint_id', 'occurred_at'])
    op.create_index('ix_webhook_deliveries_queue', 'webhook_deliveries', ['next_attempt_at'],
                    postgresql_where=sa.text(DELIVERABLE), sqlite_where=sa.text(DELIVERABLE))
    op.create_table(
        'webhook_attempts',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('delivery_id', sa.String(160), nullable=False),
        sa.Column('attempt', sa.Integer(), nullable=False),
        sa.Column('started_at', _utc(), nullable=False),
        sa.Column('duration_ms', sa.Integer(), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=True),
        sa.Column('error', sa.String(500), nullable=True),
        sa.Column('response_excerpt', sa.String(500), nullable=True),
        sa.ForeignKeyConstraint(['delivery_id'], ['webhook_deliveries.id'],
                                name='fk_webhook_attempts_delivery_id_webhook_deliveries'),
        sa.PrimaryKeyConstraint('id', name='pk_webhook_attempts'))
    op.create_index('ix_webhook_attempts_delivery_id', 'webhook_attempts', ['delivery_id'])


def _backfill_results() -> None:
    """seller_key and review_required of every stored result, from its document."""
    from ledgerline.domain.duplicates import seller_key

    bind = op.get_bind()
    last = ""
    while True:
        rows = bind.execute(sa.text(
            "SELECT id, seller_name, document FROM results WHERE id > :last ORDER BY id "
            "LIMIT :batch"), {"last": last, "batch": BACKFILL_BATCH}).all()
        if not rows:
            return
        updates = []
        for row in rows:
            try:
                review = json.loads(row.document).get("review") or {}
            except ValueError:
                review = {}
            updates.append({"id": row.id, "key": seller_key(row.seller_name),
                            "review": review.get("required") is True})
        bind.execute(sa.text("UPDATE results SET seller_key = :key, review_required = :review "
                             "WHERE id = :id"), updates)
        last = rows[-1].id


def _index_existing(*, concurrently: bool) -> None:
    for table in ("results", "invoices"):
        op.create_index(f'ix_{table}_account_seller_key', table, ['account', 'seller_key'],
                        if_not_exists=True, postgresql_concurrently=concurrently)


def downgrade() -> None:
    for table in ("results", "invoices"):
        op.drop_index(f'ix_{table}_account_seller_key', table_name=table, if_exists=True)
    for table in ("webhook_attempts", "webhook_deliveries", "webhook_endpoints",
                  "invoice_corrections", "dashboard_sessions", "auth_state"):
        op.drop_table(table)
    for table, columns in [
        ('invoices', ['review_resolved_by', 'review_resolved_at', 'seller_key', 'currency',
                      'gross_total', 'seller_name', 'issue_date', 'invoice_number',
                      'corrections', 'corrected_at', 'version']),
        ('results', ['review_required', 'seller_key']),
        ('api_keys', ['replaced_by', 'revoked_at', 'expires_at']),
        ('accounts', ['deleted_at', 'retention_days']),
    ]:
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.drop_column(column)
