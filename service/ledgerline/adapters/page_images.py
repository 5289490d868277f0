"""Pages of an original as PNG images for the review screen, rendered by PDFium (pypdfium2)
and kept on disk, one file per page: a page is rendered once, whoever looks at it again.

The cache is keyed by the original's content hash inside its account, so two accounts never
share a file, and it is read only after the caller was authorised for the invoice
(service_layer/page_images.py). Alongside each PNG: the page's size in PDF points, which the
screen's boxes (a field's `bbox`, PDF points from the bottom left) are drawn in.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

RENDER_DPI = 110
POINTS_PER_INCH = 72.0
# A page is drawn with at most this many pixels, whatever size its MediaBox claims.
MAX_PIXELS = 12_000_000
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Page:
    number: int
    width: float   # PDF points
    height: float


class PageCache:
    def __init__(self, root: str | None = None):
        self.root = Path(root or tempfile.gettempdir()) / "ledgerline-pages"

    def _dir(self, account: str, content_hash: str) -> Path:
        digest = hashlib.sha256(f"{account}\0{content_hash}".encode()).hexdigest()
        return self.root / digest[:2] / digest

    def pages(self, account: str, content_hash: str) -> list[Page] | None:
        """The rendered pages, or None until rendered."""
        index = self._dir(account, content_hash) / "pages.json"
        if not index.is_file():
            return None
        return [Page(**p) for p in json.loads(index.read_text())]

    def png(self, account: str, content_hash: str, number: int) -> Path | None:
        path = self._dir(account, content_hash) / f"{number}.png"
        return path if path.is_file() else None

    def render(self, account: str, content_hash: str, original: Path, kind: str) -> list[Page]:
        """Render every page of the original (a PDF or an image) into the cache."""
        target = self._dir(account, content_hash)
        work = Path(tempfile.mkdtemp(dir=self._ensure(target.parent)))
        try:
            try:
                pages = (_render_pdf if kind == "pdf" else _render_image)(original, work)
            except Exception as exc:  # noqa: BLE001 - a file the renderer cannot draw
                # The extraction read it (in its sandbox), but PDFium or Pillow may still
                # refuse it: the screen shows the fields without pages, and does not retry.
                log.warning("pages of %s could not be drawn: %s", content_hash,
                            type(exc).__name__)
                pages = []
            (work / "pages.json").write_text(json.dumps([p.__dict__ for p in pages]))
            try:
                os.rename(work, target)  # all pages at once; a concurrent render may win
            except OSError:
                pass
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return self.pages(account, content_hash) or pages

    @staticmethod
    def _ensure(path: Path) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        return path


def _render_pdf(original: Path, out: Path) -> list[Page]:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(original))
    pages = []
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            width, height = page.get_size()
            scale = min(RENDER_DPI / POINTS_PER_INCH,
                        math.sqrt(MAX_PIXELS / max(width * height, 1.0)))
            bitmap = page.render(scale=scale)
            bitmap.to_pil().save(out / f"{index + 1}.png", optimize=True)
            pages.append(Page(index + 1, round(width, 2), round(height, 2)))
            page.close()
    finally:
        pdf.close()
    return pages


def _render_image(original: Path, out: Path) -> list[Page]:
    """A scan or photo: each frame as it is, its size in points at its own resolution (the
    one OCR read it at when the file does not say)."""
    from PIL import Image, ImageSequence

    pages = []
    with Image.open(original) as image:
        dpi = float((image.info.get("dpi") or (POINTS_PER_INCH,))[0]) or POINTS_PER_INCH
        for number, frame in enumerate(ImageSequence.Iterator(image), 1):
            buffer = io.BytesIO()
            frame.convert("RGB").save(buffer, format="PNG")
            (out / f"{number}.png").write_bytes(buffer.getvalue())
            pages.append(Page(number, round(frame.width * POINTS_PER_INCH / dpi, 2),
                              round(frame.height * POINTS_PER_INCH / dpi, 2)))
    return pages
