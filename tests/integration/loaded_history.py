"""A fresh PostgreSQL database (from the migrated template) with a history of finished jobs
and invoices in it, loaded by the history benchmark's own loader (bench/history_load.py)."""
from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from sqlalchemy import Engine, create_engine
from sqlalchemy.pool import NullPool

from bench.history_load import load


@contextlib.contextmanager
def loaded_history(pg_server, finished: int, versions: str, accounts: int) -> Iterator[Engine]:
    name = f"h_{uuid.uuid4().hex[:12]}"
    url = pg_server.create_database(name, template="ledgerline_template")
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            load(conn, finished, versions, accounts=accounts)
        yield engine
    finally:
        engine.dispose()
        pg_server.drop_database(name)
