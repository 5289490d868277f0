"""Scans: image-only (no text layer), deterministic, at the asked resolution."""

from __future__ import annotations

import io

import pytest
from pdfminer.high_level import extract_text
from PIL import Image

from ledgerline_tools.samples import scan

from .conftest import sample


@pytest.mark.parametrize("photo", [False, True])
def test_a_scan_has_no_text_layer_and_is_reproducible(photo):
    pdf, truth = sample(3, "sv", "letterhead")
    first = scan(pdf, 3, dpi=150, photo=photo)
    assert extract_text(io.BytesIO(first.pdf)).strip() == ""
    assert scan(pdf, 3, dpi=150, photo=photo).pdf == first.pdf
    assert len(first.images) == truth["_generator"]["pages"]
    with Image.open(io.BytesIO(first.images[0])) as im:
        assert im.format == "JPEG"
        assert abs(im.width - round(595.28 * 150 / 72)) <= 1   # A4 at 150 dpi


def test_each_page_of_a_multi_page_invoice_is_scanned():
    pdf, truth = sample(4, "de", "multi_page")
    result = scan(pdf, 4, dpi=150)
    assert len(result.images) == truth["_generator"]["pages"] > 1
    assert len({d.rotation for d in result.degradations}) > 1   # drawn per page


def test_scans_of_different_seeds_differ():
    pdf, _ = sample(3, "sv", "letterhead")
    assert scan(pdf, 1, dpi=150).images != scan(pdf, 2, dpi=150).images


@pytest.mark.parametrize("dpi", [149, 301])
def test_dpi_outside_the_scanner_range_is_refused(dpi):
    pdf, _ = sample(3, "sv", "letterhead")
    with pytest.raises(ValueError, match="between 150 and 300"):
        scan(pdf, 1, dpi=dpi)
