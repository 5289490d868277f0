"""The extraction pipeline: one PDF parse, embedded XML when present, the text layer always,
OCR for scans and photos and for the PDF pages without a text layer; an e-invoice XML on its own
is read exactly and checked against the official rules.

Source (PDF text layer and OCR, page by page; embedded XML; standalone XML) → geometry index →
candidate generation (``finders``) → the learned ranker (``ranker``) → EN 16931 validations →
the invoice-v2 document. OCR pages are the same positioned-text model as text-layer pages, so everything after
the source treats them alike; only a field's confidence also says how sure OCR was of the words
it was read from, and an OCR'd value is calibrated and held to a threshold apart (``ocr``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from . import document as D
from . import document_type as T
from . import ocr, review
from .ocr import calibration as ocr_calibration
from .ocr import spelling as ocr_spelling
from .candidates import BELOW
from .checks import schematron
from .errors import ExtractionError
from .finders import find_candidates
from .finders.line_items import extract_line_items
from .geometry import DocText
from .model import location_confidence
from .ranker import choose
from .ranker.rates import one_rate_of_several
from .sources.einvoice_xml import parse_invoice_xml, pick_invoice_attachment
from .sources.pdf_text import ParsedPdf, parse_pdf
from .sources.xml_model import XmlInvoice
from .sources.xml_parsing import MAX_XML_BYTES
from .unread import unread_labels
from .validation import (
    apply_to_confidence,
    arithmetic_rules,
    identifier_checks,
    official_results,
    run_all,
)
from .values.amounts import parse_amount
from .xml_crosscheck import xml_fields

# A hosted provider's key field less sure than this asks for review (adapters/providers); the
# text layer's fields have acceptance thresholds of their own (review.py).
LOW_CONFIDENCE = 0.6


def _text_entries(reading: TextReading, dt: DocText) -> tuple[dict, dict]:
    """Field entries of the chosen candidates, and the confidence each needs to be taken
    without review. A value's confidence is the choice's score times how sure the source was
    of the text it was read from (1 for a text layer); a value read by OCR is calibrated again
    from its OCR evidence (:mod:`.ocr.calibration`) and held to its field's threshold for OCR'd
    values, both those of the kind of page it was read from (:func:`ocr_kind`: a photo's or a
    scan's), or, where that calibration has no entry for its field or the page does not confirm
    it (:func:`.ocr.calibration.unconfirmed`, said in the field's note), never taken unseen."""
    out, thresholds = {}, dict(reading.thresholds)
    for name, cand in reading.fields.items():
        if cand is None:
            out[name] = D.field_entry(name, None, 0.0)
            continue
        read = location_confidence(dt.lines, cand.line, cand.page, cand.bbox)
        confidence = cand.score * read
        if _read_by_ocr(dt, cand):
            calibration = (ocr_calibration.of_field(name, ocr_kind(dt, cand))
                           if name in reading.evidence else None)
            if calibration is None:
                thresholds[name] = review.NO_THRESHOLD
            else:
                features = _ocr_features(reading, dt, name, read)
                confidence = calibration.calibrator(features)
                thresholds[name] = calibration.threshold
                why = ocr_calibration.unconfirmed(name, features)
                if why is not None:
                    thresholds[name] = review.NO_THRESHOLD
                    reading.notes[name] = "; ".join(filter(None, (reading.notes.get(name), why)))
        out[name] = D.field_entry(
            name, cand.out_value(), confidence, cand.raw, cand.page, cand.bbox
        )
    return out, thresholds


def ocr_evidence(reading: TextReading, dt: DocText) -> dict[str, tuple[float, ...]]:
    """The OCR evidence (:func:`.ocr.calibration.features`) of every chosen value read by OCR
    whose confidence the ranker gave from its evidence."""
    out = {}
    for name, cand in reading.fields.items():
        if cand is None or name not in reading.evidence or not _read_by_ocr(dt, cand):
            continue
        read = location_confidence(dt.lines, cand.line, cand.page, cand.bbox)
        out[name] = _ocr_features(reading, dt, name, read)
    return out


def ocr_kind(dt: DocText, cand) -> str:
    """The kind of page (:data:`.ocr.calibration.KINDS`) whose calibration an OCR'd value is
    held to: a photo's where OCR took the value's page for one (:attr:`.model.Page.photo`)."""
    return ocr_calibration.kind(cand.page, dt.photo_pages)


def _ocr_features(reading: TextReading, dt: DocText, name: str, read: float) -> tuple:
    """The OCR evidence of the chosen value of ``name``, whose words OCR read ``read`` sure."""
    cand = reading.fields[name]
    if name == "seller_name":
        spelling = _spelling(dt, cand)
    elif name in D.ID_FIELDS:  # printed once, mostly: the second reading of its place alone
        spelling = (0.0, 0.0, ocr_spelling.identifier_read_again_vote(
            cand.raw or "", cand.bbox, _read_again(dt, cand)))
    else:
        spelling = (0.0, 0.0, 0.0)
    items = _items_agree(reading) if name in ITEM_CHECKED_TOTALS else 0.0
    off_column = 1.0 if name in D.ID_FIELDS and _off_label_column(dt, cand) else 0.0
    rate_row = 1.0 if name in ocr_calibration.RATE_ROW_TOTALS and _one_rate_row(reading, dt) \
        else 0.0
    return ocr_calibration.features(reading.evidence[name], read, spelling, items, off_column,
                                    rate_row)


def _one_rate_row(reading: TextReading, dt: DocText) -> bool:
    """Are the chosen net and VAT one row of a VAT breakdown that prints other rates too?"""
    net, tax = reading.fields.get("net_total"), reading.fields.get("tax_total")
    if net is None or tax is None or net.derived or tax.derived:
        return False
    return one_rate_of_several(net.value, tax.value, dt)


def _spelling(dt: DocText, cand) -> tuple[float, float, float]:
    """How the page confirms an OCR'd name's spelling: its other places' votes and the second
    recogniser's reading of its own place (:mod:`.ocr.spelling`)."""
    name = str(cand.value)
    second = ocr_spelling.read_again_vote(dt, name, cand.line, cand.bbox, _read_again(dt, cand))
    return (*ocr_spelling.spelling_votes(dt, name, cand.line), second)


def _read_again(dt: DocText, cand):
    """The second reading of the candidate's page, where OCR kept its picture."""
    return dt.read_again.get(cand.page) if cand.page is not None else None


def _off_label_column(dt: DocText, cand) -> bool:
    """Was the value read below its label, but wholly left or right of the label's extent? A
    table's values sit under their headers; a line OCR joined across cells reaches under the
    label while the value taken from it does not. (Totals blocks print amounts right of and
    below their labels, so only identifiers are asked.)"""
    ev = cand.evidence
    if ev.relation != BELOW or ev.label_line is None or not cand.bbox:
        return False
    label = dt.lines[ev.label_line]
    return cand.bbox[2] <= label.x0 or cand.bbox[0] >= label.x1


# The totals the line items' sum confirms or contradicts (with net + tax = gross, the items
# confirm all three).
ITEM_CHECKED_TOTALS = ("net_total", "tax_total", "gross_total")


def _items_agree(reading: TextReading) -> float:
    """+1 where the line items' amounts add up to the chosen net or gross total (prices with
    or without VAT), -1 where they add up to neither, 0 without items or the totals."""
    amounts = [item.get("net_amount") for item in reading.items]
    if not amounts or any(a is None for a in amounts):
        return 0.0
    items_sum = abs(sum(amounts, Decimal(0)))
    totals = [reading.fields.get(name) for name in ("net_total", "gross_total")]
    printed = [abs(c.value) for c in totals
               if c is not None and not c.derived and isinstance(c.value, Decimal)]
    if not printed:
        return 0.0
    return 1.0 if items_sum in printed else -1.0


def _read_by_ocr(dt: DocText, cand) -> bool:
    """Was the value read from OCR'd text (or, derived from other values, in a document OCR
    read)?"""
    if cand.line is not None and 0 <= cand.line < len(dt.lines):
        return dt.lines[cand.line].confidences is not None
    return any(ln.confidences is not None for ln in dt.lines
               if cand.page is None or ln.page == cand.page)


@dataclass
class TextReading:
    """What the page's text gives: the chosen candidates, the line items, the review reasons
    of the choice, the document type, and what the acceptance of its fields rests on."""

    fields: dict
    items: list
    reasons: list[str]
    kind: T.DocumentType
    thresholds: dict  # field -> the confidence it needs to be taken without review
    notes: dict  # field -> what its confidence rests on, for a review reason
    evidence: dict  # field -> the ranker's evidence of its value (ranker.confidence.EVIDENCE)
    no_vat: bool = False  # the page states one total and no VAT at all (Choice.no_vat)


def text_reading(dt: DocText, ranker=None) -> TextReading:
    """What the page's text says, decided by ``ranker`` (the committed model by default)."""
    found = find_candidates(dt)
    items = extract_line_items(dt)
    choice = choose(dt, found, items, ranker)
    reasons = list(choice.reasons)
    for name in choice.vat_checksum_failed:
        reasons.append(f"{name}: printed VAT identifier fails its checksum")
    for name, label in unread_labels(dt, found).items():
        reasons.append(f"{name}: its label {label!r} is printed, but OCR read no value beside it")
    kind = T.of_text(dt, _printed_totals(choice.fields))
    return TextReading(choice.fields, items, reasons, kind, choice.thresholds, choice.notes,
                       choice.evidence, choice.no_vat)


def _printed_totals(fields: dict) -> dict:
    """The chosen totals with the sign the page prints them with (the ranker reads a credit
    note's amounts as magnitudes)."""
    out = {}
    for name in D.AMOUNT_FIELDS:
        cand = fields.get(name)
        if cand is not None and not cand.derived:
            printed = parse_amount(cand.raw) if cand.raw else None
            out[name] = printed if printed is not None else cand.value
    return out


def _typed(fields: dict, line_items: list, kind: T.DocumentType, reasons: list[str]) -> list:
    """The document type's entry, and a credit note's amounts negative (invoice-v2): the
    totals, the amount due and the lines' net amounts; quantities and unit prices stay
    positive. An invoice names no preceding invoice."""
    fields["document_type"] = D.field_entry(
        "document_type", kind.value, kind.confidence, kind.raw, kind.page, kind.bbox
    )
    if kind.reason:
        reasons.append(kind.reason)
    if not kind.credit_note:
        fields["preceding_invoice_number"] = D.field_entry("preceding_invoice_number", None, 0.0)
        return line_items
    for name in D.AMOUNT_FIELDS:
        entry = fields[name]
        if entry["value"] is not None:
            entry["value"] = D.json_value(name, T.signed_amounts(Decimal(entry["value"])))
    out = []
    for item in line_items:
        item = dict(item)
        item["net_amount"] = T.signed_amounts(item.get("net_amount"))
        for key in ("quantity", "unit_price"):
            if item.get(key) is not None:
                item[key] = abs(item[key])
        out.append(item)
    return out


def xml_validations(inv: XmlInvoice, line_items: list, reasons: list[str]) -> list[dict]:
    """The official EN 16931 (and XRechnung) rules where they apply, else the arithmetic rules
    on the XML's values; the identifier checks always. Rules that apply but could not run ask
    for review (fail closed): passing the arithmetic instead proves nothing they check."""
    values = {k: inv.fields.get(k) for k in D.FIELD_NAMES}
    outcome = schematron.check(inv.syntax, inv.profile, inv.root)
    if outcome.could_not_run:
        reasons.append(f"EN16931 not checked: {outcome.why_not}")
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
    validations = xml_validations(inv, line_items, reasons)
    kind = T.of_xml(inv.type_code, inv.credit_note_root, inv.fields)
    return fields, _typed(fields, line_items, kind, reasons), validations


def _from_text(dt: DocText, reading: TextReading, reasons: list[str]):
    """(fields, line items, validations, acceptance thresholds) of an invoice read from its
    text alone."""
    fields, thresholds = _text_entries(reading, dt)
    items = _typed(fields, reading.items, reading.kind, reasons)
    values = {k: (v["value"]) for k, v in fields.items()}
    # totals computed from the other totals (not a sum of printed VAT rows) prove nothing
    derived = frozenset(
        name for name, c in reading.fields.items()
        if c is not None and c.derived and c.evidence.kind == "derived"
    )
    validations = run_all(
        values, line_items=items, totals=None, tax_breakdown=None, derived=derived,
        no_vat=reading.no_vat,
    )
    return fields, items, validations, thresholds


def _finish(fields, validations, reasons) -> None:
    conf = {k: v["confidence"] for k, v in fields.items() if v["value"] is not None}
    reasons.extend(apply_to_confidence(validations, conf))
    for k, c in conf.items():
        fields[k]["confidence"] = c


def extract_xml(path, *, content_hash: str, versions: dict) -> dict:
    """The invoice-v2 document of a standalone e-invoice XML (UBL, CII or KSeF)."""
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


def read_pages(path, *, image: bool, ocr_options=None,
               pdf_document=None) -> tuple[ParsedPdf, list[int]]:
    """The document's pages in the positioned-text model, and the numbers of those OCR read:
    every page of an image; of a PDF, those without a usable text layer (the others keep it).
    ``pdf_document``: the PDF's pdfminer document, parsed already (see ``parse_pdf``)."""
    options = ocr_options or ocr.OcrOptions()
    if image:
        pages = ocr.read_image(path, options)
        return ParsedPdf(pages=pages, attachments=[]), [p.number for p in pages]
    parsed = parse_pdf(path, pdf_document=pdf_document)
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
    pdf_document=None,
) -> dict:
    """The invoice-v2 document of a PDF (``image=False``) or a scan or photo."""
    parsed, ocr_pages = read_pages(path, image=image, ocr_options=ocr_options,
                                   pdf_document=pdf_document)
    if ocr_pages:  # the document says what read it; the cache key always names OCR too
        versions = {**versions, "preprocessing": ocr.preprocessing_version(
            versions["preprocessing"], ocr_options)}
    has_text = parsed.has_text_layer
    xml = pick_invoice_attachment(parsed.attachments) if use_embedded_xml else None
    if not has_text and xml is None:
        raise ExtractionError("no_text_layer", "no text layer, and OCR found no text either")
    dt = DocText(parsed.pages) if has_text else None
    reading = text_reading(dt) if dt is not None else None
    if xml is None:
        document = _text_document(dt, reading, source="ocr" if ocr_pages else "text_layer",
                                  pages=len(parsed.pages), versions=versions,
                                  content_hash=content_hash)
    else:
        reasons: list[str] = []
        text_fields = reading.fields if reading is not None else None
        fields, line_items, validations = _from_xml(xml[1], dt, text_fields, reasons)
        _finish(fields, validations, reasons)
        document = D.build_document(
            source="embedded_xml",
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


def _text_document(dt: DocText, reading: TextReading, *, source: str, pages: int,
                   versions: dict, content_hash: str) -> dict:
    """The document of a page read from its text: its fields, checks and the reasons a person
    must look (:mod:`.review`: none, and it is taken as it is)."""
    reasons = list(reading.reasons)
    fields, line_items, validations, thresholds = _from_text(dt, reading, reasons)
    reasons.extend(review.contradictions(fields))
    _finish(fields, validations, reasons)
    named = {r.split(":", 1)[0] for r in reasons}
    reasons.extend(r for r in review.reasons_to_look(fields, thresholds, reading.notes,
                                                     no_vat=reading.no_vat)
                   if r.split(":", 1)[0] not in named or "not found" not in r)
    return D.build_document(
        source=source,
        versions=versions,
        content_hash=content_hash,
        pages=pages,
        fields=fields,
        line_items=line_items,
        validations=validations,
        reasons=reasons,
    )


def document_of_pages(pages: list, *, ranker=None, content_hash: str = "blake3:" + "0" * 64,
                      versions: dict | None = None) -> dict:
    """The document of pages already read (the positioned-text model), text layer only, decided
    by ``ranker`` (the committed model by default): what the benchmarks run with a model
    trained without the document's source."""
    from .versions import versions as current

    dt = DocText(pages)
    return _text_document(dt, text_reading(dt, ranker), source="text_layer", pages=len(pages),
                          versions=versions or current(), content_hash=content_hash)
