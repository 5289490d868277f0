"""Whether the ``tools`` extra is installed: the libraries only the tooling uses (reportlab,
Faker, the font packages, ...), which a plain ``pip install ledgerline`` and the image leave out.
A tool that needs them says so in one line, naming the command that installs them, instead of
failing on an import deep inside."""
from __future__ import annotations

import re
from importlib import metadata

INSTALL = "pip install 'ledgerline[tools]'"
_TOOLS_MARKER = re.compile(r"""extra\s*==\s*["']tools["']""")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def missing_libraries() -> list[str]:
    """The distributions of the ``tools`` extra that are not installed (none when it is)."""
    try:
        requirements = metadata.requires("ledgerline") or []
    except metadata.PackageNotFoundError:  # run from a checkout, not installed: nothing to ask
        return []
    missing = []
    for requirement in requirements:
        name = _NAME.match(requirement)
        if name is None or not _TOOLS_MARKER.search(requirement):
            continue
        try:
            metadata.distribution(name.group())
        except metadata.PackageNotFoundError:
            missing.append(name.group())
    return missing


def why_not(what: str) -> str | None:
    """The line to print when ``what`` cannot run for want of the extra, or None when it can."""
    missing = missing_libraries()
    if not missing:
        return None
    return f"{what} needs the tools extra ({', '.join(missing)} not installed): {INSTALL}"
