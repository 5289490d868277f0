"""`ledgerline extract`: files and directory trees extracted offline, one JSON line per file.

Every line names its file, so that a script can match results to inputs however many there are
and whichever failed: ``{"file": PATH, "document": {invoice-v2}}`` or ``{"file": PATH, "error":
{"code": CODE, "message": TEXT}}``. A directory is walked recursively in sorted order and every
file whose content is an accepted format (what an upload may be, told by its first bytes, never
by its name) is extracted; other files there are skipped, since a folder of invoices holds notes
and truth files too. A file named on the command line is always answered, with
``unsupported_media_type`` when it is not an accepted format.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import blake3

from ..adapters.extractor import conform
from ..extraction.errors import ExtractionError
from ..formats import ACCEPTED, Format, accepted_names, detect_file

HASH_CHUNK = 1 << 20
UNSUPPORTED = "unsupported_media_type"
UNREADABLE = "file_unreadable"


@dataclass(frozen=True)
class Planned:
    """What the command will do with one input: extract it, or answer with an error."""

    path: str
    error: dict | None = None  # set when the file is answered without extracting it


@dataclass
class Plan:
    files: list[Planned]
    skipped: int  # entries under a directory that are no regular file of an accepted format


def _format(path: str) -> Format | OSError:
    if not os.path.isfile(path):  # a FIFO or a device would block the read or never end
        return OSError(f"{path}: not a regular file")
    try:
        return detect_file(path)
    except OSError as exc:
        return exc


def _unreadable(path: str, exc: OSError) -> Planned:
    why = exc.strerror or str(exc)
    return Planned(path, {"code": UNREADABLE, "message": f"cannot read the file: {why}"})


def _walk(directory: str) -> list[str]:
    """Every file under the directory, sorted by path (folder by folder, name by name)."""
    found = [os.path.join(root, name) for root, _, names in os.walk(directory) for name in names]
    return sorted(found, key=lambda path: path.split(os.sep))


def plan(paths: Iterable[str]) -> Plan:
    """The files to answer for, in the order given (a directory's files in sorted order)."""
    files: list[Planned] = []
    skipped = 0
    for given in paths:
        if not os.path.isdir(given):
            fmt = _format(given)
            if isinstance(fmt, OSError):
                files.append(_unreadable(given, fmt))
            elif fmt not in ACCEPTED:
                message = f"not an accepted format (accepted: {accepted_names()})"
                files.append(Planned(given, {"code": UNSUPPORTED, "message": message}))
            else:
                files.append(Planned(given))
            continue
        for path in _walk(given):
            if not os.path.isfile(path):  # a FIFO, a socket, a dangling link: no document
                skipped += 1
                continue
            fmt = _format(path)
            if isinstance(fmt, OSError):
                files.append(_unreadable(path, fmt))
            elif fmt in ACCEPTED:
                files.append(Planned(path))
            else:
                skipped += 1
    return Plan(files, skipped)


def content_hash(path: str) -> str:
    hasher = blake3.blake3()
    with open(path, "rb") as f:
        while chunk := f.read(HASH_CHUNK):
            hasher.update(chunk)
    return f"blake3:{hasher.hexdigest()}"


def answer(extractor, planned: Planned) -> dict:
    """The output line of one file: its document, or the error that stopped it."""
    if planned.error is not None:
        return {"file": planned.path, "error": planned.error}
    digest = content_hash(planned.path)
    try:
        # the document exactly as the service would store it
        document = conform(extractor.extract(planned.path, digest), content_hash=digest,
                           versions=extractor.versions)
    except ExtractionError as exc:
        return {"file": planned.path, "error": {"code": exc.code, "message": exc.message}}
    except OSError as exc:
        return {"file": planned.path, "error": _unreadable(planned.path, exc).error}
    return {"file": planned.path, "document": document}
