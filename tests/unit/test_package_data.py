"""Every file the package reads beside its modules (templates, schemas, models, fitted maps) is
declared package data, so that `pip install ledgerline` ships it: an editable install reads
the checkout and would never notice a file left out of the wheel."""
from __future__ import annotations

import fnmatch
import os
import tomllib

import pytest

from tests.conftest import REPO

PACKAGES = ["ledgerline", "ledgerline_tools"]


def data_files(package: str) -> list[str]:
    root = REPO / "service" / package
    data = []
    for top, dirs, files in os.walk(root):  # symbolic links to directories not followed
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        data += [os.path.relpath(os.path.join(top, f), root) for f in files
                 if not f.endswith(".py") and not os.path.islink(os.path.join(top, f))]
    return data


@pytest.mark.parametrize("package", PACKAGES)
def test_every_data_file_in_the_package_is_declared_package_data(package):
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"].get(package, [])
    missing = [p for p in data_files(package)
               if not any(fnmatch.fnmatch(p, pattern) for pattern in patterns)]
    assert not missing, f"not declared in [tool.setuptools.package-data]: {missing}"


def test_the_listing_finds_the_services_data_files():
    assert "extraction/ocr/calibration.json" in data_files("ledgerline")
