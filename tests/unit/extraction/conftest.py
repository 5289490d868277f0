"""Shared fixtures for the extraction tests: import path, corpus location, schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
try:  # the package may not be installed in the test environment
    import ledgerline  # noqa: F401
except ImportError:  # pragma: no cover - depends on how the venv was set up
    sys.path.insert(0, str(ROOT / "service"))

CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
SCHEMA_PATH = ROOT / "schemas" / "invoice-v1.schema.json"


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip(f"invoice corpus not available at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def schema_validator():
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
