"""Indexes for the duplicate-work report.

model_calls: the day's calls in (day, operation, request hash, start) order, carrying every
column the report reads, so that PostgreSQL answers it from the index alone and without a
sort: the report's window pass follows the index. jobs: uploads of a day by cache outcome,
also index-only.

Revision ID: 0002
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_model_calls_day_hash', 'model_calls',
                    [sa.text('date(started_at)'), 'operation', 'request_hash', 'started_at',
                     'id', 'finished_at', 'cost'])
    op.create_index('ix_jobs_created_at_outcome_would_be', 'jobs',
                    ['created_at', 'outcome', 'would_be'])


def downgrade() -> None:
    op.drop_index('ix_jobs_created_at_outcome_would_be', table_name='jobs')
    op.drop_index('ix_model_calls_day_hash', table_name='model_calls')
