"""The size of a page's glyphs says its scale: small text is enlarged before recognition, and a
picture that declares no resolution is read at the scale its text shows, not as an A4 page."""
from __future__ import annotations

import pytest
from PIL import Image

from ledgerline.extraction.ocr.images import frames
from ledgerline.extraction.ocr.options import OcrOptions
from ledgerline.extraction.ocr.text_size import (
    MAX_ENLARGE,
    REFERENCE_DPI,
    enlarge_small_text,
    glyph_height,
    text_dpi,
)
from tests import scans

OPTIONS = OcrOptions(dpi=300)


@pytest.fixture(scope="module")
def pages():
    return {dpi: scans.render(dpi=dpi) for dpi in (60, 100, 150, 200, 300)}


def test_the_glyphs_scale_with_the_resolution_of_a_scan(pages):
    # what a glyph size means depends on the font; how it scales does not
    assert text_dpi(pages[300]) / text_dpi(pages[100]) == pytest.approx(3, rel=0.15)
    assert text_dpi(pages[200]) / text_dpi(pages[100]) == pytest.approx(2, rel=0.15)
    for dpi in (100, 200, 300):  # measured on a reduced copy where the resolution is known
        assert text_dpi(pages[dpi], dpi) == pytest.approx(text_dpi(pages[dpi]), rel=0.1)


def test_a_page_without_text_has_no_glyph_size():
    assert glyph_height(Image.new("L", (800, 1100), 255)) is None
    assert text_dpi(Image.new("L", (800, 1100), 255), 200) is None


def test_small_text_is_enlarged_to_the_reference_size(pages):
    assert text_dpi(pages[60]) < REFERENCE_DPI / 2
    image, dpi = enlarge_small_text(pages[60], 60, OPTIONS.max_pixels)
    factor = image.size[0] / pages[60].size[0]
    assert 2 <= factor <= MAX_ENLARGE and dpi == pytest.approx(60 * factor, rel=0.01)
    assert text_dpi(image) == pytest.approx(REFERENCE_DPI, rel=0.2)


def test_text_of_readable_size_is_left_as_it_is(pages):
    for dpi in (150, 200, 300):  # this invoice's text is large: readable at 150 dpi
        image, got = enlarge_small_text(pages[dpi], dpi, OPTIONS.max_pixels)
        assert image is pages[dpi] and got == dpi


def test_an_enlargement_stays_within_the_pixel_limit(pages):
    limit = pages[60].size[0] * pages[60].size[1] * 2  # room for 1.41x, not 2x
    image, _ = enlarge_small_text(pages[60], 60, limit)
    assert pages[60].size[0] < image.size[0] and image.size[0] * image.size[1] <= limit


def test_a_small_picture_of_legible_text_is_a_small_document(tmp_path, pages):
    # A receipt-sized crop of a 60 dpi scan, with no resolution in the file: as an A4 page it
    # would be 40 dpi and refused; its glyphs give its scale, and it is enlarged to 200 dpi.
    crop = pages[60].crop((0, 0, 340, 460))
    path = tmp_path / "receipt.png"
    path.write_bytes(scans.encode(crop, "PNG", dpi=None))
    (frame,) = frames(str(path), OPTIONS)
    assert frame.dpi == 200
    expected = crop.size[0] * 200 / text_dpi(crop)
    assert frame.image.size[0] == pytest.approx(expected, rel=0.05)
