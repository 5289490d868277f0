"""Invoice extraction: embedded e-invoice XML (CII / UBL) when present, the PDF text layer always,
OCR (``ocr/``) for scans and photos and for PDF pages without a text layer.

Public interface used by the rest of the service::

    extract_pdf(path, *, content_hash, use_embedded_xml=True, ocr=None) -> dict   # invoice-v1
    preprocessing_version(ocr=None) -> str   # PREPROCESSING_VERSION + the OCR engine's tag
    ExtractionError(code, message, transient=False)
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

from .document import SCHEMA_VERSION
from .errors import ExtractionError
from .pdf import LAYOUT_PARAMS, MAX_PAGES

PREPROCESSING_VERSION = "pdfminer-lines-2026.11.2"
MODEL_VERSION = "rules-2026.11.2"
MODEL_CONFIG: dict = {
    "embedded_xml": True,
    "xml_syntaxes": ["CII", "CII-ZUGFeRD1", "UBL"],
    "text_layer_cross_check": True,
    "languages": ["en", "de", "fr", "es", "nl", "it"],
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
    """Extract the invoice-v1 document from the PDF or image at ``path`` (told by content);
    ``ocr`` is an :class:`ocr.OcrOptions` (default: every language, 300 dpi).

    Raises :class:`ExtractionError` for unusable input (``no_text_layer``, ``pdf_encrypted``,
    ``pdf_malformed``, ``pdf_too_large``, ``file_not_found``).
    """
    from .pipeline import extract

    if not isinstance(content_hash, str) or not content_hash.startswith("blake3:"):
        raise ValueError("content_hash must look like 'blake3:<hex>'")
    return extract(
        path,
        content_hash=content_hash,
        use_embedded_xml=use_embedded_xml,
        versions=versions(),
        ocr_options=ocr,
    )
