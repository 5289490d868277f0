"""The provider ledger: what each paid call really cost, and the shadow comparison.

- model_calls: `provider` and `model` that made the call; the provider's ids (`client_token`
  sent for idempotency, `provider_job_id` such as Textract's JobId, `provider_request_id` of
  its latest answer); `provider_requests` the provider may bill, `input_tokens`,
  `output_tokens` and `pages` as it counted them; `cost_basis` (`flat`, `estimate` until the
  provider answered, `usage` after). A new outcome, `throttled`, needs no schema change.
- shadow_fields: one row per field of each shadow comparison (a candidate provider run after
  the serving one), with its agreement; read per day by `ledgerline report agreement`.

On a live PostgreSQL every new column is nullable or has a constant default (no table rewrite)
and the new table's index is created with it, before any row exists. Rows written before this
revision have no provider: they were the rules' (`provider` NULL reads as `rules`).

Revision ID: 0004_provider_ledger
Revises: 0003
"""
from alembic import op
import sqlalchemy as sa


revision = '0004_provider_ledger'
down_revision = '0003'
branch_labels = None
depends_on = None

LOCK_TIMEOUT = "5s"
CALL_COLUMNS = [
    sa.Column('provider', sa.String(length=16), nullable=True),
    sa.Column('model', sa.String(length=120), nullable=True),
    sa.Column('client_token', sa.String(length=64), nullable=True),
    sa.Column('provider_job_id', sa.String(length=64), nullable=True),
    sa.Column('provider_request_id', sa.String(length=200), nullable=True),
    sa.Column('provider_requests', sa.Integer(), nullable=False, server_default=sa.text('0')),
    sa.Column('input_tokens', sa.BigInteger(), nullable=False, server_default=sa.text('0')),
    sa.Column('output_tokens', sa.BigInteger(), nullable=False, server_default=sa.text('0')),
    sa.Column('pages', sa.Integer(), nullable=False, server_default=sa.text('0')),
    sa.Column('cost_basis', sa.String(length=8), nullable=True),
]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
    for column in CALL_COLUMNS:
        op.add_column('model_calls', column)
    op.create_table(
        'shadow_fields',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('call_id', sa.String(length=40), nullable=False),
        sa.Column('job_id', sa.String(length=32), nullable=False),
        sa.Column('account', sa.String(length=63), nullable=False),
        sa.Column('started_at', sa.DateTime(), nullable=False),
        sa.Column('serving_provider', sa.String(length=16), nullable=False),
        sa.Column('candidate_provider', sa.String(length=16), nullable=False),
        sa.Column('candidate_model', sa.String(length=120), nullable=False),
        sa.Column('field', sa.String(length=40), nullable=False),
        sa.Column('agreement', sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_shadow_fields'),
        sa.UniqueConstraint('call_id', 'field', name='uq_shadow_fields_call_id_field'),
    )
    op.create_index('ix_shadow_fields_day', 'shadow_fields',
                    [sa.text('date(started_at)'), 'candidate_provider', 'field', 'agreement'])


def downgrade() -> None:
    op.drop_index('ix_shadow_fields_day', table_name='shadow_fields')
    op.drop_table('shadow_fields')
    for column in reversed(CALL_COLUMNS):
        op.drop_column('model_calls', column.name)
