"""The project's licence is where pyproject.toml says, and every vendored artefact's own licence
is named in the README and travels with it."""
from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO

ARTEFACTS = REPO / "service" / "ledgerline" / "extraction" / "checks" / "artefacts"
# Files the project ships but did not write as code: the official rules and the trained model.
VENDORED = [*sorted(ARTEFACTS.glob("*.xsl")),
            REPO / "service" / "ledgerline" / "extraction" / "ranker" / "model.json.gz"]


def readme_licence_table() -> str:
    text = (REPO / "README.md").read_text()
    return text[text.index("## Licence"):]


def test_the_licence_file_is_the_one_pyproject_names():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert "LICENSE" in project["license-files"]
    licence = (REPO / "LICENSE").read_text()
    assert licence.startswith("Apache License\nVersion 2.0, January 2004")


def test_every_vendored_artefact_has_its_licence_listed():
    table = readme_licence_table()
    patterns = [p.replace("*", ".*") for p in re.findall(r"^\| `([^`]+)`", table, re.M)]
    for path in VENDORED:
        name = str(path.relative_to(REPO))
        assert any(re.fullmatch(p, name) for p in patterns), f"{name} has no licence listed"
    for text_file in re.findall(r"\]\(([^)]*LICENSE[^)]*)\)", table):
        assert (REPO / text_file).is_file(), text_file
