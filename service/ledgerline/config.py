"""Settings from the environment, validated at start-up. Every variable has a working default.

`Settings.from_env()` reads `LEDGERLINE_*` (pydantic-settings) and raises `ConfigError`, one
line per bad variable naming it and the forms it accepts, so that a typo stops the service
before it starts rather than as a traceback (or a busy loop) later. `Settings(...)` builds
settings from arguments alone, as tests do.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path

from pydantic import ByteSize, Field, TypeAdapter, ValidationError, field_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from .domain.cache import CacheMode

PREFIX = "LEDGERLINE_"
POSTGRES_DRIVER = "postgresql+psycopg"
# Accepted and rewritten to the psycopg driver: what Heroku, RDS consoles and libpq print.
POSTGRES_ALIASES = ("postgres", "postgresql")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
MIN_LEASE_SECONDS = 1.0  # below this, renewals (every third of a lease) become a busy loop
MIN_EXTRACT_MEMORY_MB = 64  # the extraction child cannot even import its parser below this


class ConfigError(ValueError):
    """Invalid settings; `str()` is one line per variable."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True, extra="ignore",
                                      env_ignore_empty=True, validate_by_name=True,
                                      validate_by_alias=True)

    database_url: str = "sqlite:///var/ledgerline.sqlite3"
    storage_url: str = "file://./var/objects"
    price_per_call: Decimal = Field(Decimal("0.004"),
                                    validation_alias="LEDGERLINE_MODEL_PRICE_PER_CALL")
    cache_mode: CacheMode = CacheMode.ON
    max_upload_bytes: int = 26_214_400
    lease_seconds: float = 30.0
    spool_dir: str | None = None  # where uploads are streamed before storing; None = system temp
    extract_timeout_seconds: float = 60.0  # wall and CPU time for one document's extraction
    extract_memory_mb: int = 1024  # address-space limit of the extraction child
    extract_max_pages: int = 200  # the extractor's own page limit (extraction.MAX_PAGES)
    extract_max_decompressed_mb: int = 200  # all of a document's streams, inflated
    # Read embedded e-invoice XML; a different setting is a different extractor configuration
    # (and cache key): workers only take jobs keyed with their own.
    embedded_xml: bool = True
    ocr_dpi: int = 300  # the highest resolution scans are read at (pages rendered, images scaled)
    ocr_max_pixels: int = 100_000_000  # of one image page, checked before decoding
    ocr_languages: str = "all"  # ISO 639-1 codes (en,de,…), the first primary, or "all"
    # Requests a minute per API key, per API process (http/security.py says why); 0 = off.
    rate_limit_per_minute: int = 600
    # PostgreSQL: connect timeout and statement timeout; past it plus a margin a silent
    # server's connection is dropped (adapters/db/engine.py).
    db_timeout_seconds: float = 5.0
    access_log: bool | None = None  # None: on under `ledgerline serve`
    log_level: str = "info"

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, **_other_sources):
        return (init_settings,)  # the environment is read by from_env only

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        source = _MappingSource(cls, os.environ if env is None else env)
        try:
            return cls(**source())
        except ValidationError as exc:
            raise ConfigError("\n".join(_one_line(e) for e in exc.errors())) from None

    # -- one validator per kind of value, each saying what it accepts -----------------------

    @field_validator("database_url", mode="before")
    @classmethod
    def _database_url(cls, value):
        try:
            url = make_url(str(value))
        except ArgumentError:
            raise ValueError("not a database URL; use sqlite:///PATH or "
                             f"{POSTGRES_DRIVER}://USER:PASSWORD@HOST:PORT/DATABASE") from None
        if url.drivername in POSTGRES_ALIASES:
            url = url.set(drivername=POSTGRES_DRIVER)
        if url.drivername not in ("sqlite", POSTGRES_DRIVER):
            raise ValueError(f"unsupported scheme {url.drivername!r}; use sqlite:///PATH or "
                             f"{POSTGRES_DRIVER}://… (postgres:// and postgresql:// are "
                             "accepted too)")
        return url.render_as_string(hide_password=False)

    @field_validator("storage_url", mode="before")
    @classmethod
    def _storage_url(cls, value):
        text = str(value)
        scheme, sep, rest = text.partition("://")
        if not sep or scheme not in ("file", "s3") or not rest.strip("/"):
            raise ValueError("use file://DIRECTORY or s3://BUCKET[/PREFIX]")
        return text

    @field_validator("price_per_call", mode="before")
    @classmethod
    def _price(cls, value):
        try:
            price = Decimal(str(value).strip())
        except InvalidOperation:
            price = None
        if price is None or not price.is_finite() or price < 0:
            raise ValueError("must be a decimal number of USD, 0 or more (e.g. 0.004)")
        return price

    @field_validator("cache_mode", mode="before")
    @classmethod
    def _cache_mode(cls, value):
        try:
            return CacheMode(str(getattr(value, "value", value)).strip().lower())
        except ValueError:
            raise ValueError("must be one of: on, off, shadow") from None

    @field_validator("max_upload_bytes", mode="before")
    @classmethod
    def _size(cls, value):
        try:
            size = int(TypeAdapter(ByteSize).validate_python(value))
        except ValidationError:
            size = 0
        if size < 1:
            raise ValueError("must be a size: bytes (26214400) or with a unit "
                             "(25MiB = 26,214,400 bytes, 25MB = 25,000,000)")
        return size

    @field_validator("lease_seconds", mode="before")
    @classmethod
    def _lease(cls, value):
        return _number(value, float, MIN_LEASE_SECONDS, "a number of seconds, at least "
                       f"{MIN_LEASE_SECONDS:g} (e.g. 30)")

    @field_validator("extract_timeout_seconds", "db_timeout_seconds", mode="before")
    @classmethod
    def _seconds(cls, value):
        return _number(value, float, None, "a number of seconds greater than 0 (e.g. 5)")

    @field_validator("extract_memory_mb", mode="before")
    @classmethod
    def _memory(cls, value):
        return _number(value, int, MIN_EXTRACT_MEMORY_MB,
                       f"a whole number of MB, at least {MIN_EXTRACT_MEMORY_MB} (e.g. 1024)")

    @field_validator("extract_max_pages", "extract_max_decompressed_mb", mode="before")
    @classmethod
    def _positive(cls, value):
        return _number(value, int, 1, "a whole number, at least 1")

    @field_validator("rate_limit_per_minute", mode="before")
    @classmethod
    def _rate(cls, value):
        return _number(value, int, 0, "a whole number of requests, 0 (off) or more")

    @field_validator("spool_dir", mode="before")
    @classmethod
    def _spool_dir(cls, value):
        if value is not None and not Path(value).is_dir():
            raise ValueError("must be an existing directory")
        return value

    @field_validator("embedded_xml", "access_log", mode="before")
    @classmethod
    def _switch(cls, value):
        if value is None or isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word in ("1", "on", "true", "yes"):
            return True
        if word in ("0", "off", "false", "no"):
            return False
        raise ValueError("must be 1 or 0 (on/off, true/false, yes/no)")

    @field_validator("ocr_dpi", mode="before")
    @classmethod
    def _ocr_dpi(cls, value):
        from .extraction.ocr.options import MAX_DPI, MIN_DPI

        dpi = _number(value, int, MIN_DPI, f"a whole number of dpi from {MIN_DPI} to {MAX_DPI}")
        if dpi > MAX_DPI:
            raise ValueError(f"must be a whole number of dpi from {MIN_DPI} to {MAX_DPI}")
        return dpi

    @field_validator("ocr_max_pixels", mode="before")
    @classmethod
    def _ocr_pixels(cls, value):
        from .extraction.ocr.options import MIN_MAX_PIXELS

        return _number(value, int, MIN_MAX_PIXELS,
                       f"a whole number of pixels, at least {MIN_MAX_PIXELS} (e.g. 100000000)")

    @field_validator("ocr_languages", mode="before")
    @classmethod
    def _ocr_languages(cls, value):
        from .extraction.ocr.options import TESSERACT_NAMES, OcrOptions

        languages = OcrOptions.parse_languages(str(value))
        if not languages or any(lang not in TESSERACT_NAMES for lang in languages):
            raise ValueError(f"must be ISO 639-1 codes separated by commas, some of "
                             f"{','.join(TESSERACT_NAMES)}, or all")
        return ",".join(languages)

    @field_validator("log_level", mode="before")
    @classmethod
    def _log_level(cls, value):
        level = str(value).strip().lower()
        if level not in LOG_LEVELS:
            raise ValueError(f"must be one of: {', '.join(LOG_LEVELS)}")
        return level


def _number(value, kind, minimum, accepted: str):
    try:
        number = kind(str(value).strip()) if not isinstance(value, (int, float)) else kind(value)
    except ValueError:
        number = None
    if (number is None or number != number or number in (float("inf"), float("-inf"))
            or (minimum is None and number <= 0) or (minimum is not None and number < minimum)):
        raise ValueError(f"must be {accepted}")
    return number


class _MappingSource(EnvSettingsSource):
    """pydantic-settings' environment source, reading a given mapping (os.environ or a
    test's dict) instead of always os.environ."""

    def __init__(self, settings_cls, env: Mapping[str, str]):
        self._env = env
        super().__init__(settings_cls)

    def _load_env_vars(self):
        return parse_env_vars(self._env, self.case_sensitive, self.env_ignore_empty,
                              self.env_parse_none_str)


def env_name(field: str) -> str:
    info = Settings.model_fields[field]
    return info.validation_alias or PREFIX + field.upper()


def _one_line(error: dict) -> str:
    field = str(error["loc"][0]) if error["loc"] else "?"
    name = field if field.startswith(PREFIX) else env_name(field)
    message = error["msg"].removeprefix("Value error, ")
    return f"{name}={error['input']!r}: {message}"
