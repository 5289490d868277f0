"""Importing this module warms the extraction code paths of the sandbox's fork server.

Every sandboxed document runs in a child forked from that server, so whatever the server has
already loaded (pdfminer's font metrics and encodings, compiled patterns, lazily imported modules)
each child inherits for free. The fork server can only preload modules by name, hence an import
with a side effect: one extraction of a tiny generated invoice, the official EN 16931 rules
compiled, and Tesseract loaded with the configured OCR languages (a second for a dozen languages,
once per server instead of once per document). Each step stands alone: one that fails (no
Tesseract data, say) costs only what it would have saved, and the others still run.
"""
from __future__ import annotations

import gc
import logging
import os
import tempfile
import zlib

log = logging.getLogger(__name__)
# What the warm-up loaded, for readiness (SandboxedExtractor.health): every child inherits
# it from the fork server. "ocr": ("ok", "eng+deu+…") or ("unavailable", why).
STATE: dict[str, tuple[str, str]] = {}

_LINES = ["ACME Supplies GmbH", "Invoice number: WARM-1", "Invoice date: 2026-01-31",
          "Net total: 100.00 EUR", "VAT 19%: 19.00 EUR", "Total due: 119.00 EUR"]


def tiny_invoice() -> bytes:
    text = "BT /F1 11 Tf 14 TL 50 780 Td " + " ".join(f"({s}) Tj T*" for s in _LINES) + " ET"
    body = zlib.compress(text.encode())
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
         b"/Resources << /Font << /F1 4 0 R >> >> >>"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for num, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % num + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1,
                                                                              xref)
    return bytes(out)


def warm() -> None:
    for step in (_extract_tiny_invoice, _compile_label_patterns, _import_vat_checkers,
                 _compile_schematron, _load_ocr):
        try:
            step()
        except Exception:  # warming is an optimisation; the children still work cold
            log.debug("sandbox warm-up step %s failed", step.__name__, exc_info=True)


def _compile_label_patterns() -> None:
    """Every field's label pattern, which a tiny invoice does not all need."""
    from ..extraction.finders import labels

    labels.warm()


def _extract_tiny_invoice() -> None:
    """pdfminer's fonts and encodings, the vocabulary patterns, every lazily imported module of
    the text-layer path."""
    from .extractor import PdfExtractor
    from .preflight import PreflightLimits, check_pdf

    fd, path = tempfile.mkstemp(prefix="warmup-", suffix=".pdf")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(tiny_invoice())
        check_pdf(path, PreflightLimits(max_pages=1, max_decompressed_bytes=1 << 20))
        PdfExtractor().extract(path, "blake3:" + "0" * 64)
    finally:
        os.unlink(path)


def _compile_schematron() -> None:
    """The official EN 16931 rules, compiled once here instead of once per XML invoice; Saxon
    also has to start before the children's memory limit, which its reservation exceeds."""
    from ..extraction.checks import schematron

    schematron.warm()


def _load_ocr() -> None:
    """Tesseract's models for the configured languages, and the image and PDF renderers."""
    import pillow_heif  # noqa: F401 - imported here so that children need not
    import pypdfium2  # noqa: F401

    from ..config import Settings
    from ..extraction import ocr
    from ..extraction.errors import ExtractionError

    options = ocr.OcrOptions.from_settings(Settings.from_env())
    try:
        ocr.warm(options)
    except ExtractionError as exc:
        STATE["ocr"] = ("unavailable", exc.message)
        raise
    except Exception as exc:
        STATE["ocr"] = ("unavailable", f"Tesseract did not load: {type(exc).__name__}: {exc}")
        raise
    STATE["ocr"] = ("ok", options.tesseract_languages)


def _import_vat_checkers() -> None:
    """python-stdnum imports one module per country on first use: import them all now."""
    from stdnum.eu import vat

    for country in vat.MEMBER_STATES:
        vat.is_valid(country.upper() + "000000000")


warm()
# Children's garbage collections then skip the server's objects instead of writing to (and so
# copying) every page that holds them.
gc.freeze()
