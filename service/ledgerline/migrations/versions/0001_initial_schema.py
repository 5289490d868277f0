"""Initial schema: accounts, keys, originals, results, the cache, jobs, invoices, the call ledger.

Revision ID: 0001
Revises:
"""
from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('accounts',
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_accounts'))
    )
    op.create_table('model_calls',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('operation', sa.String(length=40), nullable=False),
    sa.Column('account', sa.String(length=63), nullable=False),
    sa.Column('job_id', sa.String(length=32), nullable=False),
    sa.Column('request_hash', sa.String(length=64), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('outcome', sa.String(length=16), nullable=False),
    sa.Column('cost', sa.Numeric(precision=12, scale=6), nullable=False),
    sa.Column('worker', sa.String(length=120), nullable=False),
    sa.Column('fencing_token', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_model_calls'))
    )
    with op.batch_alter_table('model_calls', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_model_calls_operation_started_at'), ['operation', 'started_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_model_calls_request_hash_started_at'), ['request_hash', 'started_at'], unique=False)

    op.create_table('api_keys',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('key_hash', sa.String(length=64), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('account', sa.String(length=63), nullable=True),
    sa.Column('name', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account'], ['accounts.name'], name=op.f('fk_api_keys_account_accounts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_keys')),
    sa.UniqueConstraint('key_hash', name=op.f('uq_api_keys_key_hash'))
    )
    op.create_table('blobs',
    sa.Column('account', sa.String(length=63), nullable=False),
    sa.Column('content_hash', sa.String(length=80), nullable=False),
    sa.Column('storage_key', sa.String(length=300), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('stored_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account'], ['accounts.name'], name=op.f('fk_blobs_account_accounts')),
    sa.PrimaryKeyConstraint('account', 'content_hash', name=op.f('pk_blobs'))
    )
    op.create_table('results',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('account', sa.String(length=63), nullable=False),
    sa.Column('cache_key', sa.String(length=64), nullable=False),
    sa.Column('content_hash', sa.String(length=80), nullable=False),
    sa.Column('job_id', sa.String(length=32), nullable=False),
    sa.Column('document', sa.Text(), nullable=False),
    sa.Column('invoice_number', sa.String(length=200), nullable=True),
    sa.Column('issue_date', sa.String(length=10), nullable=True),
    sa.Column('seller_name', sa.String(length=300), nullable=True),
    sa.Column('gross_total', sa.String(length=40), nullable=True),
    sa.Column('currency', sa.String(length=3), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account'], ['accounts.name'], name=op.f('fk_results_account_accounts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_results'))
    )
    with op.batch_alter_table('results', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_results_account_cache_key'), ['account', 'cache_key'], unique=False)

    op.create_table('cache_entries',
    sa.Column('account', sa.String(length=63), nullable=False),
    sa.Column('cache_key', sa.String(length=64), nullable=False),
    sa.Column('result_id', sa.String(length=32), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account'], ['accounts.name'], name=op.f('fk_cache_entries_account_accounts')),
    sa.ForeignKeyConstraint(['result_id'], ['results.id'], name=op.f('fk_cache_entries_result_id_results')),
    sa.PrimaryKeyConstraint('account', 'cache_key', name=op.f('pk_cache_entries'))
    )
    op.create_table('jobs',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('account', sa.String(length=63), nullable=False),
    sa.Column('caller_id', sa.String(length=32), nullable=False),
    sa.Column('idempotency_key', sa.String(length=255), nullable=True),
    sa.Column('request_hash', sa.String(length=64), nullable=False),
    sa.Column('cache_key', sa.String(length=64), nullable=False),
    sa.Column('content_hash', sa.String(length=80), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('outcome', sa.String(length=8), nullable=False),
    sa.Column('would_be', sa.String(length=8), nullable=True),
    sa.Column('fresh', sa.Boolean(), nullable=False),
    sa.Column('leader_id', sa.String(length=32), nullable=True),
    sa.Column('inflight_key', sa.String(length=64), nullable=True),
    sa.Column('result_id', sa.String(length=32), nullable=True),
    sa.Column('lease_owner', sa.String(length=120), nullable=True),
    sa.Column('lease_expires_at', sa.DateTime(), nullable=True),
    sa.Column('fencing_token', sa.Integer(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('run_after', sa.DateTime(), nullable=False),
    sa.Column('error_code', sa.String(length=40), nullable=True),
    sa.Column('error_message', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['account'], ['accounts.name'], name=op.f('fk_jobs_account_accounts')),
    sa.ForeignKeyConstraint(['caller_id'], ['api_keys.id'], name=op.f('fk_jobs_caller_id_api_keys')),
    sa.ForeignKeyConstraint(['leader_id'], ['jobs.id'], name=op.f('fk_jobs_leader_id_jobs')),
    sa.ForeignKeyConstraint(['result_id'], ['results.id'], name=op.f('fk_jobs_result_id_results')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_jobs')),
    sa.UniqueConstraint('account', 'caller_id', 'idempotency_key', name=op.f('uq_jobs_account_caller_id_idempotency_key')),
    sa.UniqueConstraint('account', 'inflight_key', name=op.f('uq_jobs_account_inflight_key'))
    )
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_jobs_account_cache_key_status'), ['account', 'cache_key', 'status'], unique=False)
        batch_op.create_index(batch_op.f('ix_jobs_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_jobs_leader_id'), ['leader_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_jobs_status_run_after'), ['status', 'run_after'], unique=False)

    op.create_table('invoices',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('account', sa.String(length=63), nullable=False),
    sa.Column('uploaded_by', sa.String(length=32), nullable=False),
    sa.Column('job_id', sa.String(length=32), nullable=False),
    sa.Column('content_hash', sa.String(length=80), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account'], ['accounts.name'], name=op.f('fk_invoices_account_accounts')),
    sa.ForeignKeyConstraint(['job_id'], ['jobs.id'], name=op.f('fk_invoices_job_id_jobs')),
    sa.ForeignKeyConstraint(['uploaded_by'], ['api_keys.id'], name=op.f('fk_invoices_uploaded_by_api_keys')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_invoices')),
    sa.UniqueConstraint('job_id', name=op.f('uq_invoices_job_id'))
    )
    with op.batch_alter_table('invoices', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_invoices_account_created_at_id'), ['account', 'created_at', 'id'], unique=False)
        batch_op.create_index(batch_op.f('ix_invoices_account_uploaded_by_created_at_id'), ['account', 'uploaded_by', 'created_at', 'id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('invoices', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_invoices_account_uploaded_by_created_at_id'))
        batch_op.drop_index(batch_op.f('ix_invoices_account_created_at_id'))

    op.drop_table('invoices')
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_jobs_status_run_after'))
        batch_op.drop_index(batch_op.f('ix_jobs_leader_id'))
        batch_op.drop_index(batch_op.f('ix_jobs_created_at'))
        batch_op.drop_index(batch_op.f('ix_jobs_account_cache_key_status'))

    op.drop_table('jobs')
    op.drop_table('cache_entries')
    with op.batch_alter_table('results', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_results_account_cache_key'))

    op.drop_table('results')
    op.drop_table('blobs')
    op.drop_table('api_keys')
    with op.batch_alter_table('model_calls', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_model_calls_request_hash_started_at'))
        batch_op.drop_index(batch_op.f('ix_model_calls_operation_started_at'))

    op.drop_table('model_calls')
    op.drop_table('accounts')
