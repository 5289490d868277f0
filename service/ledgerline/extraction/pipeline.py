"""The extraction pipeline: one PDF parse, embedded XML when present, the text layer always,
OCR for scans and photos and for the PDF pages without a text layer; an e-invoice XML on its own
is read exactly and checked against the official rules.

Source (PDF text layer and OCR, page by page; embedded XML; standalone XML) → geometry index →
candidate generation (``finders``) → the learned ranker (``ranker``) → EN 16931 validations →
the invoice-v1 document. OCR pages are the same positioned-text model as text-layer pages, so everything after
the source treats them alike; only a field's confidence also says how sure OCR was of the words
it was read from.
"""

from __future__ import annotations

from . import document as D
from . import ocr
from .checks import schematron
from .errors import ExtractionError
from .finders import find_candidates
from .finders.line_items import extract_line_items
from .geometry import DocText
from .model import location_confidence
from .ranker import choose
from .sources.einvoice_xml import XmlInvoice, parse_invoice_xml, pick_invoice_attachment
from .sources.pdf_text import ParsedPdf, parse_pdf
from .sources.xml_parsing import MAX_XML_BYTES
from .validation import (
    apply_to_confidence,
    arithmetic_rules,
    identifier_checks,
    official_results,
    run_all,
)
from .xml_crosscheck import xml_fields

LOW_CONFIDENCE = 0.6  # a key field less sure than this asks for review


def _text_entries(fields: dict, dt: DocText) -> dict:
    """Field entries of the chosen candidates: the choice's score times how sure the source was
    of the text the value was read from (1 for a text layer, the words' confidence for OCR)."""
    out = {}
    for name, cand in fields.items():
        if cand is None:
            out[name] = D.field_entry(name, None, 0.0)
        else:
            read = location_confidence(dt.lines, cand.line, cand.page, cand.bbox)
            out[name] = D.field_entry(
                name, cand.out_value(), cand.score * read, cand.raw, cand.page, cand.bbox
            )
    return out


def _text_layer(dt: DocText) -> tuple[dict, list, list[str]]:
    """Fields (the chosen candidates), line items and review reasons from the page's text."""
    found = find_candidates(dt)
    items = extract_line_items(dt, credit_note=found.facts.credit_note)
    choice = choose(dt, found, items)
    reasons = list(choice.reasons)
    for name in choice.vat_checksum_failed:
        reasons.append(f"{name}: printed VAT identifier fails its checksum")
    return choice.fields, items, reasons


def xml_validations(inv: XmlInvoice, line_items: list) -> list[dict]:
    """The official EN 16931 (and XRechnung) rules where they apply, else the arithmetic rules
    on the XML's values; the identifier checks always."""
    values = {k: inv.fields.get(k) for k in D.FIELD_NAMES}
    outcome = schematron.check(inv.syntax, inv.profile, inv.root)
    out = official_results(outcome)
    if not outcome.ran:
        out += arithmetic_rules(
            values, line_items=line_items, totals=inv.totals, tax_breakdown=inv.tax_breakdown
        )
    return out + identifier_checks(values, inv.vat_countries)


def _from_xml(inv, dt: DocText | None, text_fields, reasons: list[str], *, embedded=True):
    """(fields, line items, validations) of an invoice read from its XML."""
    reasons.extend(f"{'embedded ' if embedded else ''}XML: {w}" for w in inv.warnings)
    if dt is None and embedded:
        reasons.append("no text layer: the printed invoice could not be compared with the XML")
    fields = xml_fields(inv, dt, text_fields, reasons)
    # note-only lines (no amount, quantity or price) carry no billing data
    line_items = [
        li
        for li in inv.line_items
        if any(li.get(k) is not None for k in ("net_amount", "quantity", "unit_price"))
    ]
    return fields, line_items, xml_validations(inv, line_items)


def _from_text(dt: DocText, text_fields, items, reasons: list[str]):
    """(fields, line items, validations) of an invoice read from its text alone."""
    fields = _text_entries(text_fields, dt)
    values = {k: (v["value"]) for k, v in fields.items()}
    # totals computed from the other totals (not a sum of printed VAT rows) prove nothing
    derived = frozenset(
        name for name, c in text_fields.items()
        if c is not None and c.derived and c.evidence.kind == "derived"
    )
    validations = run_all(
        values, line_items=items, totals=None, tax_breakdown=None, derived=derived
    )
    for name in D.KEY_FIELDS:
        entry = fields[name]
        if entry["value"] is None:
            if not (name == "currency" and any(r.startswith("currency") for r in reasons)):
                reasons.append(f"{name}: not found on the invoice")
        elif entry["confidence"] < LOW_CONFIDENCE:
            reasons.append(f"{name}: low confidence ({entry['confidence']})")
    return fields, items, validations


def _finish(fields, validations, reasons) -> None:
    conf = {k: v["confidence"] for k, v in fields.items() if v["value"] is not None}
    reasons.extend(apply_to_confidence(validations, conf))
    for k, c in conf.items():
        fields[k]["confidence"] = c


def extract_xml(path, *, content_hash: str, versions: dict) -> dict:
    """The invoice-v1 document of a standalone e-invoice XML (UBL, CII or KSeF)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_XML_BYTES + 1)
    except FileNotFoundError as exc:
        raise ExtractionError("file_not_found", f"no such file: {path}") from exc
    inv = parse_invoice_xml(data)
    reasons: list[str] = []
    fields, line_items, validations = _from_xml(inv, None, None, reasons, embedded=False)
    _finish(fields, validations, reasons)
    return D.build_document(
        source="xml",
        versions=versions,
        content_hash=content_hash,
        pages=0,
        fields=fields,
        line_items=line_items,
        validations=validations,
        reasons=reasons,
    )


def read_pages(path, *, image: bool, ocr_options=None) -> tuple[ParsedPdf, list[int]]:
    """The document's pages in the positioned-text model, and the numbers of those OCR read:
    every page of an image; of a PDF, those without a usable text layer (the others keep it)."""
    options = ocr_options or ocr.OcrOptions()
    if image:
        pages = ocr.read_image(path, options)
        return ParsedPdf(pages=pages, attachments=[]), [p.number for p in pages]
    parsed = parse_pdf(path)
    numbers = ocr.pages_to_ocr(path, parsed.pages)
    if numbers:
        read = {p.number: p for p in ocr.read_pdf_pages(path, numbers, options)}
        parsed.pages = [read.get(p.number, p) for p in parsed.pages]
    return parsed, numbers


def extract(
    path,
    *,
    content_hash: str,
    use_embedded_xml: bool,
    versions: dict,
    image: bool = False,
    ocr_options=None,
) -> dict:
    """The invoice-v1 document of a PDF (``image=False``) or a scan or photo."""
    parsed, ocr_pages = read_pages(path, image=image, ocr_options=ocr_options)
    if ocr_pages:  # the document says what read it; the cache key always names OCR too
        versions = {**versions, "preprocessing": ocr.preprocessing_version(
            versions["preprocessing"], ocr_options)}
    has_text = parsed.has_text_layer
    xml = pick_invoice_attachment(parsed.attachments) if use_embedded_xml else None
    if not has_text and xml is None:
        raise ExtractionError("no_text_layer", "no text layer, and OCR found no text either")
    reasons: list[str] = []
    dt = DocText(parsed.pages) if has_text else None
    text_fields = items = None
    if dt is not None:
        text_fields, items, text_reasons = _text_layer(dt)
    if xml is not None:
        fields, line_items, validations = _from_xml(xml[1], dt, text_fields, reasons)
        source = "embedded_xml"
    else:
        reasons.extend(text_reasons)
        fields, line_items, validations = _from_text(dt, text_fields, items, reasons)
        source = "ocr" if ocr_pages else "text_layer"
    _finish(fields, validations, reasons)
    document = D.build_document(
        source=source,
        versions=versions,
        content_hash=content_hash,
        pages=len(parsed.pages),
        fields=fields,
        line_items=line_items,
        validations=validations,
        reasons=reasons,
    )
    if ocr_pages:
        document["document"]["ocr_pages"] = ocr_pages
    return document
