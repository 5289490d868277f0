"""Embedded files of a PDF (the e-invoice XML of Factur-X / ZUGFeRD / XRechnung hybrids).

Found in the catalog's /EmbeddedFiles name tree and its /AF array; a broken attachment, name tree
or filter never sinks the document, it only hides that attachment.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdftypes import PDFObjRef, PDFStream, resolve1
from pdfminer.psparser import PSLiteral

log = logging.getLogger(__name__)

MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024


@dataclass(slots=True)
class Attachment:
    name: str
    data: bytes
    relationship: str | None = None
    subtype: str | None = None



def _name_of(filespec: dict, key_name: str | None) -> str:
    for k in ("UF", "F"):
        v = resolve1(filespec.get(k))
        if isinstance(v, bytes):
            for enc in ("utf-16" if v[:2] in (b"\xfe\xff", b"\xff\xfe") else "latin-1",):
                try:
                    return v.decode(enc)
                except UnicodeDecodeError:
                    pass
        if isinstance(v, str):
            return v
    return key_name or ""


def _literal(v) -> str | None:
    v = resolve1(v)
    if isinstance(v, PSLiteral):
        n = v.name
        return n.decode("latin-1") if isinstance(n, bytes) else str(n)
    return None


def _filespec_attachment(spec, key_name: str | None) -> Attachment | None:
    spec = resolve1(spec)
    if not isinstance(spec, dict):
        return None
    ef = resolve1(spec.get("EF"))
    if not isinstance(ef, dict):
        return None
    stream = resolve1(ef.get("F") or ef.get("UF"))
    if not isinstance(stream, PDFStream):
        return None
    length = resolve1(stream.attrs.get("Length"))
    if isinstance(length, int) and length > MAX_ATTACHMENT_BYTES:
        return None
    try:
        data = stream.get_data()
    except Exception as exc:  # noqa: BLE001 - a broken filter in an attachment must not sink the document
        log.debug("unreadable attachment: %s", exc)
        return None
    if data is None or len(data) > MAX_ATTACHMENT_BYTES:
        return None
    return Attachment(
        name=_name_of(spec, key_name),
        data=data,
        relationship=_literal(spec.get("AFRelationship")),
        subtype=_literal(stream.attrs.get("Subtype")),
    )


def _walk_name_tree(node, out: list, depth: int = 0) -> None:
    node = resolve1(node)
    if not isinstance(node, dict) or depth > 32:
        return
    names = resolve1(node.get("Names"))
    if isinstance(names, list):
        for i in range(0, len(names) - 1, 2):
            key = resolve1(names[i])
            key = key.decode("latin-1", "replace") if isinstance(key, bytes) else None
            out.append((key, names[i + 1]))
    kids = resolve1(node.get("Kids"))
    if isinstance(kids, list):
        for kid in kids:
            _walk_name_tree(kid, out, depth + 1)


def find_attachments(doc: PDFDocument) -> list[Attachment]:
    """Embedded files from the /EmbeddedFiles name tree and the catalog's /AF array."""
    catalog = doc.catalog
    specs: list = []
    try:
        names = resolve1(catalog.get("Names"))
        if isinstance(names, dict):
            _walk_name_tree(names.get("EmbeddedFiles"), specs)
        af = resolve1(catalog.get("AF"))
        if isinstance(af, list):
            specs.extend((None, s) for s in af)
    except RecursionError:
        log.debug("attachment name tree nests too deeply")
    except Exception as exc:  # noqa: BLE001 - a broken name tree must not sink the document
        log.debug("attachment lookup failed: %s", type(exc).__name__)
    seen: set = set()
    out: list[Attachment] = []
    for key, spec in specs:
        ident = spec.objid if isinstance(spec, PDFObjRef) else id(spec)
        if ident in seen:
            continue
        seen.add(ident)
        try:
            att = _filespec_attachment(spec, key)
        except Exception as exc:  # noqa: BLE001 - one broken attachment must not hide the others
            log.debug("attachment skipped: %s", type(exc).__name__)
            att = None
        if att is not None and all(a.data != att.data for a in out):
            out.append(att)
    return out
