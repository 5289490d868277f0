"""Where a job came from: the request id and the W3C trace context of the upload that created
it, so that the worker's log lines for the job carry the upload's request id and its trace
continues the upload's (ledgerline/logs.py, ledgerline/tracing.py).

Two nullable columns: adding them rewrites nothing on PostgreSQL, and older workers ignore
them.

Revision ID: 0008_job_origin
Revises: 0007_webhook_delivery
"""
import sqlalchemy as sa
from alembic import op

revision = '0008_job_origin'
down_revision = '0007_webhook_delivery'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("request_id", sa.String(128), nullable=True))
    op.add_column("jobs", sa.Column("trace_context", sa.String(128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("trace_context")
        batch.drop_column("request_id")
