"""Ledgerline: invoice extraction with an exact per-account cache and idempotent jobs."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ledgerline")  # pyproject.toml's, as installed
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
