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

import contextlib
import hashlib
import json
import os

import blake3

from ..model import Page
from ..sources.pdf_text import CID_SHARE, MIN_TEXT_CHARS
from .engine import engine_for, installed_languages, tessdata_dir, tesseract_version
from .images import frames
from .lines import page_from_result
from .options import OcrOptions

__all__ = [
    "OcrOptions", "fingerprint", "in_progress", "pages_to_ocr", "preprocessing_tag",
    "preprocessing_version", "read_image", "read_pdf_pages", "warm",
]

# Bump when preprocessing changes what OCR reads (scaling, OSD, deskew, line building).
OCR_PIPELINE_VERSION = "ocr-2026.12.1"
SPARSE_TEXT_CHARS = 200  # a page with less text than this may be a scan with a stamped line
SCAN_COVERAGE = 0.5  # ... and is one when pictures cover half of it

_running = 0


def in_progress() -> bool:
    """Whether this process is reading pages, or was stopped by a signal while it did (the
    sandbox names a timeout after what it ended)."""
    return _running > 0


@contextlib.contextmanager
def _reading():
    global _running
    _running += 1
    try:
        yield
    except Exception:
        _running -= 1
        raise
    else:
        _running -= 1
    # A BaseException (the sandbox's alarm or CPU limit) leaves the count up on purpose.


def read_image(path: str | os.PathLike, options: OcrOptions) -> list[Page]:
    """Every page of an image file, read by OCR."""
    engine = engine_for(options.tesseract_languages)
    pages = []
    with _reading():
        for frame in frames(os.fspath(path), options):
            result = engine.read(frame.image, frame.dpi)
            pages.append(page_from_result(result, frame.number, frame.dpi))
            frame.image.close()
    return pages


def read_pdf_pages(path: str | os.PathLike, numbers: list[int], options: OcrOptions
                   ) -> list[Page]:
    """The given pages of a PDF, rendered at the configured DPI and read by OCR."""
    from .render import render_pages

    if len(numbers) > options.max_pages:
        from ..errors import ExtractionError

        raise ExtractionError("image_too_many_pages", f"{len(numbers)} pages need OCR; the "
                              f"limit is {options.max_pages}")
    engine = engine_for(options.tesseract_languages)
    pages = []
    with _reading():
        for frame in render_pages(os.fspath(path), numbers, options):
            result = engine.read(frame.image, frame.dpi)
            page = page_from_result(result, frame.number, frame.dpi)
            pages.append(page)
            frame.image.close()
    return pages


def pages_to_ocr(path: str | os.PathLike, pages: list[Page]) -> list[int]:
    """Numbers of the pages whose text layer is missing or unreadable: those OCR reads.

    A page with almost no text is read; so is one with little text where pictures cover most of
    it (a scan with a scanner's line of text stamped on it). A page whose text is mostly glyphs
    without Unicode mapping (``(cid:12)``) has a text layer no reader can use.
    """
    sparse = {}
    chosen = []
    for page in pages:
        text = "".join(ln.text for ln in page.lines)
        chars = len("".join(text.split()))
        # as the text-layer source: too little text, or too many unmapped glyphs, is none
        if chars < MIN_TEXT_CHARS or text.count("(cid:") * CID_SHARE >= chars:
            chosen.append(page.number)
        elif chars < SPARSE_TEXT_CHARS:
            sparse[page.number] = page
    if sparse:
        coverage = _image_coverage(os.fspath(path), list(sparse))
        chosen += [n for n in sparse if coverage.get(n, 0.0) >= SCAN_COVERAGE]
    return sorted(chosen)


def _image_coverage(path: str, numbers: list[int]) -> dict[int, float]:
    """Share of each page's area that images cover (PDFium's view of the page objects)."""
    import pypdfium2 as pdfium
    from pypdfium2 import raw

    out: dict[int, float] = {}
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError:
        return out
    try:
        for number in numbers:
            page = pdf[number - 1]
            width, height = page.get_size()
            covered = 0.0
            for obj in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE], max_depth=4):
                left, bottom, right, top = obj.get_bounds()
                w = max(0.0, min(right, width) - max(left, 0.0))
                h = max(0.0, min(top, height) - max(bottom, 0.0))
                covered += w * h
            out[number] = min(1.0, covered / max(width * height, 1.0))
            page.close()
    finally:
        pdf.close()
    return out


def fingerprint(options: OcrOptions) -> dict:
    """Everything about OCR that changes what it reads: engine, version, data, settings."""
    import tesserocr

    languages = options.tesseract_languages
    return {
        "engine": "tesseract",
        "version": tesseract_version(),
        "binding": f"tesserocr {tesserocr.__version__}",
        "languages": languages,
        "data": _data_digests(tuple(languages.split("+")) + ("osd",)),
        "dpi": options.dpi,
        "max_pixels": options.max_pixels,
        "pipeline": OCR_PIPELINE_VERSION,
    }


def preprocessing_tag(options: OcrOptions) -> str:
    """A short, readable tag for the preprocessing version: engine, version and a digest."""
    blob = json.dumps(fingerprint(options), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(blob.encode()).hexdigest()[:12]
    return f"tesseract-{tesseract_version()}-{options.dpi}dpi-{digest}"


def preprocessing_version(text_layer: str, options: OcrOptions | None) -> str:
    """The text layer's preprocessing version with OCR's tag: ``pdfminer-…+tesseract-…``."""
    return f"{text_layer}+{preprocessing_tag(options or OcrOptions())}"


_digests: dict[tuple, dict] = {}


def _data_digests(languages: tuple[str, ...]) -> dict:
    """A digest of each language file: new data from the distribution is a new preprocessing."""
    got = _digests.get(languages)
    if got is None:
        try:
            directory = tessdata_dir()
        except Exception:  # noqa: BLE001 - no data: the digest says so, OCR itself will refuse
            return {lang: "missing" for lang in languages}
        have = installed_languages(directory)
        got = {}
        for lang in languages:
            if lang not in have:
                got[lang] = "missing"
                continue
            digest = blake3.blake3()
            digest.update_mmap(os.path.join(directory, f"{lang}.traineddata"))
            got[lang] = digest.hexdigest()[:16]
        _digests[languages] = got
    return got


def warm(options: OcrOptions) -> None:
    """Load the engine for these options now (the fork server does, for its children)."""
    engine_for(options.tesseract_languages)
