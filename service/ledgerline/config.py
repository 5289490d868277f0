"""Settings from the environment. Every variable has a working default."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from decimal import Decimal

from .domain.cache import CacheMode


@dataclass(frozen=True)
class Settings:
    database_url: str = "sqlite:///var/ledgerline.sqlite3"
    storage_url: str = "file://./var/objects"
    price_per_call: Decimal = Decimal("0.004")
    cache_mode: CacheMode = CacheMode.ON
    max_upload_bytes: int = 26_214_400
    lease_seconds: float = 30.0
    spool_dir: str | None = None  # where uploads are streamed before storing; None = system temp
    extract_timeout_seconds: float = 60.0  # wall and CPU time for one document's extraction
    extract_memory_mb: int = 1024  # address-space limit of the extraction child
    extract_max_pages: int = 200  # the extractor's own page limit (extraction.MAX_PAGES)
    extract_max_decompressed_mb: int = 200  # all of a document's streams, inflated
    ocr_dpi: int = 300  # scans are read at this resolution (pages rendered, images scaled)
    ocr_max_pixels: int = 100_000_000  # of one image page, checked before decoding
    ocr_languages: str = "all"  # ISO 639-1 codes (en,de,…) or "all" Ledgerline reads
    # Requests a minute per API key, per API process (http/security.py says why); 0 = off.
    rate_limit_per_minute: int = 600
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: os._Environ | dict | None = None) -> "Settings":
        env = os.environ if env is None else env
        d = cls()
        try:
            mode = CacheMode(env.get("LEDGERLINE_CACHE_MODE", d.cache_mode.value).strip().lower())
        except ValueError:
            raise ValueError("LEDGERLINE_CACHE_MODE must be one of: on, off, shadow") from None
        return cls(
            database_url=env.get("LEDGERLINE_DATABASE_URL") or d.database_url,
            storage_url=env.get("LEDGERLINE_STORAGE_URL") or d.storage_url,
            price_per_call=Decimal(env.get("LEDGERLINE_MODEL_PRICE_PER_CALL") or d.price_per_call),
            cache_mode=mode,
            max_upload_bytes=int(env.get("LEDGERLINE_MAX_UPLOAD_BYTES") or d.max_upload_bytes),
            lease_seconds=float(env.get("LEDGERLINE_LEASE_SECONDS") or d.lease_seconds),
            spool_dir=env.get("LEDGERLINE_SPOOL_DIR") or None,
            extract_timeout_seconds=float(env.get("LEDGERLINE_EXTRACT_TIMEOUT_SECONDS")
                                          or d.extract_timeout_seconds),
            extract_memory_mb=int(env.get("LEDGERLINE_EXTRACT_MEMORY_MB") or d.extract_memory_mb),
            extract_max_pages=int(env.get("LEDGERLINE_EXTRACT_MAX_PAGES") or d.extract_max_pages),
            extract_max_decompressed_mb=int(env.get("LEDGERLINE_EXTRACT_MAX_DECOMPRESSED_MB")
                                            or d.extract_max_decompressed_mb),
            rate_limit_per_minute=int(env.get("LEDGERLINE_RATE_LIMIT_PER_MINUTE")
                                      or d.rate_limit_per_minute),
            ocr_dpi=int(env.get("LEDGERLINE_OCR_DPI") or d.ocr_dpi),
            ocr_max_pixels=int(env.get("LEDGERLINE_OCR_MAX_PIXELS") or d.ocr_max_pixels),
            ocr_languages=env.get("LEDGERLINE_OCR_LANGUAGES") or d.ocr_languages,
        )
