"""Readiness: whether the database and the object store answer, in fixed words (the detail:
hosts, buckets, paths, goes to the log, never to the caller); whether this process can write its
spool; and whether the extraction sandbox and OCR are ready where this process runs a worker,
with the reason when not."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..ports.storage import StorageUnavailable

if TYPE_CHECKING:
    from ..bootstrap import Services

log = logging.getLogger(__name__)
# What a check may say without making the process unready: a dependency it does not use.
FINE = ("ok", "not_used")


def readiness(services: Services) -> dict:
    """`checks` (one word per dependency), and where a worker runs here: `ocr.languages` loaded
    and the `reasons` of what is unavailable."""
    checks: dict[str, str] = {}
    try:
        services.db.check()
        checks["database"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means "not ready"
        log.warning("readiness: database unavailable: %r", exc)
        checks["database"] = "unavailable"
    try:
        services.store.check()
        checks["storage"] = "ok"
    except StorageUnavailable as exc:
        log.warning("readiness: storage unavailable: %s", exc)
        checks["storage"] = "unavailable"
    answer: dict[str, object] = {"checks": checks}
    reasons: dict[str, str] = {}
    # This process's own disk (uploads stream there, its worker fetches there): after a
    # write failed, ready again only once a probe write succeeds (service_layer/local_disk.py).
    if services.local_disk.writable():
        checks["spool"] = "ok"
    else:
        trouble = services.local_disk.trouble
        log.warning("readiness: the spool cannot be written: %s", trouble)
        checks["spool"] = "unavailable"
        reasons["spool"] = f"a write to the spool failed ({trouble})"
    # The extraction sandbox and OCR, where this process runs a worker (the embedded
    # default): ready once its fork server has warmed up with Tesseract's languages.
    health = services.extractor.health
    if health is None:
        checks["sandbox"] = checks["ocr"] = "not_used"
    else:
        checks["sandbox"], checks["ocr"] = health.sandbox, health.ocr
        answer["ocr"] = {"languages": list(health.languages)}
        reasons.update(health.reasons)
    if reasons:
        answer["reasons"] = reasons
    return answer


def is_ready(answer: dict) -> bool:
    return all(v in FINE for v in answer["checks"].values())
