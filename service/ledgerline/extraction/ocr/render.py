"""PDF pages without a text layer, rendered to greyscale images for OCR (PDFium).

The structural pre-flight has already bounded what the file's streams and images decode to; the
one size left is the bitmap itself, the page's area times the DPI squared. A page too large for
the pixel limit at the configured DPI is rendered at the DPI that fits, and refused when even
that would be too coarse to read.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from ..errors import ExtractionError
from .images import MIN_READABLE_DPI, NATIVE_DPI_FLOOR, Frame
from .options import OcrOptions

POINTS_PER_INCH = 72.0


def render_pages(path: str, numbers: Iterable[int], options: OcrOptions) -> Iterator[Frame]:
    """Frames of the given 1-based page numbers, rendered at the configured DPI or below."""
    pdf = open_pdf(path)
    try:
        for number in numbers:
            page = load_page(pdf, number)
            try:
                frame = _render(page, number, options)  # its image a copy: the page may close
            finally:
                page.close()
            yield frame
    finally:
        pdf.close()


def open_pdf(path: str):
    """PDFium's document, or ExtractionError ``pdf_malformed`` where PDFium refuses the file."""
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        raise ExtractionError("pdf_malformed", f"cannot render the PDF: {exc}") from exc


def load_page(pdf, number: int):
    """PDFium's page ``number`` (1-based). pdfminer may read a page tree that PDFium refuses,
    page by page: such a page is a bad file, as when the whole document cannot be opened."""
    import pypdfium2 as pdfium

    try:
        return pdf[number - 1]
    except pdfium.PdfiumError as exc:
        raise ExtractionError("pdf_malformed", f"cannot render page {number}: {exc}") from exc


def render_dpi(width_pt: float, height_pt: float, options: OcrOptions,
               scan_dpi: float | None = None) -> float:
    """The resolution of the page's own scan (between ``NATIVE_DPI_FLOOR`` and the configured
    DPI; the configured DPI where it is unknown), lowered to keep the bitmap within the pixel
    limit: rendering a 200 dpi scan at 300 dpi adds pixels, not detail."""
    square_inches = (width_pt / POINTS_PER_INCH) * (height_pt / POINTS_PER_INCH)
    if square_inches <= 0:
        raise ExtractionError("pdf_malformed", "a page has no area")
    wanted = float(options.dpi)
    if scan_dpi:
        wanted = min(wanted, max(scan_dpi, min(NATIVE_DPI_FLOOR, wanted)))
    dpi = min(wanted, math.sqrt(options.max_pixels / square_inches))
    if dpi < MIN_READABLE_DPI:
        raise ExtractionError("image_too_large", f"a page of {width_pt:.0f}x{height_pt:.0f} "
                              f"points cannot be rendered within {options.max_pixels:,} pixels "
                              f"at a readable resolution ({MIN_READABLE_DPI} dpi)")
    return dpi


def scan_resolution(page) -> float | None:
    """Pixels per inch of the largest picture on the page, as placed: the scan's resolution."""
    from pypdfium2 import raw

    best, area = None, 0.0
    for obj in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE], max_depth=4):
        left, bottom, right, top = obj.get_bounds()
        width_pt, height_pt = right - left, top - bottom
        try:
            width_px, _ = obj.get_px_size()
        except Exception:  # noqa: BLE001, S112 - an image PDFium cannot size says nothing
            continue
        if width_pt > 0 and height_pt > 0 and width_pt * height_pt > area:
            best, area = width_px / (width_pt / POINTS_PER_INCH), width_pt * height_pt
    return best


def _render(page, number: int, options: OcrOptions) -> Frame:
    import pypdfium2 as pdfium

    width, height = page.get_size()  # points, after /Rotate: what a reader sees
    dpi = render_dpi(width, height, options, scan_resolution(page))
    try:
        bitmap = page.render(scale=dpi / POINTS_PER_INCH, grayscale=True,
                             may_draw_forms=True)
    except pdfium.PdfiumError as exc:
        raise ExtractionError("pdf_malformed", f"cannot render page {number}: {exc}") from exc
    image = bitmap.to_pil().convert("L")
    # The bitmap's size is rounded to whole pixels: its true scale keeps points exact.
    return Frame(image=image, dpi=image.size[0] / (width / POINTS_PER_INCH), number=number)
