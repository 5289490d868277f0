"""Settings are validated at start-up: each bad variable is one line naming it and the forms
it accepts; human sizes and postgres:// URLs are accepted."""
from __future__ import annotations

import re

import pytest

from ledgerline.config import ConfigError, Settings, env_name, known_variables
from tests.conftest import REPO

# Set by the suite itself for the processes it starts, never by a person.
SUITE_INTERNAL = {"LEDGERLINE_TEST_CLOCK_SKEW_SECONDS"}


def test_defaults_work_without_any_variable():
    settings = Settings.from_env({})
    assert settings.database_url.startswith("sqlite:///") and settings.lease_seconds == 30


@pytest.mark.parametrize("given, size", [("26214400", 26214400), ("25MB", 25_000_000),
                                         ("25MiB", 26_214_400), ("25 mib", 26_214_400),
                                         ("1kb", 1000)])
def test_upload_sizes_may_be_written_with_units(given, size):
    assert Settings.from_env({"LEDGERLINE_MAX_UPLOAD_BYTES": given}).max_upload_bytes == size


@pytest.mark.parametrize("url", ["postgres://u:p@db:5432/ledgerline",
                                 "postgresql://u:p@db:5432/ledgerline"])
def test_postgres_urls_are_normalised_to_the_psycopg_driver(url):
    settings = Settings.from_env({"LEDGERLINE_DATABASE_URL": url})
    assert settings.database_url == "postgresql+psycopg://u:p@db:5432/ledgerline"


@pytest.mark.parametrize("name, value, says", [
    ("LEDGERLINE_LEASE_SECONDS", "0", "at least 1"),
    ("LEDGERLINE_LEASE_SECONDS", "-5", "at least 1"),
    ("LEDGERLINE_LEASE_SECONDS", "soon", "number of seconds"),
    ("LEDGERLINE_MAX_UPLOAD_BYTES", "25 elephants", "25MiB"),
    ("LEDGERLINE_MAX_UPLOAD_BYTES", "0", "25MiB"),
    ("LEDGERLINE_DATABASE_URL", "mysql://h/db", "sqlite:///PATH"),
    ("LEDGERLINE_DATABASE_URL", "not a url", "sqlite:///PATH"),
    ("LEDGERLINE_STORAGE_URL", "ftp://x", "s3://BUCKET"),
    ("LEDGERLINE_CACHE_MODE", "sometimes", "on, off, shadow"),
    ("LEDGERLINE_MODEL_PRICE_PER_CALL", "free", "decimal"),
    ("LEDGERLINE_RATE_LIMIT_PER_MINUTE", "-1", "0 (off)"),
    ("LEDGERLINE_EXTRACT_MEMORY_MB", "10", "at least 64"),
    ("LEDGERLINE_DB_TIMEOUT_SECONDS", "0", "greater than 0"),
    ("LEDGERLINE_SPOOL_DIR", "/no/such/dir", "existing directory"),
    ("LEDGERLINE_EMBEDDED_XML", "perhaps", "1 or 0"),
    ("LEDGERLINE_ACCESS_LOG", "loud", "1 or 0"),
    ("LEDGERLINE_LOG_LEVEL", "chatty", "debug, info"),
    ("LEDGERLINE_OCR_DPI", "50", "from 100 to 600"),
    ("LEDGERLINE_OCR_DPI", "1200", "from 100 to 600"),
    ("LEDGERLINE_OCR_DPI", "high", "dpi"),
    ("LEDGERLINE_OCR_MAX_PIXELS", "1000", "at least 1000000"),
    ("LEDGERLINE_OCR_LANGUAGES", "en,klingon", "ISO 639-1"),
    ("LEDGERLINE_OCR_LANGUAGES", ",", "ISO 639-1"),
    ("LEDGERLINE_HEADER_TIMEOUT_SECONDS", "0", "greater than 0"),
    ("LEDGERLINE_BODY_TIMEOUT_SECONDS", "2 minutes", "number of seconds"),
    ("LEDGERLINE_MAX_REQUESTS_PER_KEY", "-1", "0 or more"),
    ("LEDGERLINE_MAX_WAITS_PER_KEY", "many", "whole number"),
    ("LEDGERLINE_AUTH_FAILURES_PER_MINUTE", "1.5", "whole number"),
    ("LEDGERLINE_TRUSTED_PROXY_HOPS", "one", "0 or more"),
    ("LEDGERLINE_METRICS_SNAPSHOT_SECONDS", "-1", "0 (no reuse)"),
    ("LEDGERLINE_BIND", "8000", "HOST:PORT"),
    ("LEDGERLINE_BIND", "0.0.0.0:99999", "HOST:PORT"),
    ("LEDGERLINE_API_WORKERS", "0", "at least 1"),
    ("LEDGERLINE_API_CONNECTIONS", "lots", "at least 1"),
])
def test_a_bad_value_is_one_line_naming_the_variable_and_what_it_accepts(name, value, says):
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({name: value})
    [line] = str(raised.value).splitlines()
    assert line.startswith(f"{name}={value!r}: ") and says in line


def test_every_bad_variable_is_reported_at_once():
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({"LEDGERLINE_LEASE_SECONDS": "0", "LEDGERLINE_CACHE_MODE": "x"})
    assert len(str(raised.value).splitlines()) == 2


def test_settings_built_in_code_ignore_the_environment(monkeypatch):
    monkeypatch.setenv("LEDGERLINE_LEASE_SECONDS", "7")
    assert Settings().lease_seconds == 30 and Settings.from_env().lease_seconds == 7


@pytest.mark.parametrize("given, languages", [("en", ("en",)), ("de, en", ("de", "en")),
                                              ("EN+DE", ("en", "de")), ("all", None)])
def test_ocr_settings_become_the_ocr_options(given, languages):
    from ledgerline.extraction.ocr import OcrOptions
    from ledgerline.extraction.languages import CODES

    settings = Settings.from_env({"LEDGERLINE_OCR_LANGUAGES": given, "LEDGERLINE_OCR_DPI": "200",
                                  "LEDGERLINE_OCR_MAX_PIXELS": "5000000"})
    options = OcrOptions.from_settings(settings)
    assert options.languages == (languages or CODES)
    assert (options.dpi, options.max_pixels) == (200, 5_000_000)
    assert OcrOptions.from_settings(Settings()) == OcrOptions()


def test_the_edge_and_gunicorn_settings_have_working_defaults_and_accept_their_forms():
    defaults = Settings.from_env({})
    assert (defaults.header_timeout_seconds, defaults.max_requests_per_key,
            defaults.metrics_token, defaults.bind, defaults.api_workers) == (
        10.0, 64, None, "0.0.0.0:8000", 2)
    given = Settings.from_env({"LEDGERLINE_METRICS_TOKEN": "  s3cret ",
                               "LEDGERLINE_BIND": "[::]:9000",
                               "LEDGERLINE_MAX_WAITS_PER_KEY": "0",
                               "LEDGERLINE_METRICS_SNAPSHOT_SECONDS": "0"})
    assert (given.metrics_token, given.bind, given.max_waits_per_key,
            given.metrics_snapshot_seconds) == ("s3cret", "[::]:9000", 0, 0)
    assert Settings.from_env({"LEDGERLINE_BIND": "unix:/run/ledgerline.sock"}).bind == (
        "unix:/run/ledgerline.sock")


def test_every_variable_is_documented_in_the_configuration_page():
    readme = (REPO / "docs" / "configuration.md").read_text()
    names = {env_name(field) for field in Settings.model_fields}
    for path in [*REPO.glob("service/**/*.py"), *REPO.glob("tests/**/*.py")]:
        names |= set(re.findall(r"environ(?:\.get)?\(?\[?\"((?:LEDGERLINE|PROMETHEUS)_\w+)\"",
                                path.read_text()))
    names |= set(re.findall(r"^(\w+) \?=", (REPO / "Makefile").read_text(), re.M))
    assert len(names) > 30
    assert sorted(n for n in names - SUITE_INTERNAL if not re.search(rf"\b{n}\b", readme)) == []


def test_an_unknown_variable_is_named_with_the_closest_known_one():
    typo, nonsense = "LEDGERLINE_" + "DATABSE_URL", "LEDGERLINE_" + "XYZZY"  # not in the scan
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({typo: "sqlite:////tmp/x.sqlite3", "LEDGERLINE_LEASE_SECONDS": "30"})
    assert str(raised.value) == (f"{typo}: unknown variable; "
                                 "did you mean LEDGERLINE_DATABASE_URL?")
    with pytest.raises(ConfigError, match=f"^{nonsense}: unknown variable; see docs/"):
        Settings.from_env({nonsense: "1"})


def test_every_ledgerline_variable_the_project_reads_is_known():
    """Else a variable of the project's own (a compose file's, the suite's) would stop the
    service as a typo."""
    used = set()
    for pattern in ["service/**/*.py", "tests/**/*.py", "bench/*.py", "infra/**/*.yaml",
                    "Makefile", "Dockerfile", "scripts/*"]:
        for path in REPO.glob(pattern):
            used |= set(re.findall(r"\bLEDGERLINE_[A-Z0-9_]*[A-Z0-9]\b", path.read_text()))
    assert len(used) > 40
    assert sorted(used - known_variables()) == []


def test_the_data_directory_is_absolute_and_holds_the_embedded_default(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    default = Settings.from_env({})
    assert default.data_dir == str(tmp_path / "xdg" / "ledgerline")
    assert default.database_url == f"sqlite:///{tmp_path}/xdg/ledgerline/ledgerline.sqlite3"
    assert default.storage_url == f"file://{tmp_path}/xdg/ledgerline/objects"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert Settings.from_env({}) == default  # the same database from any directory
    given = Settings.from_env({"LEDGERLINE_DATA_DIR": "data"})
    assert given.database_url == f"sqlite:///{elsewhere}/data/ledgerline.sqlite3"


def test_relative_paths_in_urls_are_made_absolute_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = Settings.from_env({"LEDGERLINE_DATABASE_URL": "sqlite:///var/db.sqlite3",
                                  "LEDGERLINE_STORAGE_URL": "file://./var/objects"})
    assert settings.database_url == f"sqlite:///{tmp_path}/var/db.sqlite3"
    assert settings.storage_url == f"file://{tmp_path}/var/objects"
    assert Settings.from_env({"LEDGERLINE_STORAGE_URL": "s3://bucket/p"}).storage_url == (
        "s3://bucket/p")
