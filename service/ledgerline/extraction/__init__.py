"""Invoice extraction: e-invoice XML (UBL, CII, KSeF) on its own or embedded in a PDF, the PDF
text layer always, OCR (``ocr/``) for scans and photos and for PDF pages without a text layer.

Public interface used by the rest of the service::

    extract_pdf(path, *, content_hash, use_embedded_xml=True, ocr=None) -> dict   # invoice-v1
                        # document of the PDF, image or e-invoice XML at path (told by content)
    preprocessing_version(ocr=None) -> str   # PREPROCESSING_VERSION + the OCR engine's tag
    ExtractionError(code, message, transient=False)
    parse_pdf(path) -> ParsedPdf                # the PDF text-layer source alone
    SCHEMA_VERSION, PREPROCESSING_VERSION, MODEL_VERSION, MODEL_CONFIG, model_config_digest()

The cache key of a result includes the three versions and the digest of MODEL_CONFIG: bump
PREPROCESSING_VERSION when text preprocessing changes (pdfminer parameters, line building,
normalisation) and MODEL_VERSION when extraction logic changes. The OCR engine, its version,
language data and DPI enter the preprocessing version of the cache key through
``preprocessing_version``, and that of a document that OCR read.
"""

from __future__ import annotations

import hashlib
import json
import os

import pdfminer
import stdnum

from .checks.schematron import RULESET_VERSION
from .document import SCHEMA_VERSION
from .errors import ExtractionError
from .ranker.model import FORMAT as RANKER_FORMAT
from .ranker.model import model_digest
from .sources.pdf_text import LAYOUT_PARAMS, MAX_PAGES, parse_pdf
from .vocabulary import LANGUAGES

PREPROCESSING_VERSION = "pdfminer-lines-2026.11.2"
MODEL_VERSION = "ranker-2026.12.1"
MODEL_CONFIG: dict = {
    # the learned ranker's file: another model, another cache key
    "ranker": {"format": RANKER_FORMAT, "sha256": model_digest()},
    "embedded_xml": True,
    "xml_syntaxes": ["CII", "CII-ZUGFeRD1", "UBL", "KSeF"],
    "official_rules": RULESET_VERSION,  # the EN 16931 / XRechnung schematron run on the XML
    "python_stdnum": stdnum.__version__,  # VAT number checksums
    "text_layer_cross_check": True,
    "languages": list(LANGUAGES),
    # line-item tables read by header geometry, arithmetic and net amounts of gross lines
    "line_items": "header-geometry-1",
    "layout": dict(LAYOUT_PARAMS),
    "max_pages": MAX_PAGES,
    "pdfminer": getattr(pdfminer, "__version__", "unknown"),
}

__all__ = [
    "SCHEMA_VERSION",
    "PREPROCESSING_VERSION",
    "MODEL_VERSION",
    "MODEL_CONFIG",
    "ExtractionError",
    "extract_pdf",
    "model_config_digest",
    "parse_pdf",
    "preprocessing_version",
    "versions",
]


def model_config_digest(*, use_embedded_xml: bool = True) -> str:
    """Stable hex digest of MODEL_CONFIG (sorted-keys JSON, SHA-256).

    ``use_embedded_xml=False`` gives the digest of the configuration that ignores embedded XML,
    for callers whose cache key must tell the two modes apart; the default is MODEL_CONFIG as is.
    """
    config = dict(MODEL_CONFIG)
    if not use_embedded_xml:
        config["embedded_xml"] = False
    blob = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def preprocessing_version(ocr=None) -> str:
    """The preprocessing part of the cache key: the text layer's and the OCR engine's."""
    from . import ocr as ocr_package

    return ocr_package.preprocessing_version(PREPROCESSING_VERSION, ocr)


def versions() -> dict:
    return {
        "schema": SCHEMA_VERSION,
        "preprocessing": PREPROCESSING_VERSION,
        "model": MODEL_VERSION,
    }


def extract_pdf(
    path: str | os.PathLike, *, content_hash: str, use_embedded_xml: bool = True, ocr=None
) -> dict:
    """Extract the invoice-v1 document from the PDF, image or e-invoice XML at ``path`` (told by
    content); ``ocr`` is an :class:`ocr.OcrOptions` (default: every language, 300 dpi).

    Raises :class:`ExtractionError` for unusable input (``no_text_layer``, ``pdf_encrypted``,
    ``pdf_malformed``, ``pdf_too_large``, ``file_not_found``; for images ``image_malformed``,
    ``image_too_large``, ``image_too_many_pages``, ``image_resolution_too_low``,
    ``ocr_unavailable``; for XML ``xml_malformed``, ``xml_too_large``, ``xml_too_deep``,
    ``xml_external_entity``, ``xml_entity_expansion``, ``xml_dtd_refused``,
    ``xml_not_an_invoice``).
    """
    from ..formats import Format, detect_file
    from .pipeline import extract, extract_xml

    if not isinstance(content_hash, str) or not content_hash.startswith("blake3:"):
        raise ValueError("content_hash must look like 'blake3:<hex>'")
    try:
        kind = detect_file(path)
    except OSError:
        kind = Format.PDF  # the PDF source reports the missing file
    if kind is Format.XML:
        return extract_xml(path, content_hash=content_hash, versions=versions())
    return extract(
        path,
        content_hash=content_hash,
        use_embedded_xml=use_embedded_xml,
        versions=versions(),
        image=kind.is_image,
        ocr_options=ocr,
    )
