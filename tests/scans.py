"""Scans and photos of a generated invoice, made in memory: every format OCR accepts.

The invoice is the hostile corpus's benign one (a text-layer PDF), rendered by PDFium at a chosen
resolution; from that picture come JPEG, PNG, multi-page TIFF, WebP, HEIF and image-only PDF
files, turned, skewed or photographed (no resolution in the file) as a test needs.
"""
from __future__ import annotations

import io

from PIL import Image

from tests.hostile import corpus

# What the invoice says (tests/hostile/corpus.TEXT), as extraction reports it.
EXPECTED = {"invoice_number": "INV-2026-0042", "issue_date": "2026-11-29", "currency": "EUR",
            "gross_total": "119.00", "seller_name": "ACME Supplies GmbH"}


def invoice_pdf() -> bytes:
    return corpus.good_invoice()


def render(pdf: bytes | None = None, dpi: int = 200, page: int = 0) -> Image.Image:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf or invoice_pdf())
    try:
        return doc[page].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
    finally:
        doc.close()


def turned(image: Image.Image, degrees: float) -> Image.Image:
    """Rotated counter-clockwise by `degrees`, the uncovered corners white."""
    return image.rotate(degrees, expand=True, fillcolor=255,
                        resample=Image.Resampling.BICUBIC)


def encode(image: Image.Image, fmt: str, dpi: int | None = 200, **save) -> bytes:
    out = io.BytesIO()
    if fmt == "HEIF":
        import pillow_heif

        pillow_heif.register_heif_opener()
    if dpi is not None:
        save.setdefault("dpi" if fmt != "PDF" else "resolution", (dpi, dpi) if fmt != "PDF"
                        else float(dpi))
    image.save(out, fmt, **save)
    return out.getvalue()


def multipage_tiff(images: list[Image.Image], dpi: int = 200) -> bytes:
    out = io.BytesIO()
    images[0].save(out, "TIFF", save_all=True, append_images=images[1:], dpi=(dpi, dpi),
                   compression="tiff_lzw")
    return out.getvalue()


def image_only_pdf(images: list[Image.Image], dpi: int = 200) -> bytes:
    """A scanner's PDF: one picture per page, no text layer."""
    out = io.BytesIO()
    images[0].save(out, "PDF", save_all=True, append_images=images[1:], resolution=float(dpi))
    return out.getvalue()


def mixed_pdf(dpi: int = 200) -> bytes:
    """Page 1 born digital (the invoice's text layer), page 2 a scan of the same invoice."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(invoice_pdf())))
    writer.append(PdfReader(io.BytesIO(image_only_pdf([render(dpi=dpi)], dpi))))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
