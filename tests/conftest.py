"""Fixtures: every backend is real. The embedded default (SQLite + a local directory) is
always available; the production backend (PostgreSQL + SeaweedFS S3) is started once per
session on loopback. Either way a test's database is a copy of one migrated once per process
(PostgreSQL: cloned from a template database; SQLite: a copy of a migrated file)."""
from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from ledgerline.adapters.db.accounts import caller_for_key, create_account, create_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.migrate import upgrade
from ledgerline.bootstrap import bootstrap, utcnow
from ledgerline.config import Settings
from ledgerline.domain.identity import Role

REPO = Path(__file__).resolve().parents[1]
# The invoice corpus sits beside the checkout (../shared/corpus); LEDGERLINE_CORPUS moves it.
CORPUS = Path(os.environ.get("LEDGERLINE_CORPUS") or REPO.parent / "shared" / "corpus")
BUCKET = "ledgerline-test"
TEMPLATE_DB = "ledgerline_template"

# Started first: under pytest-xdist a test of half a minute that starts last keeps one process
# busy while the others sit idle; started first, the short tests fill in around it. (`make test`
# runs xdist's worksteal scheduler: its load scheduler would give these, queued together at the
# front, all to one process in its first batch.)
LONG_RUNNING = {"e2e", "production", "hostile", "fuzz", "infra", "property"}


def pytest_collection_modifyitems(config, items):
    def long_first(item) -> int:
        tests = REPO / "tests"
        part = item.path.relative_to(tests).parts[0] if item.path.is_relative_to(tests) else ""
        return 0 if part in LONG_RUNNING or item.get_closest_marker("slow") else 1

    items.sort(key=long_first)  # stable: each group keeps its order


@contextlib.contextmanager
def migrated_postgres(template: str = TEMPLATE_DB):
    """A PostgreSQL server with a migrated template database to clone per test."""
    from tests.servers import postgres_server

    with postgres_server() as pg:
        upgrade(pg.create_database(template))
        yield pg


@contextlib.contextmanager
def s3_with_bucket(bucket: str = BUCKET):
    from tests.servers import seaweed_s3_server

    with seaweed_s3_server() as s3:
        s3.create_bucket(bucket)
        yield s3


@pytest.fixture(scope="session")
def pg_server():
    with migrated_postgres() as pg:
        yield pg


@pytest.fixture(scope="session")
def s3_server():
    with s3_with_bucket() as s3:
        yield s3


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Callable[[Path], str]:
    """`migrated_sqlite(path)`: a SQLite database at `path` at the head revision; its URL.

    The migrations run once per process; each test gets a copy of that file (a few
    milliseconds instead of half a second), as PostgreSQL's tests get a clone of TEMPLATE_DB.
    Tests of the migrations themselves run `upgrade` on their own databases.
    """
    template = tmp_path_factory.mktemp("sqlite-template") / "ledgerline.sqlite3"
    upgrade(f"sqlite:///{template}")
    # The migration's engine is disposed: its last connection folded the write-ahead log into
    # the file, so the file alone is the whole database.
    assert not template.with_name(f"{template.name}-wal").exists()

    def copy(path: Path) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, path)
        return f"sqlite:///{path}"

    return copy


@dataclasses.dataclass
class Backend:
    name: str
    database_url: str
    storage_url: str
    env: dict

    def settings(self, **overrides) -> Settings:
        return Settings(database_url=self.database_url, storage_url=self.storage_url,
                        **overrides)


def s3_env(s3) -> dict:
    return {"AWS_ENDPOINT_URL_S3": s3.endpoint_url, "AWS_ACCESS_KEY_ID": "ledgerline",
            "AWS_SECRET_ACCESS_KEY": "ledgerline", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(params=["embedded", "production"])
def backend(request, tmp_path, monkeypatch):
    if request.param == "embedded":
        url = request.getfixturevalue("migrated_sqlite")(tmp_path / "ledgerline.sqlite3")
        yield Backend("embedded", url, f"file://{tmp_path}/objects", {})
        return
    pg = request.getfixturevalue("pg_server")
    s3 = request.getfixturevalue("s3_server")
    name = f"t_{uuid.uuid4().hex[:12]}"
    url = pg.create_database(name, template=TEMPLATE_DB)
    env = s3_env(s3)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    yield Backend("production", url, f"s3://{BUCKET}/{name}", env)
    pg.drop_database(name)


@pytest.fixture
def make_services(backend):
    """Build services on the test's backend; engines are disposed at the end."""
    built = []

    def make(**kwargs):
        settings = kwargs.pop("settings", None) or backend.settings(
            **{k: kwargs.pop(k) for k in list(kwargs) if k in Settings.model_fields})
        services = bootstrap(settings, **kwargs)
        built.append(services)
        return services

    yield make
    for services in built:
        services.engine.dispose()


@dataclasses.dataclass
class Tenant:
    account: str
    keys: dict  # role name -> secret

    def caller(self, services, role: str):
        with transaction(services.engine, write=False) as conn:
            return caller_for_key(conn, self.keys[role])


def make_tenant(services, account: str) -> Tenant:
    keys = {}
    with transaction(services.engine, write=True) as conn:
        create_account(conn, account, utcnow())
        for role in ("customer", "supplier", "dashboard"):
            keys[role] = create_key(conn, Role(role), account, f"{role} of {account}", utcnow())[1]
        keys["supplier2"] = create_key(conn, Role.SUPPLIER, account, "second supplier", utcnow())[1]
    return Tenant(account, keys)


def operator_key(services) -> str:
    with transaction(services.engine, write=True) as conn:
        return create_key(conn, Role.OPERATOR, None, "ops", utcnow())[1]


def corpus_pdfs(limit: int | None = None) -> list[Path]:
    """Text-layer corpus PDFs, smallest first; skips the test where the corpus is absent."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.exists():
        pytest.skip(f"invoice corpus not found at {CORPUS}")
    import csv

    with manifest.open() as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["has_text_layer"] == "yes"]
    paths = sorted((CORPUS / r["pdf"] for r in rows), key=lambda p: p.stat().st_size)
    return paths[:limit] if limit else paths
