"""API keys: a public prefix, the last use, and the caller a rotated key speaks for.

- `prefix`: the first characters of the secret (`llk_` and 8 more), stored when a key is made,
  so that an API process can tell a presented key that cannot be any live key from one that
  may be, without looking the whole key up (http/auth.py: the failed-authentication limit
  never refuses a live key). Keys made before this migration have none: while any of them
  still works, every presented key is looked up.
- `last_used_at`: when the key was last seen, written at most once a minute.
- `principal_id`: the caller a key speaks for, the first key of its rotations (NULL: itself).
  Jobs record it as their caller, so that idempotency keys and a supplier's uploads carry over
  a rotation.

On a live PostgreSQL: nullable columns (no rewrite); the index is built CONCURRENTLY.

Revision ID: 0010_key_identity
Revises: 0009_rechecks_and_duplicates
"""
import contextlib

import sqlalchemy as sa
from alembic import op

revision = '0010_key_identity'
down_revision = '0009_rechecks_and_duplicates'
branch_labels = None
depends_on = None

INDEX = "ix_api_keys_prefix"


def upgrade() -> None:
    op.add_column('api_keys', sa.Column('prefix', sa.String(16), nullable=True))
    op.add_column('api_keys', sa.Column('last_used_at', sa.DateTime(), nullable=True))
    op.add_column('api_keys', sa.Column('principal_id', sa.String(32), nullable=True))
    postgres = op.get_bind().dialect.name == "postgresql"
    with op.get_context().autocommit_block() if postgres else contextlib.nullcontext():
        op.create_index(INDEX, "api_keys", ["prefix"], if_not_exists=True,
                        postgresql_concurrently=postgres)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="api_keys", if_exists=True)
    op.drop_column('api_keys', 'principal_id')
    op.drop_column('api_keys', 'last_used_at')
    op.drop_column('api_keys', 'prefix')
