"""OCR, the source of scans and photos: they become the same positioned-text model a PDF's text
layer gives (``extraction.model``).

Public interface::

    read_image(path, options) -> list[Page]           # JPEG, PNG, TIFF (every page), WebP, HEIF
    pages_to_ocr(path, pages) -> list[int]            # PDF pages whose text layer is missing
    read_pdf_pages(path, numbers, options) -> list[Page]   # those pages, rendered and read
    fingerprint(options) -> dict; preprocessing_version(text_layer_version, options) -> str
    OcrOptions, warm(options), in_progress()

Pages are the model's ``Page``; their lines are its ``Line`` with ``confidences`` (one per
character: the recognition confidence of its word; see ``lines.py``). The pipeline decides
which pages are read here. Errors are :class:`ExtractionError` with these codes:
``image_malformed`` (truncated or corrupt), ``image_too_large`` (pixel limit: the
decompression-bomb guard), ``image_too_many_pages`` (page limit), ``image_resolution_too_low``
(under 70 dpi: nothing legible), ``ocr_unavailable`` (Tesseract or its language data missing).
The sandbox adds ``ocr_timeout`` when the time limit ends a document during OCR.
"""
from __future__ import annotations

from .identity import OCR_PIPELINE_VERSION, fingerprint, preprocessing_tag, preprocessing_version
from .options import OcrOptions

__all__ = [
    "OCR_PIPELINE_VERSION", "OcrOptions", "fingerprint", "in_progress", "pages_to_ocr",
    "preprocessing_tag", "preprocessing_version", "read_image", "read_pdf_pages", "warm",
]
_READING = ("in_progress", "pages_to_ocr", "read_image", "read_pdf_pages", "warm")


def __getattr__(name: str):
    # Reading loads pdfminer, PIL and Tesseract (``reading``); a process that only computes the
    # cache key (an API process) never asks for it, and so never loads them.
    if name in _READING:
        from . import reading

        return getattr(reading, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
