"""The gates: lint (ruff), types (mypy) and import layers (import-linter), each run as the
developer would run it, from the repository's root with this venv's tools, and held to a clean
exit. Their configuration, with a reason for every exception, is in pyproject.toml; `make lint`
runs this module. A failure prints the tool's own report."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          check=False)
    if done.returncode != 0:
        command = " ".join([Path(argv[0]).name, *argv[1:]])
        pytest.fail(f"`{command}` exited {done.returncode}:\n{done.stdout}\n{done.stderr}",
                    pytrace=False)


def test_ruff_finds_nothing_in_the_service_and_its_tests():
    _run([sys.executable, "-m", "ruff", "check", "--no-cache", "service", "tests"])


@pytest.mark.slow  # a fresh clone has no .mypy_cache: half a minute, started first
def test_mypy_passes_on_domain_service_layer_adapters_and_http():
    _run([sys.executable, "-m", "mypy"])


def test_the_import_layers_hold():
    _run([str(BIN / "lint-imports"), "--no-cache"])
