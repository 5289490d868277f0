"""The same file's copies of an invoice, read oldest first from an index.

An invoice lists at most domain.duplicates.SAME_FILE_SHOWN copies of its own file, the oldest
first. With (account, content_hash, created_at, id) the lookup reads those few index
entries in order, where (account, content_hash) fetched and sorted every copy of the file; the
new index serves every lookup the old one did, which is dropped.

On a live PostgreSQL both are built and dropped CONCURRENTLY: no table lock.

Revision ID: 0006_same_file_order
Revises: 0005_lifecycle
"""
import contextlib

from alembic import op

revision = '0006_same_file_order'
down_revision = '0005_lifecycle'
branch_labels = None
depends_on = None

NEW = ("ix_invoices_account_content_hash_created_at_id",
       ["account", "content_hash", "created_at", "id"])
OLD = ("ix_invoices_account_content_hash", ["account", "content_hash"])


def _swap(create: tuple, drop: tuple) -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    with op.get_context().autocommit_block() if postgres else contextlib.nullcontext():
        op.create_index(create[0], "invoices", create[1], if_not_exists=True,
                        postgresql_concurrently=postgres)
        op.drop_index(drop[0], table_name="invoices", if_exists=True,
                      postgresql_concurrently=postgres)


def upgrade() -> None:
    _swap(NEW, OLD)


def downgrade() -> None:
    _swap(OLD, NEW)
