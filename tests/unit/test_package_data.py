"""Every file the package reads beside its modules (templates, schemas, models, fitted maps) is
declared package data, so that `pip install ledgerline` ships it: an editable install reads
the checkout and would never notice a file left out of the wheel."""
from __future__ import annotations

import fnmatch
import os
import tomllib

from tests.conftest import REPO

PACKAGE = REPO / "service" / "ledgerline"


def test_every_data_file_in_the_package_is_declared_package_data():
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["ledgerline"]
    data = []
    for top, dirs, files in os.walk(PACKAGE):  # symbolic links to directories not followed
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        data += [os.path.relpath(os.path.join(top, f), PACKAGE) for f in files
                 if not f.endswith(".py") and not os.path.islink(os.path.join(top, f))]
    assert data, "no data files found: the listing is broken"
    missing = [p for p in data if not any(fnmatch.fnmatch(p, pattern) for pattern in patterns)]
    assert not missing, f"not declared in [tool.setuptools.package-data]: {missing}"
