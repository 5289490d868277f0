"""The local reading (PdfExtractor, which the sandbox runs), and the check every document
passes before it is published, whichever extractor (ports/extractor.py) made it.

Whatever an extractor returns — a text over its column's width, NUL and other control
characters, lone surrogates, a 500-digit amount, 31 February, a currency that is not an ISO
4217 code — `conform` turns it into an `invoice-v2` document the database stores without
complaint: values are cleaned, or dropped with a review reason; nothing it returns can make a
publish fail. The document is rebuilt from the schema's own parts (only its keys, each value
checked for its type), so it satisfies `schemas/invoice-v2.schema.json` by construction; the
suite validates the port's output against that file for a generated corpus of hostile values.
A document whose structure is unusable (not an object, no fields, an unknown source) is an
`InvalidDocument`: the job fails with that code after its one call.
"""
from __future__ import annotations

import datetime as dt
import functools
import math
import re

import pycountry

from .. import __version__
from ..domain.cache import ExtractorVersions
from ..domain.text import printable as _text
from ..extraction.document import (
    AMOUNT_FIELDS,
    DATE_FIELDS,
    DOCUMENT_TYPES,
    FIELD_NAMES,
    SCHEMA_VERSION,
    SOURCES,
)
from ..extraction.errors import ExtractionError

LINE_ITEM_AMOUNTS = ("quantity", "unit_price", "net_amount", "vat_rate")
# Storage limits: the widths of the columns the results table copies (tables.results), and
# bounds for everything else so that one document stays a reasonable row.
TEXT_LIMITS = {"invoice_number": 200, "seller_name": 300, "buyer_name": 300,
               "seller_vat_id": 40, "buyer_vat_id": 40, "purchase_order": 200,
               "preceding_invoice_number": 200}
MAX_RAW, MAX_DESCRIPTION, MAX_DETAIL, MAX_REASON = 1000, 1000, 1000, 500
MAX_LINE_ITEMS, MAX_VALIDATIONS, MAX_REASONS = 1000, 200, 100
MAX_INTEGER_DIGITS, MAX_FRACTION_DIGITS = 18, 6  # fits NUMERIC(24, 6) and the 40-wide column
EARLIEST_YEAR, LATEST_YEAR = 1900, 2199           # an invoice dated outside is a misreading
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
_IBAN = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")
_RULE = re.compile(r"[A-Z][A-Z0-9-]*")
_STATUSES = ("pass", "fail", "skipped")


class PdfExtractor:
    """pdfminer.six text layer plus exact embedded e-invoice XML; Tesseract OCR for images and
    for PDF pages without a text layer (``ocr``: an extraction.ocr.OcrOptions). A reader
    (ports.extractor.Reader): the service runs it inside the sandbox (SandboxedExtractor)."""

    def __init__(self, use_embedded_xml: bool = True, ocr=None):
        from .. import extraction
        from ..extraction.ocr import OcrOptions

        self._extraction = extraction
        self.use_embedded_xml = use_embedded_xml
        self.ocr = ocr or OcrOptions()

    @functools.cached_property
    def versions(self) -> ExtractorVersions:
        """Computed when first asked (by the worker's side of the sandbox), not by each sandboxed
        child, which builds this reader again only to extract: OCR's identity reads package
        metadata and the language data's directory, a millisecond on every document's path."""
        extraction = self._extraction
        return ExtractorVersions(
            schema=extraction.SCHEMA_VERSION,
            preprocessing=extraction.preprocessing_version(self.ocr),
            model=extraction.MODEL_VERSION,
            model_config_digest=extraction.model_config_digest(
                use_embedded_xml=self.use_embedded_xml),
        )

    def extract(self, path: str, content_hash: str, *, pdf_document=None) -> dict:
        """`pdf_document`: the file's pdfminer document, parsed and checked already (the
        sandbox's pre-flight), which the extraction reads instead of parsing the file again."""
        return self._extraction.extract_pdf(path, content_hash=content_hash,
                                            use_embedded_xml=self.use_embedded_xml, ocr=self.ocr,
                                            pdf_document=pdf_document)


class InvalidDocument(ExtractionError):
    def __init__(self, message: str):
        super().__init__("invalid_document", message)


def conform(document, *, content_hash: str, versions: ExtractorVersions) -> dict:
    """The publishable form of `document` (see the module's docstring)."""
    if not isinstance(document, dict) or not isinstance(document.get("fields"), dict):
        raise InvalidDocument("the extractor returned no fields object")
    if document.get("source") not in SOURCES:
        raise InvalidDocument("the extractor returned an unknown source")
    reasons: list[str] = []
    pages = _pages(document.get("document"))
    fields = {name: _field(name, document["fields"].get(name), pages, reasons)
              for name in FIELD_NAMES}
    review = document.get("review") if isinstance(document.get("review"), dict) else {}
    given = [r for r in map(_text, _list(review.get("reasons"))) if r]
    reasons = [_clip(r, MAX_REASON) for r in given + reasons][:MAX_REASONS]
    return {
        "schema_version": SCHEMA_VERSION,
        "source": document["source"],
        "versions": {"schema": versions.schema, "preprocessing": versions.preprocessing,
                     "model": versions.model, "config": versions.model_config_digest,
                     # the release that made it; not part of the cache key
                     "service": __version__},
        "document": {"content_hash": content_hash, "pages": pages,
                     **_ocr_pages(document["document"], pages)},
        "fields": fields,
        "line_items": _line_items(document.get("line_items"), reasons),
        "validations": _validations(document.get("validations")),
        "review": {"required": bool(reasons) or review.get("required") is True,
                   "reasons": reasons or (["the extractor asked for review"]
                                          if review.get("required") is True else [])},
    }


def _pages(part) -> int:
    pages = part.get("pages") if isinstance(part, dict) else None
    # 0 for an e-invoice XML uploaded on its own: it has no pages
    if not isinstance(pages, int) or isinstance(pages, bool) or pages < 0:
        raise InvalidDocument("the extractor returned no page count")
    return pages


def _ocr_pages(part: dict, pages: int) -> dict:
    """`ocr_pages` where OCR read some pages: distinct page numbers of the document, in order."""
    given = part.get("ocr_pages")
    numbers = sorted({n for n in _list(given) if isinstance(n, int) and not isinstance(n, bool)
                      and 1 <= n <= pages})
    return {"ocr_pages": numbers} if numbers else {}


def _field(name: str, given, pages: int, reasons: list[str]) -> dict:
    given = given if isinstance(given, dict) else {}
    value, why = _value(name, given.get("value"))
    if why:
        reasons.append(f"{name}: {why}; dropped")
    elif name in TEXT_LIMITS and value is not None and value != " ".join(given["value"].split()):
        reasons.append(f"{name}: control or unencodable characters removed")
    page = given.get("page")
    return {"value": value,
            "confidence": _confidence(given.get("confidence")),
            "raw": _clip(_text(given.get("raw")), MAX_RAW),
            "page": page if isinstance(page, int) and not isinstance(page, bool)
            and 1 <= page <= pages else None,
            "bbox": _bbox(given.get("bbox"))}


def check_value(name: str, value) -> tuple[object, str | None]:
    """A field's value as a published document stores it, or None and why it cannot be
    (a correction is held to the same rules as an extraction)."""
    return _value(name, value)


def check_decimal(text: str) -> tuple[str | None, str | None]:
    """A decimal string as documents store it, or None and why not."""
    return _amount(text)


def _value(name: str, value) -> tuple[object, str | None]:
    """(the storable value or None, why it was dropped or None)."""
    if value is None:
        return None, None
    if not isinstance(value, str):
        return None, f"a {type(value).__name__} where text was expected"
    text = _text(value)
    if text is None:
        return None, "no printable characters" if value else None
    if name in AMOUNT_FIELDS:
        return _amount(text)
    if name in DATE_FIELDS:
        return _date(text)
    if name == "currency":
        code = text.upper()
        if len(code) == 3 and code.isascii() and pycountry.currencies.get(alpha_3=code):
            return code, None
        return None, f"{_shown(text)} is not an ISO 4217 currency code"
    if name == "document_type":
        if text in DOCUMENT_TYPES:
            return text, None
        return None, f"{_shown(text)} is not one of {', '.join(DOCUMENT_TYPES)}"
    if name == "iban":
        compact = text.replace(" ", "").upper()
        return (compact, None) if _IBAN.fullmatch(compact) else (None, "not an IBAN")
    limit = TEXT_LIMITS[name]
    if len(text) > limit:
        return None, f"longer than {limit} characters"
    return text, None


def _amount(text: str) -> tuple[str | None, str | None]:
    if not _DECIMAL.fullmatch(text):
        return None, f"{_shown(text)} is not a decimal number"
    whole, _, fraction = text.lstrip("-").partition(".")
    if len(whole) > MAX_INTEGER_DIGITS or len(fraction) > MAX_FRACTION_DIGITS:
        return None, (f"more than {MAX_INTEGER_DIGITS} digits before or "
                      f"{MAX_FRACTION_DIGITS} after the point")
    return text, None


def _date(text: str) -> tuple[str | None, str | None]:
    try:
        day = dt.date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        day = None
    if day is None or text != day.isoformat():
        return None, f"{_shown(text)} is not a calendar date"
    if not EARLIEST_YEAR <= day.year <= LATEST_YEAR:
        return None, f"{text} is outside {EARLIEST_YEAR}-{LATEST_YEAR}"
    return text, None


def _decimal_or_none(value) -> str | None:
    if not isinstance(value, str):
        return None
    kept, why = _amount(value.strip())
    return None if why else kept


def _line_items(items, reasons: list[str]) -> list[dict]:
    items = [i for i in _list(items) if isinstance(i, dict)]
    if len(items) > MAX_LINE_ITEMS:
        reasons.append(f"line_items: more than {MAX_LINE_ITEMS}; the rest dropped")
    return [{"description": _clip(_text(item.get("description")), MAX_DESCRIPTION),
             **{key: _decimal_or_none(item.get(key)) for key in LINE_ITEM_AMOUNTS}}
            for item in items[:MAX_LINE_ITEMS]]


def _validations(checks) -> list[dict]:
    kept = []
    for check in _list(checks)[:MAX_VALIDATIONS]:
        if not isinstance(check, dict):
            continue
        rule = check.get("rule")
        if (isinstance(rule, str) and _RULE.fullmatch(rule) and len(rule) <= 40
                and check.get("status") in _STATUSES):
            kept.append({"rule": rule, "status": check["status"],
                         "detail": _clip(_text(check.get("detail")), MAX_DETAIL) or ""})
    return kept


def _confidence(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0.0
    return min(1.0, max(0.0, float(value)))


def _bbox(value):
    if (isinstance(value, list) and len(value) == 4
            and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    and math.isfinite(v) for v in value)):
        return [float(v) for v in value]
    return None


def _clip(text: str | None, limit: int) -> str | None:
    return text[:limit] if text else text


def _shown(text: str) -> str:
    return repr(_clip(text, 40))


def _list(value) -> list:
    return value if isinstance(value, list) else []
