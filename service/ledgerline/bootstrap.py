"""One place that builds every dependency, with overridable defaults for tests."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlalchemy import Engine

from .adapters.db.engine import make_engine
from .adapters.extractor import Extractor, PdfExtractor
from .adapters.job_endings import JobEndings
from .adapters.sandbox import SandboxedExtractor, SandboxLimits
from .adapters.storage import ObjectStore, open_store
from .config import Settings
from .domain.providers import Provider


def utcnow() -> datetime:
    """This process's clock: only for records no lease or queue decision reads (an account's
    creation); the job engine stamps every time with the database's clock."""
    return datetime.now(timezone.utc)


@dataclass
class Services:
    settings: Settings
    engine: Engine
    store: ObjectStore
    extractor: Extractor
    # A candidate provider run after the serving one on a sample of misses, never served.
    shadow_extractor: Extractor | None = None
    # Set when this process accepts new work, so an embedded worker need not wait a poll.
    work_available: threading.Event = field(default_factory=threading.Event)
    # What `Prefer: wait` requests wait on: told when a job ends, in this process or another.
    job_endings: JobEndings = field(init=False)

    def __post_init__(self):
        self.job_endings = JobEndings(self.engine)


def bootstrap(settings: Settings | None = None, *, engine: Engine | None = None,
              store: ObjectStore | None = None, extractor: Extractor | None = None,
              shadow_extractor: Extractor | None = None) -> Services:
    settings = settings or Settings.from_env()
    store = store or open_store(settings.storage_url)
    if shadow_extractor is None and settings.shadow_provider is not None:
        shadow_extractor = configured_extractor(settings, store=store,
                                                provider=settings.shadow_provider)
    return Services(
        settings=settings,
        engine=engine or make_engine(settings.database_url, timeout=settings.db_timeout_seconds),
        store=store,
        extractor=extractor or configured_extractor(settings, store=store),
        shadow_extractor=shadow_extractor,
    )


def configured_extractor(settings: Settings, *, store: ObjectStore | None = None,
                         use_embedded_xml: bool | None = None,
                         provider: Provider | None = None) -> Extractor:
    """The extractor the service runs (LEDGERLINE_PROVIDER, or `provider`): the rules,
    pdfminer, embedded XML and OCR inside the sandbox; or a hosted provider, whose local
    reading of the file runs in the sandbox and whose call runs in this process."""
    embedded = settings.embedded_xml if use_embedded_xml is None else use_embedded_xml
    provider = provider or settings.provider
    limits = SandboxLimits.from_settings(settings)
    if provider is Provider.RULES:
        from .extraction.ocr import OcrOptions

        return SandboxedExtractor(PdfExtractor(use_embedded_xml=embedded,
                                               ocr=OcrOptions.from_settings(settings)), limits)
    from .adapters.providers import HostedExtractor, open_provider

    return HostedExtractor(open_provider(provider, settings, store=store), limits,
                           use_embedded_xml=embedded)
