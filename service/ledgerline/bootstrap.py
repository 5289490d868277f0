"""One place that builds every dependency, with overridable defaults for tests.

The database's and the object store's modules are imported when `bootstrap` builds them:
`ledgerline extract` needs only `configured_extractor`, and starts without them.
"""
from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from . import tracing
from .adapters.extractor import PdfExtractor
from .adapters.sandbox import SandboxedExtractor, SandboxLimits
from .config import Settings
from .domain.providers import Provider
from .ports.clock import Clock, SystemClock
from .ports.database import Database
from .ports.extractor import Extractor
from .ports.storage import ObjectStore
from .service_layer.local_disk import LocalDisk

# What a sandbox child that was not warmed up may take beyond the time limit to load what its
# document needs (Tesseract's models for every language: a second or two on an idle machine,
# far more on a busy one); loading is no work an attacker controls.
COLD_LOAD_SECONDS = 60.0
# And the memory of what it loads, which a warm server's children inherit outside their limit
# (Tesseract's models, the second recogniser, the ranker and their libraries: a warm server is
# about 580 MB resident with three languages), so that a document has the same room either way.
COLD_LOAD_MB = 768

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from .adapters.job_endings import JobEndings
    from .adapters.page_images import PageCache


def utcnow() -> datetime:
    """This process's clock: only for records no lease or queue decision reads (an account's
    creation); the job engine stamps every time with the database's clock."""
    return datetime.now(timezone.utc)


@dataclass
class Services:
    """Everything a use case is handed: the settings, and a port for each thing it talks to."""
    settings: Settings
    db: Database
    store: ObjectStore
    extractor: Extractor
    # A candidate provider run after the serving one on a sample of misses, never served.
    shadow_extractor: Extractor | None = None
    # Every timer of the service layer waits through it (a test moves it instead of sleeping).
    clock: Clock = field(default_factory=SystemClock)
    # Set when this process accepts new work, so an embedded worker need not wait a poll.
    work_available: threading.Event = field(default_factory=threading.Event)
    # What `Prefer: wait` requests wait on: told when a job ends, in this process or another.
    job_endings: JobEndings = field(init=False)
    # Whether this process can write its spool; `/readyz` reports it.
    local_disk: LocalDisk = field(init=False)
    # The review screen's page images, rendered once (made when first asked for, under the
    # spool directory: service_layer/page_images.py).
    page_cache: PageCache | None = field(default=None, repr=False)
    # The SQL engine behind `db` when it is one, for the code that talks SQL without a port
    # yet (keys and sessions, reports and the queue's gauges, webhook endpoints, retention).
    _engine: Engine | None = field(init=False, repr=False)

    def __post_init__(self):
        from .adapters.db.database import SqlDatabase
        from .adapters.job_endings import JobEndings

        sql = self.db if isinstance(self.db, SqlDatabase) else None
        self._engine = sql.engine if sql else None
        self.job_endings = JobEndings(self._engine, notified=bool(sql and sql.dialect.notifies))
        self.local_disk = LocalDisk(self.settings.spool_dir)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            raise TypeError(f"{type(self.db).__name__} is no SQL database")
        return self._engine


def bootstrap(settings: Settings | None = None, *, engine: Engine | None = None,
              db: Database | None = None, store: ObjectStore | None = None,
              extractor: Extractor | None = None, shadow_extractor: Extractor | None = None,
              clock: Clock | None = None) -> Services:
    """The service's dependencies from `settings` (the environment's by default), each
    replaceable: a test hands in the in-memory database (adapters/memory) and a fake
    extractor."""
    from .adapters.db.database import SqlDatabase
    from .adapters.db.engine import make_engine
    from .adapters.storage import open_store

    settings = settings or Settings.from_env()
    tracing.configure()  # only where OTEL_* asks for it; before the engine is made
    store = store or open_store(settings.storage_url)
    if shadow_extractor is None and settings.shadow_provider is not None:
        shadow_extractor = configured_extractor(settings, store=store,
                                                provider=settings.shadow_provider)
    if db is None:
        db = SqlDatabase(engine or make_engine(settings.database_url,
                                               timeout=settings.db_timeout_seconds))
    return Services(
        settings=settings,
        db=db,
        store=store,
        extractor=extractor or configured_extractor(settings, store=store),
        shadow_extractor=shadow_extractor,
        clock=clock or SystemClock(),
    )


def configured_extractor(settings: Settings, *, store: ObjectStore | None = None,
                         use_embedded_xml: bool | None = None,
                         provider: Provider | None = None, warm_up: bool = True) -> Extractor:
    """The extractor the service runs (LEDGERLINE_PROVIDER, or `provider`): the rules,
    pdfminer, embedded XML and OCR inside the sandbox; or a hosted provider, whose local
    reading of the file runs in the sandbox and whose call runs in this process.
    `warm_up=False` (the rules): the sandbox's children load what their document needs."""
    embedded = settings.embedded_xml if use_embedded_xml is None else use_embedded_xml
    provider = provider or settings.provider
    limits = SandboxLimits.from_settings(settings)
    if not warm_up:  # a cold child may load Tesseract's models itself before it reads a scan
        limits = dataclasses.replace(limits, timeout_seconds=limits.timeout_seconds
                                     + COLD_LOAD_SECONDS,
                                     memory_mb=limits.memory_mb + COLD_LOAD_MB)
    if provider is Provider.RULES:
        from .extraction.ocr import OcrOptions

        return SandboxedExtractor(PdfExtractor(use_embedded_xml=embedded,
                                               ocr=OcrOptions.from_settings(settings)), limits,
                                  warm_up=warm_up)
    from .adapters.providers import HostedExtractor, open_provider

    return HostedExtractor(open_provider(provider, settings, store=store), limits,
                           use_embedded_xml=embedded)
