"""What the text layer holds is also printed: a scan of a generated invoice shows every line of
its text, so OCR is measured against text a reader can see."""

from __future__ import annotations

import dataclasses

import numpy as np
import pypdfium2 as pdfium
import pytest
from reportlab.lib import colors

import ledgerline_tools.samples as samples
from ledgerline.extraction.sources.pdf_text import parse_pdf

SCALE = 150 / 72  # a 150 dpi rendering
CONTRAST = 100  # grey levels between the lightest and darkest pixel of a legible line


def _legible_lines(pdf: bytes, tmp_path) -> list[tuple[str, int]]:
    """(text, contrast) of every text-layer line of page 1, the contrast measured in its box on
    a greyscale rendering."""
    path = tmp_path / "invoice.pdf"
    path.write_bytes(pdf)
    page = parse_pdf(path).pages[0]
    document = pdfium.PdfDocument(pdf)
    try:
        grey = np.asarray(document[0].render(scale=SCALE, grayscale=True).to_pil().convert("L"))
    finally:
        document.close()
    out = []
    for line in page.lines:
        top = round((page.height - line.y1) * SCALE)
        bottom = round((page.height - line.y0) * SCALE)
        box = grey[max(0, top):bottom, round(line.x0 * SCALE):round(line.x1 * SCALE) + 1]
        if box.size:
            out.append((line.text, int(box.max()) - int(box.min())))
    return out


@pytest.mark.parametrize("accent", ["#000000", "#1f3a5f"])
def test_a_table_header_on_a_dark_band_is_printed_light(monkeypatch, tmp_path, accent):
    drawn = samples.draw_look

    def zebra(rng):
        return dataclasses.replace(drawn(rng), table="zebra", accent=colors.HexColor(accent))

    monkeypatch.setattr(samples, "draw_look", zebra)
    pdf, _ = samples.generate(5, lang="es", template="bill_ship_to")
    lines = _legible_lines(pdf, tmp_path)
    assert lines
    faint = [text for text, contrast in lines if contrast < CONTRAST]
    assert not faint, f"lines not visible in print: {faint}"
