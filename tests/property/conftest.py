"""One SQLite database and object directory per test module: examples share them and keep
apart by using accounts no other example has used (see support.fresh_account)."""
from __future__ import annotations

import pytest

from ledgerline.bootstrap import bootstrap
from ledgerline.config import Settings
from tests.fakes import ControlledExtractor
from tests.property.support import App


@pytest.fixture(scope="module")
def sqlite_app(tmp_path_factory, migrated_sqlite):
    root = tmp_path_factory.mktemp("property")
    url = migrated_sqlite(root / "ledgerline.sqlite3")
    extractor = ControlledExtractor()
    services = bootstrap(Settings(database_url=url, storage_url=f"file://{root}/objects",
                                  rate_limit_per_minute=0), extractor=extractor)
    yield App(services, extractor)
    services.engine.dispose()
