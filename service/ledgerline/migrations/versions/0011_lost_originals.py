"""An original whose stored object a worker found missing or damaged: `blobs.lost_at`.

The row stays (the invoices that name the file reference it), but it no longer vouches for the
object, so that the next upload of the file writes it again instead of trusting the row; that
upload clears it. A nullable column: adding it rewrites nothing on PostgreSQL, and older
processes ignore it.

Revision ID: 0011_lost_originals
Revises: 0010_key_identity
"""
import sqlalchemy as sa
from alembic import op

revision = '0011_lost_originals'
down_revision = '0010_key_identity'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("blobs", sa.Column("lost_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("blobs") as batch:
        batch.drop_column("lost_at")
