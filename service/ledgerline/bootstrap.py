"""One place that builds every dependency, with overridable defaults for tests."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlalchemy import Engine

from .adapters.db.engine import make_engine
from .adapters.extractor import Extractor, PdfExtractor
from .adapters.sandbox import SandboxedExtractor, SandboxLimits
from .adapters.storage import ObjectStore, open_store
from .config import Settings


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
    # Set when this process accepts new work, so an embedded worker need not wait a poll.
    work_available: threading.Event = field(default_factory=threading.Event)
    # Notified when this process's worker ends a job, so that a `Prefer: wait` request held in
    # the same process answers at once rather than at its next poll of the database.
    job_finished: threading.Condition = field(default_factory=threading.Condition)


def bootstrap(settings: Settings | None = None, *, engine: Engine | None = None,
              store: ObjectStore | None = None, extractor: Extractor | None = None) -> Services:
    settings = settings or Settings.from_env()
    return Services(
        settings=settings,
        engine=engine or make_engine(settings.database_url, timeout=settings.db_timeout_seconds),
        store=store or open_store(settings.storage_url),
        extractor=extractor or configured_extractor(settings),
    )


def configured_extractor(settings: Settings, *, use_embedded_xml: bool | None = None) -> Extractor:
    """The extractor the service runs: pdfminer, embedded XML and OCR, inside the sandbox."""
    from .extraction.ocr import OcrOptions

    embedded = settings.embedded_xml if use_embedded_xml is None else use_embedded_xml
    return SandboxedExtractor(PdfExtractor(use_embedded_xml=embedded,
                                           ocr=OcrOptions.from_settings(settings)),
                              SandboxLimits.from_settings(settings))
