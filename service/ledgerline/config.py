"""Settings from the environment, validated at start-up. Every variable has a working default.

`Settings.from_env()` reads `LEDGERLINE_*` (pydantic-settings) and raises `ConfigError`, one
line per bad variable naming it and the forms it accepts, so that a typo stops the service
before it starts rather than as a traceback (or a busy loop) later; a variable it does not know
at all (a misspelt name) is named with the closest one it does. `Settings(...)` builds
settings from arguments alone, as tests do.

The embedded default keeps its database and originals in one data directory, absolute and
resolved once, here: `LEDGERLINE_DATA_DIR`, else `$XDG_DATA_HOME/ledgerline` (by default
`~/.local/share/ledgerline`), so that every command finds the same database from whatever
directory it is run. Relative paths in the URLs are made absolute against the directory the
settings were read in.
"""
from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path

from pydantic import (ByteSize, Field, SecretStr, TypeAdapter, ValidationError, field_validator,
                      model_validator)
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

from .domain.cache import CacheMode
from .domain.providers import Provider
from .domain.webhooks import AddressPolicy, parse_networks

PREFIX = "LEDGERLINE_"
SECRET_FIELDS = ("openai_api_key", "openai_api_key_file", "ledgerline_openai_api_key",
                 "ledgerline_openai_api_key_file")  # a bad value is named, never echoed
POSTGRES_DRIVER = "postgresql+psycopg"
# Accepted and rewritten to the psycopg driver: what Heroku, RDS consoles and libpq print.
POSTGRES_ALIASES = ("postgres", "postgresql")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
LOG_FORMATS = ("auto", "json", "console")
MIN_LEASE_SECONDS = 1.0  # below this, renewals (every third of a lease) become a busy loop
MIN_EXTRACT_MEMORY_MB = 64  # the extraction child cannot even import its parser below this
MIN_IDEMPOTENCY_TTL_SECONDS = 60.0  # shorter would expire keys of clients still retrying
MAX_PORT = 65535
DATA_DIR_NAME = "ledgerline"  # under $XDG_DATA_HOME (~/.local/share)
SQLITE_FILE = "ledgerline.sqlite3"
OBJECTS_DIR = "objects"
# LEDGERLINE_ variables that something other than these settings reads: not typos.
OTHER_VARIABLES = {
    "LEDGERLINE_EMBEDDED_WORKER": "set by `ledgerline serve` for its gunicorn processes",
    "LEDGERLINE_API_KEY": "the key of `ledgerline upload`",
    **dict.fromkeys(["LEDGERLINE_IMAGE", "LEDGERLINE_BUCKET", "LEDGERLINE_API_PROCESSES",
                     "LEDGERLINE_API_PORT", "LEDGERLINE_WORKER_CONCURRENCY"],
                    "infra/compose.yaml"),
    **dict.fromkeys(["LEDGERLINE_CORPUS", "LEDGERLINE_PG_BINDIR", "LEDGERLINE_WEED",
                     "LEDGERLINE_FUZZ_SCALE", "LEDGERLINE_SCREENSHOT_DIR",
                     "LEDGERLINE_TEST_CLOCK_SKEW_SECONDS"], "the test suite"),
}


class ConfigError(ValueError):
    """Invalid settings; `str()` is one line per variable."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True, extra="ignore",
                                      env_ignore_empty=True, validate_by_name=True,
                                      validate_by_alias=True)

    # The embedded default's database and originals (absolute; see the module's docstring).
    data_dir: str = ""
    database_url: str = ""  # "": the SQLite file in data_dir
    storage_url: str = ""  # "": the objects directory in data_dir
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
    access_log: bool = True  # one log line per HTTP request (http/request_log.py)
    log_level: str = "info"
    log_format: str = "auto"  # json, console, or auto: JSON unless on a terminal (logs.py)
    # After this many seconds an Idempotency-Key names nothing any more: the same key starts
    # a new operation (24 h, the IETF draft's suggestion and Stripe's figure).
    idempotency_key_ttl: float = Field(86_400.0, validation_alias="LEDGERLINE_IDEMPOTENCY_KEY_TTL")
    # Networks webhooks may reach although they are not public (loopback, private, …), and
    # over plain http://: comma-separated CIDRs. Empty: public HTTPS addresses only.
    webhook_allow_networks: str = ""
    # One delivery attempt, redirects included, in seconds.
    webhook_timeout_seconds: float = 10.0
    # The HTTP edge: what one client may hold of an API process (http/gevent_worker.py,
    # http/limits.py). Headers, and the idle time before the next request on a kept-alive
    # connection, within this many seconds, else the connection is closed.
    header_timeout_seconds: float = 10.0
    body_timeout_seconds: float = 120.0  # a whole request body; then 408, nothing accepted
    max_requests_per_key: int = 64  # in flight at once per key and API process; 0 = no cap
    max_waits_per_key: int = 32  # `Prefer: wait` holds at once per key and process; 0 = no cap
    auth_failures_per_minute: int = 30  # failed keys per address, and per prefix; 0 = off
    trusted_proxy_hops: int = 0  # proxies whose X-Forwarded-* headers are believed
    metrics_token: str | None = None  # may read /metrics besides operator keys
    # The dashboard's session cookie is Secure on https (direct, or a trusted proxy's
    # X-Forwarded-Proto); 1 makes it Secure on every request, behind a proxy not trusted.
    dashboard_secure_cookie: bool = False
    metrics_snapshot_seconds: float = 15.0  # scrapes reuse the queue gauges this long
    # Plain gunicorn (gunicorn_conf.py); `ledgerline serve` passes its own --host, --port
    # and --workers.
    bind: str = "0.0.0.0:8000"
    api_workers: int = 2
    api_connections: int = 1000  # per gevent process

    # -- the model behind the extractor port (adapters/providers) -----------------------------
    # Every setting that changes an answer enters the configuration digest of the cache key
    # (providers.config_digest); secrets never do.
    provider: Provider = Provider.RULES
    provider_timeout_seconds: float = 60.0  # one network request to a hosted provider
    textract_price_per_page: Decimal = Decimal("0.01")
    openai_base_url: str | None = None  # None: the official client's default (api.openai.com)
    openai_api_key: SecretStr | None = None
    openai_api_key_file: str | None = None
    openai_model: str = "gpt-4o-mini"
    openai_price_input_per_mtok: Decimal = Decimal("0.15")
    openai_price_output_per_mtok: Decimal = Decimal("0.60")
    openai_max_output_tokens: int = 4096
    # Pages sent in one request of a long document (with the working state; see
    # providers/working_state.py).
    openai_pages_per_call: int = 1
    # Send each page's image with its text, for a vision model.
    openai_vision: bool = False
    # A candidate provider run after the serving one on a share of misses, never served.
    shadow_provider: Provider | None = None
    shadow_sample_rate: float = 0.1

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, **_other_sources):
        return (init_settings,)  # the environment is read by from_env only

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        unknown = [_unknown(name) for name in sorted(env) if name.upper().startswith(PREFIX)
                   and name.upper() not in known_variables()]
        if unknown:
            raise ConfigError("\n".join(unknown))
        source = _MappingSource(cls, env)
        try:
            return cls(**source())
        except ValidationError as exc:
            raise ConfigError("\n".join(_one_line(e) for e in exc.errors())) from None

    @model_validator(mode="before")
    @classmethod
    def _in_data_dir(cls, values):
        """The data directory resolved once, and the embedded default's URLs inside it."""
        values = dict(values)
        data = values.get("data_dir") or default_data_dir()
        values["data_dir"] = data = os.path.abspath(os.path.expanduser(str(data)))
        if not values.get("database_url"):
            values["database_url"] = f"sqlite:///{os.path.join(data, SQLITE_FILE)}"
        if not values.get("storage_url"):
            values["storage_url"] = f"file://{os.path.join(data, OBJECTS_DIR)}"
        return values

    # -- one validator per kind of value, each saying what it accepts -----------------------

    @field_validator("database_url", mode="before")
    @classmethod
    def _database_url(cls, value):
        text = str(value)
        if text.startswith("sqlite:///") and "?" not in text:  # the default: no SQLAlchemy
            path = text.removeprefix("sqlite:///")
            return f"sqlite:///{os.path.abspath(path) if path != ':memory:' else path}"
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            url = make_url(text)
        except ArgumentError:
            raise ValueError("not a database URL; use sqlite:///PATH or "
                             f"{POSTGRES_DRIVER}://USER:PASSWORD@HOST:PORT/DATABASE") from None
        if url.drivername in POSTGRES_ALIASES:
            url = url.set(drivername=POSTGRES_DRIVER)
        if url.drivername not in ("sqlite", POSTGRES_DRIVER):
            raise ValueError(f"unsupported scheme {url.drivername!r}; use sqlite:///PATH or "
                             f"{POSTGRES_DRIVER}://… (postgres:// and postgresql:// are "
                             "accepted too)")
        if url.drivername == "sqlite" and url.database not in (None, "", ":memory:"):
            url = url.set(database=os.path.abspath(url.database))  # the same file from anywhere
        return url.render_as_string(hide_password=False)

    @field_validator("storage_url", mode="before")
    @classmethod
    def _storage_url(cls, value):
        text = str(value)
        scheme, sep, rest = text.partition("://")
        if not sep or scheme not in ("file", "s3") or not rest.strip("/"):
            raise ValueError("use file://DIRECTORY or s3://BUCKET[/PREFIX]")
        if scheme == "file":
            return f"file://{os.path.abspath(os.path.expanduser(rest))}"
        return text

    @field_validator("price_per_call", "textract_price_per_page", "openai_price_input_per_mtok",
                     "openai_price_output_per_mtok", mode="before")
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

    @field_validator("extract_timeout_seconds", "db_timeout_seconds", "provider_timeout_seconds",
                     "webhook_timeout_seconds",
                     mode="before")
    @classmethod
    def _seconds(cls, value):
        return _number(value, float, None, "a number of seconds greater than 0 (e.g. 5)")

    @field_validator("idempotency_key_ttl", mode="before")
    @classmethod
    def _ttl(cls, value):
        seconds = _duration(value)
        if seconds is None or seconds < MIN_IDEMPOTENCY_TTL_SECONDS:
            raise ValueError("must be a duration of at least 1m: seconds (86400) or with a "
                             "unit (24h, 90m, 7d)")
        return seconds

    @field_validator("webhook_allow_networks", mode="before")
    @classmethod
    def _networks(cls, value):
        try:
            networks = parse_networks(str(value))
        except ValueError:
            raise ValueError("must be comma-separated networks in CIDR form "
                             "(127.0.0.1/32,10.0.0.0/8,::1/128)") from None
        return ",".join(str(n) for n in networks)

    @property
    def webhook_policy(self) -> AddressPolicy:
        return AddressPolicy(parse_networks(self.webhook_allow_networks))

    @field_validator("extract_memory_mb", mode="before")
    @classmethod
    def _memory(cls, value):
        return _number(value, int, MIN_EXTRACT_MEMORY_MB,
                       f"a whole number of MB, at least {MIN_EXTRACT_MEMORY_MB} (e.g. 1024)")

    @field_validator("extract_max_pages", "extract_max_decompressed_mb", "openai_max_output_tokens",
                     "openai_pages_per_call", mode="before")
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

    @field_validator("embedded_xml", "access_log", "openai_vision", "dashboard_secure_cookie",
                     mode="before")
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

    @field_validator("provider", "shadow_provider", mode="before")
    @classmethod
    def _provider(cls, value):
        if value is None or isinstance(value, Provider):
            return value
        try:
            return Provider(str(value).strip().lower())
        except ValueError:
            raise ValueError("must be one of: " + ", ".join(p.value for p in Provider)) from None

    @field_validator("shadow_sample_rate", mode="before")
    @classmethod
    def _share(cls, value):
        share = _number(value, float, 0.0, "a share between 0 and 1 (e.g. 0.1)")
        if share > 1:
            raise ValueError("must be a share between 0 and 1 (e.g. 0.1)")
        return share

    @field_validator("openai_base_url", mode="before")
    @classmethod
    def _base_url(cls, value):
        if value is None:
            return None
        scheme, sep, rest = str(value).partition("://")
        if scheme not in ("http", "https") or not sep or not rest.strip("/"):
            raise ValueError("use http(s)://HOST[:PORT]/PATH, e.g. https://api.openai.com/v1")
        return str(value).rstrip("/")

    @field_validator("openai_api_key_file", mode="before")
    @classmethod
    def _key_file(cls, value):
        if value is not None and not Path(value).is_file():
            raise ValueError("must name a readable file holding the key")
        return value

    @model_validator(mode="after")
    def _provider_needs(self):
        uses = {self.provider, self.shadow_provider}
        if Provider.OPENAI in uses and self.openai_api_key is None and not self.openai_api_key_file:
            raise ValueError("LEDGERLINE_PROVIDER=openai needs LEDGERLINE_OPENAI_API_KEY or "
                             "LEDGERLINE_OPENAI_API_KEY_FILE")
        if self.shadow_provider is not None and self.shadow_provider is self.provider:
            raise ValueError("LEDGERLINE_SHADOW_PROVIDER must differ from LEDGERLINE_PROVIDER")
        return self

    def openai_key(self) -> str:
        """The API key, read when a client is built (a file is read each time, so a rotated
        key is picked up by the next worker start); never logged, never in the ledger."""
        if self.openai_api_key is not None:
            return self.openai_api_key.get_secret_value()
        return Path(self.openai_api_key_file).read_text().strip()

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
        from .extraction.languages import CODES
        from .extraction.ocr.options import OcrOptions

        languages = OcrOptions.parse_languages(str(value))
        if not languages or any(lang not in CODES for lang in languages):
            raise ValueError(f"must be ISO 639-1 codes separated by commas, some of "
                             f"{','.join(CODES)}, or all")
        return ",".join(languages)

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _one_word_of(cls, value, info):
        word = str(value).strip().lower()
        words = LOG_LEVELS if info.field_name == "log_level" else LOG_FORMATS
        if word not in words:
            raise ValueError(f"must be one of: {', '.join(words)}")
        return word

    @field_validator("header_timeout_seconds", "body_timeout_seconds", mode="before")
    @classmethod
    def _read_deadline(cls, value):
        return _number(value, float, None, "a number of seconds greater than 0 (e.g. 10)")

    @field_validator("max_requests_per_key", "max_waits_per_key", "auth_failures_per_minute",
                     "trusted_proxy_hops", mode="before")
    @classmethod
    def _count(cls, value):
        return _number(value, int, 0, "a whole number, 0 or more")

    @field_validator("metrics_snapshot_seconds", mode="before")
    @classmethod
    def _snapshot(cls, value):
        return _number(value, float, 0, "a number of seconds, 0 (no reuse) or more")

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _token(cls, value):
        return (str(value).strip() or None) if value is not None else None

    @field_validator("bind", mode="before")
    @classmethod
    def _bind(cls, value):
        text = str(value).strip()
        host, sep, port = text.rpartition(":")
        if text.startswith("unix:") and text[5:]:
            return text
        if not (sep and host and port.isdigit() and int(port) <= MAX_PORT):
            raise ValueError("must be HOST:PORT (0.0.0.0:8000, [::]:8000) or unix:PATH")
        return text

    @field_validator("api_workers", "api_connections", mode="before")
    @classmethod
    def _at_least_one(cls, value):
        return _number(value, int, 1, "a whole number, at least 1")


_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(value) -> float | None:
    """Seconds of `86400`, `90s`, `90m`, `24h` or `7d`; None if it is none of these."""
    match = _DURATION.fullmatch(str(value).strip().lower())
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)] if match else None


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


def default_data_dir() -> str:
    """$XDG_DATA_HOME/ledgerline, else ~/.local/share/ledgerline (the XDG base directories)."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, DATA_DIR_NAME)


def known_variables() -> set[str]:
    return {env_name(field) for field in Settings.model_fields} | set(OTHER_VARIABLES)


def _unknown(name: str) -> str:
    """One line naming the variable and the known one closest to it (compared without the
    prefix they all share)."""
    suffixes = {known[len(PREFIX):]: known for known in sorted(known_variables())}
    closest = difflib.get_close_matches(name.upper()[len(PREFIX):], list(suffixes), n=1,
                                        cutoff=0.6)
    hint = (f"; did you mean {suffixes[closest[0]]}?" if closest
            else "; see docs/configuration.md")
    return f"{name}: unknown variable{hint}"


def env_name(field: str) -> str:
    info = Settings.model_fields[field]
    return info.validation_alias or PREFIX + field.upper()


def _one_line(error: dict) -> str:
    message = error["msg"].removeprefix("Value error, ")
    if not error["loc"]:  # a rule across variables: the message names them
        return message
    field = str(error["loc"][0])
    name = field if field.startswith(PREFIX) else env_name(field)
    shown = "…" if field.lower() in SECRET_FIELDS else repr(error["input"])  # never echo a secret
    return f"{name}={shown}: {message}"
