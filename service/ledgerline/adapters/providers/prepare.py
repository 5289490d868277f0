"""Local preparation for a hosted provider, run inside the sandbox like any other parser.

Before a paid call, the worker needs what only parsing the file can tell: the page count (the
ledger's cost estimate, the choice of Textract operation), each page's size (to turn the
provider's page-relative geometry into the document's PDF points), the positioned text of
every page (what a chat model reads), and for a provider that takes bytes rather than a stored
object, each page as an image. Parsing strangers' files is the sandbox's job, so this runs in
its child with the same limits; the result crosses back as plain data.

An e-invoice XML, on its own or embedded in the PDF, states the invoice exactly: it is read by
the local reader and no provider is paid to guess it (`document` in the result).
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from ...domain.cache import ExtractorVersions
from ...extraction.errors import ExtractionError
from ...formats import Format, detect_file

RENDER_DPI = 150           # page images for a provider that takes bytes: legible, under 5 MB
POINTS_PER_INCH = 72
MAX_IMAGE_PIXELS = 50_000_000  # a decoded upload beyond this is a bomb, not an invoice


@dataclass(frozen=True)
class Prepared:
    format: str
    pages: list                 # [{"number", "width", "height", "lines": [[text, x0, y0, x1, y1]]}]
    page_images: list | None = None   # PNG bytes per page, when asked for
    document: dict | None = None      # the exact result of an e-invoice XML: no provider call

    @property
    def page_count(self) -> int:
        return len(self.pages)

    @classmethod
    def from_dict(cls, data: dict) -> Prepared:
        return cls(**data)


@dataclass(frozen=True)
class Preparer:
    """Picklable: the sandbox rebuilds it in its child."""
    versions: ExtractorVersions
    page_images: bool = False
    use_embedded_xml: bool = True

    def extract(self, path: str, content_hash: str) -> dict:
        fmt = detect_file(path)
        if fmt is Format.XML:
            return _exact(path, content_hash, self.use_embedded_xml)
        if fmt.is_image:
            return _image(path, fmt, self.page_images)
        if fmt is not Format.PDF:
            raise ExtractionError("unsupported_format", f"cannot read a {fmt.value} file")
        return self._pdf(path, content_hash)

    def _pdf(self, path: str, content_hash: str) -> dict:
        from ...extraction.sources.einvoice_xml import pick_invoice_attachment
        from ...extraction.sources.pdf_text import parse_pdf

        parsed = parse_pdf(path)
        if self.use_embedded_xml and pick_invoice_attachment(parsed.attachments) is not None:
            return _exact(path, content_hash, True)
        pages = [{"number": p.number, "width": float(p.width), "height": float(p.height),
                  "lines": [[ln.text, ln.x0, ln.y0, ln.x1, ln.y1] for ln in p.lines]}
                 for p in parsed.pages]
        images = _render_pdf(path, len(pages)) if self.page_images else None
        return {"format": Format.PDF.value, "pages": pages, "page_images": images}


def _exact(path: str, content_hash: str, use_embedded_xml: bool) -> dict:
    from ... import extraction

    document = extraction.extract_pdf(path, content_hash=content_hash,
                                      use_embedded_xml=use_embedded_xml)
    return {"format": "xml", "pages": [], "document": document}


def _image(path: str, fmt: Format, as_png: bool) -> dict:
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS  # Pillow raises DecompressionBombError beyond
    try:
        with Image.open(path) as image:
            width, height = image.size
            if width * height > MAX_IMAGE_PIXELS:
                raise ExtractionError("image_too_large", f"{width} x {height} pixels")
            png = None
            if as_png:
                buffer = io.BytesIO()
                image.convert("RGB").save(buffer, format="PNG")
                png = [buffer.getvalue()]
    except ExtractionError:
        raise
    except Exception as exc:  # Pillow raises many kinds of error on a broken image
        raise ExtractionError("image_malformed", f"cannot read the image: {type(exc).__name__}"
                              ) from exc
    # An image has no text layer; its pixels stand for points, one to one.
    page = {"number": 1, "width": float(width), "height": float(height), "lines": []}
    return {"format": fmt.value, "pages": [page], "page_images": png}


def _render_pdf(path: str, page_count: int | None = None) -> list[bytes]:
    import pypdfium2

    from ...extraction.ocr.render import load_page, open_pdf

    # pdfminer may read a page tree that PDFium refuses or counts otherwise: the file is as bad
    # as one PDFium cannot open, and no provider is paid to look at pictures that do not match
    # the pages it was estimated and mapped by.
    pdf = open_pdf(path)
    try:
        if page_count is not None and len(pdf) != page_count:
            raise ExtractionError("pdf_malformed", f"the page tree has {page_count} pages to "
                                  f"one reader and {len(pdf)} to the renderer")
        images = []
        for number in range(1, len(pdf) + 1):
            page = load_page(pdf, number)
            try:
                bitmap = page.render(scale=RENDER_DPI / POINTS_PER_INCH)
            except pypdfium2.PdfiumError as exc:
                raise ExtractionError("pdf_malformed",
                                      f"cannot render page {number}: {exc}") from exc
            buffer = io.BytesIO()
            bitmap.to_pil().save(buffer, format="PNG")
            images.append(buffer.getvalue())
            page.close()
        return images
    finally:
        pdf.close()
