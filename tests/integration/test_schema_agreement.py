"""The tables the code describes are the tables the migrations build, on both dialects: a
model changed without its migration (or the reverse) fails here, not in production."""
from __future__ import annotations

import uuid
import warnings

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from ledgerline.adapters.db.tables import built_on, metadata
from tests.conftest import TEMPLATE_DB


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated_url(request, tmp_path):
    if request.param == "sqlite":
        yield request.getfixturevalue("migrated_sqlite")(tmp_path / "ledgerline.sqlite3")
        return
    pg = request.getfixturevalue("pg_server")
    name = f"s_{uuid.uuid4().hex[:12]}"
    yield pg.create_database(name, template=TEMPLATE_DB)
    pg.drop_database(name)


def test_the_migrated_schema_is_the_tables_the_code_describes(migrated_url):
    engine = create_engine(migrated_url)
    try:
        with engine.connect() as conn, warnings.catch_warnings():
            # SQLite's reflection cannot read expression indexes: alembic says so, and skips them
            warnings.simplefilter("ignore")
            context = MigrationContext.configure(
                conn, opts={"include_object": built_on(conn.dialect.name)})
            differences = compare_metadata(context, metadata)
    finally:
        engine.dispose()
    assert differences == []
