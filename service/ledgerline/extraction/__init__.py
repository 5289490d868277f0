"""Invoice extraction: e-invoice XML (UBL, CII, KSeF) on its own or embedded in a PDF, the PDF
text layer always, OCR (``ocr/``) for scans and photos and for PDF pages without a text layer.

Public interface used by the rest of the service::

    extract_pdf(path, *, content_hash, use_embedded_xml=True, ocr=None,
                pdf_document=None) -> dict   # invoice-v2 document of the PDF, image or
                        # e-invoice XML at path (told by content)
    preprocessing_version(ocr=None) -> str   # PREPROCESSING_VERSION + the OCR engine's tag
    ExtractionError(code, message, transient=False)
    parse_pdf(path) -> ParsedPdf                # the PDF text-layer source alone
    SCHEMA_VERSION, PREPROCESSING_VERSION, MODEL_VERSION, MODEL_CONFIG, model_config_digest()

The cache key of a result includes the three versions and the digest of MODEL_CONFIG
(``versions.py``, which says when to bump them). Importing this package loads none of the
extraction's libraries: ``extract_pdf`` and ``parse_pdf`` load them on their first call.
"""

from __future__ import annotations

import os

from .document import SCHEMA_VERSION
from .errors import ExtractionError
from .sources.pdf_layout import MAX_PAGES
from .versions import (
    MODEL_CONFIG,
    MODEL_VERSION,
    PREPROCESSING_VERSION,
    model_config_digest,
    preprocessing_version,
    versions,
)

__all__ = [
    "MODEL_CONFIG",
    "MODEL_VERSION",
    "PREPROCESSING_VERSION",
    "SCHEMA_VERSION",
    "ExtractionError",
    "extract_pdf",
    "model_config_digest",
    "parse_pdf",
    "preprocessing_version",
    "versions",
]


def parse_pdf(path: str | os.PathLike, *, max_pages: int = MAX_PAGES):
    """The PDF text-layer source alone (``sources.pdf_text.parse_pdf``)."""
    from .sources.pdf_text import parse_pdf as parse

    return parse(path, max_pages=max_pages)


def extract_pdf(
    path: str | os.PathLike, *, content_hash: str, use_embedded_xml: bool = True, ocr=None,
    pdf_document=None,
) -> dict:
    """Extract the invoice-v2 document from the PDF, image or e-invoice XML at ``path`` (told by
    content); ``ocr`` is an :class:`ocr.OcrOptions` (default: every language, 300 dpi).
    ``pdf_document``: a PDF's pdfminer document, parsed already and open (the sandbox's
    pre-flight parsed and checked it), read instead of parsing the file a second time.

    Raises :class:`ExtractionError` for unusable input (``no_text_layer``, ``pdf_encrypted``,
    ``pdf_malformed``, ``pdf_too_large``, ``file_not_found``; for images ``image_malformed``,
    ``image_too_large``, ``image_too_many_pages``, ``image_resolution_too_low``,
    ``ocr_unavailable``; for XML ``xml_malformed``, ``xml_too_large``, ``xml_too_deep``,
    ``xml_too_many_attributes``, ``xml_name_too_long``, ``xml_external_entity``,
    ``xml_entity_expansion``, ``xml_dtd_refused``, ``xml_not_an_invoice``).
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
        pdf_document=pdf_document,
    )
