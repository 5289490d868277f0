"""Alembic environment: runs against the engine the CLI passes in, or the configured URL."""
from __future__ import annotations

from alembic import context

from ledgerline.adapters.db.engine import make_engine
from ledgerline.adapters.db.tables import built_on, metadata

config = context.config


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    # No statement timeout: building an index on a large table takes as long as it takes.
    engine = make_engine(config.get_main_option("sqlalchemy.url"), timeout=None)
    with engine.connect() as conn:
        _run(conn)
        conn.commit()
    engine.dispose()


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=connection.dialect.name == "sqlite",
                      include_object=built_on(connection.dialect.name))
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=metadata,
                      literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations()
