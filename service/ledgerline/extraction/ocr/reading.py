"""Reading pages by OCR: images, and the PDF pages whose text layer is missing."""
from __future__ import annotations

import contextlib
import os

from ..model import Page
from ..sources.pdf_text import CID_SHARE, MIN_TEXT_CHARS
from .coverage import unread_share
from .engine import engine_for, legible_characters
from .illumination import flatten, without_grain
from .images import Frame, frames
from .lines import page_from_result
from .options import OcrOptions
from .outline import flattened_page
from .polarity import dark_on_light
from .region import PagePicture, reader
from .text_size import enlarge_small_text

SPARSE_TEXT_CHARS = 200  # a page with less text than this may be a scan with a stamped line
SCAN_COVERAGE = 0.5  # ... and is one when pictures cover half of it
# A reading that left more than this share of the page's characters under no word is read again
# from the page without its paper's grain (``coverage``, ``illumination.without_grain``). Over
# generated scans at 150-300 dpi the share is 0.01-0.05; phone photos whose tables went unread
# 0.57-0.95.
RETRY_UNREAD_SHARE = 0.1
# A page cut from its desk (a phone photo) is read again wherever any of its text went unread:
# its paper's grain makes Tesseract drop a table's header row or a column's figures where only a
# few per cent of the page go unread (0.02-0.08 on generated photos whose tables then lost
# items), and the reading without the grain is kept only where it is the better one. Scans pay
# nothing for it: they are held to the share above.
RETRY_UNREAD_SHARE_PHOTO = 0.0

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
            pages.append(_read_frame(engine, frame, options))
            _keep_first_and_last_pictures(pages)
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
            pages.append(_read_frame(engine, frame, options))
            _keep_first_and_last_pictures(pages)
    return pages


def _keep_first_and_last_pictures(pages: list[Page]) -> None:
    """Of the pages read so far, only the first and the last keep their picture to be read
    again (region.py): a seller's name is read from the letterhead of the first or the footer of
    the last, and a long scan's pictures would take the extraction's memory (a 300 dpi page is
    9 MB or more)."""
    if len(pages) > 2 and isinstance(pages[-2].read_again, PagePicture):
        pages[-2].read_again.close()
        pages[-2].read_again = None


def _read_frame(engine, frame: Frame, options: OcrOptions) -> Page:
    """One page: a photographed page cut from its desk and squared, light text on dark bands
    turned dark on light, the lighting flattened, its text enlarged where it is too small to
    read well, then recognised (again without the paper's grain where much of its text went
    unread); it keeps its picture to be read again, and says whether it was taken for a photo
    (:attr:`..model.Page.photo`: cut from its desk, or read again without its grain)."""
    page = flattened_page(frame.image, frame.dpi)
    photo = page is not frame.image  # flattened_page returns the picture itself for a scan
    upright = dark_on_light(page, frame.dpi)
    even = flatten(upright, frame.dpi)
    image, dpi = enlarge_small_text(even, frame.dpi, options.max_pixels)
    result = engine.read(image, dpi, analysis=upright)
    pictures = [image, even, upright, page, frame.image, result.picture]
    unread = unread_share(result.picture, result.words, dpi) if result.picture else 0.0
    if unread > (RETRY_UNREAD_SHARE_PHOTO if photo else RETRY_UNREAD_SHARE):
        photo = True  # read as a photo whose tables went unread, whichever reading is kept
        clean = without_grain(image)
        again = engine.read(clean, dpi, analysis=upright)
        pictures += [clean, again.picture]
        # of the two readings, the one with more letters and digits read with some assurance
        if (len(legible_characters(again.words)) > len(legible_characters(result.words))
                and again.picture is not None
                and unread_share(again.picture, again.words, dpi) < unread):
            result = again
    for done in {id(im): im for im in pictures if im is not None}.values():
        if done is not result.picture:  # kept for a second reading of a region (region.py)
            done.close()
    out = page_from_result(result, frame.number, dpi)
    out.read_again = reader(result, dpi, engine.second)
    out.photo = photo
    return out


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
            try:
                page = pdf[number - 1]
            except pdfium.PdfiumError:
                # pdfminer read a page PDFium cannot load: no pictures measured, so its text
                # layer stands (and OCR could not render it either)
                continue
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


def warm(options: OcrOptions) -> None:
    """Load the engine for these options now (the fork server does, for its children)."""
    engine_for(options.tesseract_languages)
