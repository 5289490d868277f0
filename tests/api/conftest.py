"""The HTTP app over a real SQLite database and object directory, with keys of every role."""
from __future__ import annotations

import dataclasses

import pytest

from ledgerline.bootstrap import bootstrap
from ledgerline.config import Settings
from ledgerline.http.app import create_app
from tests.conftest import make_tenant, operator_key
from tests.fakes import ControlledExtractor


@dataclasses.dataclass
class ApiEnv:
    services: object
    acme: object      # conftest.Tenant: customer, supplier, supplier2, dashboard keys
    globex: object
    operator: str

    def app(self, **settings):
        """A Flask app over the same database and store, with other settings."""
        services = bootstrap(self.services.settings.model_copy(update=settings),
                             engine=self.services.engine, store=self.services.store,
                             extractor=self.services.extractor)
        return create_app(services)


@pytest.fixture(scope="module")
def api_env(tmp_path_factory, migrated_sqlite):
    root = tmp_path_factory.mktemp("api")
    url = migrated_sqlite(root / "ledgerline.sqlite3")
    settings = Settings(database_url=url, storage_url=f"file://{root}/objects",
                        rate_limit_per_minute=0, max_upload_bytes=64 * 1024)
    services = bootstrap(settings, extractor=ControlledExtractor())
    yield ApiEnv(services, make_tenant(services, "acme"), make_tenant(services, "globex"),
                 operator_key(services))
    services.engine.dispose()
