"""The hardened XML parse every e-invoice reader uses: strangers' XML, read with nothing resolved.

No DTD is loaded, no entity is resolved or expanded, no network or file is ever touched, and
libxml2's own limits stay on (no text node above 10 MB, no nesting deeper than 256). The
official rules' engine (Saxon, under the JDK's XML limits) refuses less: more than 100 levels,
more than 200 attributes on an element (namespace declarations count), names over 1,000
characters; a document it cannot read is not checked at all, so those limits are applied here,
to every e-invoice, before anything is built from it. A document
type declaration has no place in an e-invoice (UBL, CII and KSeF are all defined by XML Schema),
so one is refused before parsing starts, with an error that says what it tried: an external
entity or DTD (XXE), entity declarations (entity expansion, "billion laughs"), or a DTD at all.
"""

from __future__ import annotations

import re

from lxml import etree

from ..checks import ENGINE_LIMITS
from ..errors import ExtractionError

MAX_XML_BYTES = 32 * 1024 * 1024  # far above any e-invoice, attachments included; far below RAM
PROLOG_SCAN_BYTES = 64 * 1024  # where a document type declaration would have to start

_PARSER = etree.XMLParser(
    resolve_entities=False,
    no_network=True,
    huge_tree=False,
    remove_comments=True,
    remove_pis=True,
    load_dtd=False,
)
MAX_DEPTH, MAX_ATTRIBUTES, MAX_NAME = (ENGINE_LIMITS[k] for k in ("depth", "attributes", "name"))
_PROLOG = re.compile(r"\A\s*(?:(?:<\?.*?\?>|<!--.*?-->)\s*)*", re.S)
_EXTERNAL_ID = re.compile(r"\b(?:SYSTEM|PUBLIC)\b")
_XML_DECL = re.compile(rb"^\s*(?:\xef\xbb\xbf)?<\?xml[^>]*\?>")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be", b"\xef\xbb\xbf": "utf-8"}


def _head_text(data: bytes) -> str:
    head = data[:PROLOG_SCAN_BYTES]
    for bom, encoding in _BOMS.items():
        if head.startswith(bom):
            return head[len(bom):].decode(encoding, "ignore")
    return head.decode("latin-1")  # every prolog keyword is ASCII in the ASCII-based encodings


def refuse_doctype(data: bytes) -> None:
    """Raise for a document type declaration in the prolog, naming what it tried."""
    head = _head_text(data)
    rest = head[_PROLOG.match(head).end():]
    if not rest.startswith("<!DOCTYPE"):
        return
    declaration = rest[: rest.find("]>") + 2] if "[" in rest.split(">", 1)[0] else rest
    entity = "<!ENTITY" in declaration
    if _EXTERNAL_ID.search(declaration.split("[", 1)[0]) or (
        entity and _EXTERNAL_ID.search(declaration)
    ):
        raise ExtractionError(
            "xml_external_entity",
            "the XML declares an external entity or DTD; nothing outside the document is read",
        )
    if entity:
        raise ExtractionError(
            "xml_entity_expansion", "the XML declares entities; entity expansion is refused"
        )
    raise ExtractionError("xml_dtd_refused", "the XML carries a document type declaration")


def _syntax_error(exc: etree.XMLSyntaxError) -> ExtractionError:
    text = str(exc)
    if "depth" in text:
        return ExtractionError("xml_too_deep",
                               f"the XML nests more than {MAX_DEPTH} levels deep")
    if "amplification" in text or ("entity" in text.lower() and "loop" in text.lower()):
        return ExtractionError("xml_entity_expansion", "the XML expands entities")
    if "huge" in text.lower():
        return ExtractionError("xml_too_large", "the XML holds a text node above 10 MB")
    return ExtractionError("xml_malformed", f"the XML is not well-formed: {text[:200]}")


def parse_xml(data: bytes, *, fallback_encoding: str = "cp1252") -> tuple[object, list[str]]:
    """(root element, warnings) of a document parsed with nothing resolved; raises
    ExtractionError (xml_too_large, xml_external_entity, xml_entity_expansion, xml_dtd_refused,
    xml_too_deep, xml_too_many_attributes, xml_name_too_long, xml_malformed)."""
    if len(data) > MAX_XML_BYTES:
        raise ExtractionError(
            "xml_too_large", f"the XML is larger than {MAX_XML_BYTES // (1024 * 1024)} MB"
        )
    refuse_doctype(data)
    warnings: list[str] = []
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        root = _reread(data, exc, fallback_encoding, warnings)
    except ValueError as exc:  # e.g. an unknown encoding name lxml refuses outright
        root = _reread(data, exc, fallback_encoding, warnings)
    if root is None:
        raise ExtractionError("xml_malformed", "the XML has no root element")
    if root.getroottree().docinfo.doctype:  # the prolog scan should have refused it already
        raise ExtractionError("xml_dtd_refused", "the XML carries a document type declaration")
    refuse_beyond_engine_limits(root)
    return root, warnings


def refuse_beyond_engine_limits(root) -> None:
    """Raise xml_too_deep, xml_too_many_attributes or xml_name_too_long for a document the
    official rules' engine could not read (MAX_DEPTH, MAX_ATTRIBUTES, MAX_NAME)."""
    if root.xpath("/" + "*/" * MAX_DEPTH + "*"):  # an element below MAX_DEPTH levels
        raise ExtractionError("xml_too_deep", f"the XML nests more than {MAX_DEPTH} levels deep")
    declared = 0  # namespace declarations of the element whose start comes next
    for event, item in etree.iterwalk(root, events=("start-ns", "start")):
        if event == "start-ns":  # (prefix, uri)
            declared += 1
            if len(item[0] or "") > MAX_NAME:
                raise _name_too_long("namespace prefix")
            continue
        attributes = item.keys()
        if len(attributes) + declared > MAX_ATTRIBUTES:
            raise ExtractionError("xml_too_many_attributes",
                                  f"an element of the XML carries more than {MAX_ATTRIBUTES} "
                                  "attributes and namespace declarations")
        declared = 0
        for name in (item.tag, *attributes):
            if len(name) > MAX_NAME and len(name) - name.rfind("}") - 1 > MAX_NAME:
                raise _name_too_long("name")


def _name_too_long(what: str) -> ExtractionError:
    return ExtractionError("xml_name_too_long",
                           f"the XML has a {what} longer than {MAX_NAME} characters")


def _reread(data: bytes, exc: Exception, fallback_encoding: str, warnings: list[str]):
    """A broken XML declaration, or bytes that are not the declared encoding, should not hide
    good content: read once more without the declaration, as UTF-8 or else the fallback."""
    body = _XML_DECL.sub(b"", data, count=1)
    if isinstance(exc, etree.XMLSyntaxError) and body == data and not _encoding_trouble(exc):
        raise _syntax_error(exc) from exc
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = body.decode(fallback_encoding, "replace")
        warnings.append(f"the XML is not valid UTF-8 as declared; read as {fallback_encoding}")
        # what such a writer could not encode it often replaced by control characters
        text, replaced = _CONTROL.subn("\ufffd", text)
        if replaced:
            warnings.append(f"{replaced} control characters in the text replaced")
    try:
        return etree.fromstring(text.encode("utf-8"), _PARSER)
    except etree.XMLSyntaxError as again:
        raise _syntax_error(again) from again


def _encoding_trouble(exc: etree.XMLSyntaxError) -> bool:
    text = str(exc).lower()
    return "encoding" in text or "utf-8" in text or ("char" in text and "range" in text)


def serialise(root) -> str:
    """The parsed document as text, for the schematron engine: it never sees the original bytes
    (and so no declaration, entity or external reference in them)."""
    return etree.tostring(root, encoding="unicode")
