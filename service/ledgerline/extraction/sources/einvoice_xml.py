"""Exact reading of e-invoice XML, on its own or embedded in a PDF: the root element says which
syntax it is, and that syntax's reader builds the ``XmlInvoice`` (``xml_model``).

Supported: UN/CEFACT CII (``cii_xml``: Factur-X / ZUGFeRD 2.x / XRechnung, ZUGFeRD 1.0), OASIS
UBL 2.x ``Invoice`` and ``CreditNote`` (``ubl_xml``: Peppol BIS Billing 3.0, XRechnung UBL) and
Poland's KSeF FA(1)-(3) (``ksef_xml``). Values are copied, never recomputed. Parsing is
``xml_parsing``'s: nothing resolved.
"""

from __future__ import annotations

from lxml import etree

from ..errors import ExtractionError
from .cii_xml import read_cii
from .ksef_xml import read_ksef
from .ubl_xml import read_ubl
from .xml_model import XmlInvoice, local_name
from .xml_parsing import parse_xml

__all__ = ["parse_invoice_xml", "read_invoice_xml", "pick_invoice_attachment"]


KSEF_NAMESPACE_PREFIX = "http://crd.gov.pl/wzor/"


def _read_root(root) -> XmlInvoice | None:
    name = local_name(root)
    ns = etree.QName(root).namespace or ""
    if name == "CrossIndustryInvoice":
        return read_cii(root, "CII")
    if name == "CrossIndustryDocument":
        return read_cii(root, "CII-ZUGFeRD1")
    if name == "Invoice" and "CBFBUY" in ns:
        return read_cii(root, "CII-ZUGFeRD1")
    if name in ("Invoice", "CreditNote") and "ubl" in ns.lower():
        return read_ubl(root)
    if name == "Faktura" and ns.startswith(KSEF_NAMESPACE_PREFIX):
        return read_ksef(root)
    return None


def parse_invoice_xml(data: bytes) -> XmlInvoice:
    """Read a CII, UBL or KSeF invoice; raises ExtractionError for hostile or broken XML and
    ``xml_not_an_invoice`` for well-formed XML of another kind."""
    # KSeF comes from Polish systems: bytes that are not the declared UTF-8 are Windows-1250
    fallback = "cp1250" if KSEF_NAMESPACE_PREFIX.encode() in data[:4096] else "cp1252"
    root, warnings = parse_xml(data, fallback_encoding=fallback)
    inv = _read_root(root)
    if inv is None:
        raise ExtractionError(
            "xml_not_an_invoice",
            f"the XML is a {local_name(root)!r} document, not a UBL, CII or KSeF invoice",
        )
    inv.warnings[:0] = warnings
    inv.root = root
    return inv


def read_invoice_xml(data: bytes) -> XmlInvoice | None:
    """The invoice in an attachment; None when the bytes are not a readable invoice XML."""
    try:
        return parse_invoice_xml(data)
    except ExtractionError:
        return None


_PREFERRED_NAMES = ("factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml", "zugferd.xml")


def pick_invoice_attachment(attachments) -> tuple[object, XmlInvoice] | None:
    """The attachment that holds the invoice XML (well-known names first), read."""
    ordered = sorted(
        attachments,
        key=lambda a: (
            (a.name or "").lower() not in _PREFERRED_NAMES,
            (a.relationship or "") not in ("Alternative", "Data", "Source"),
            not (a.name or "").lower().endswith(".xml"),
        ),
    )
    for att in ordered:
        head = att.data[:4096].lstrip()
        if not head.startswith((b"<", b"\xef\xbb\xbf")):
            continue
        inv = read_invoice_xml(att.data)
        if inv is not None:
            return att, inv
    return None
