"""Run the Alembic migrations shipped inside the package, and tell where a database stands."""
from __future__ import annotations

from dataclasses import dataclass

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", "ledgerline:migrations")
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@dataclass(frozen=True)
class SchemaState:
    current: str | None
    head: str

    @property
    def missing(self) -> bool:
        return self.current is None

    @property
    def usable(self) -> bool:
        """At this release's revision, or at a later one (a newer release migrated it: later
        migrations only add, so this code still runs during a rolling deploy)."""
        if self.current is None:
            return False
        script = ScriptDirectory.from_config(alembic_config("sqlite://"))
        return self.current == self.head or script.get_revision(self.current) is None


def schema_state(engine: Engine) -> SchemaState:
    return SchemaState(current_revision(engine), head_revision())


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)
