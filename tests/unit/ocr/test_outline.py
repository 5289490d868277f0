"""A phone photo of a page on a desk is cut from the desk and squared before it is read."""
from __future__ import annotations

import numpy as np
from PIL import Image

from ledgerline.extraction import ocr
from ledgerline.extraction.ocr.outline import _coefficients, flattened_page, page_corners
from tests import scans
from tests.hostile import corpus

DPI = 200
DESK = 80


def photographed(page: Image.Image, corners) -> Image.Image:
    """The page seen in perspective: its corners at ``corners`` of a larger picture of a desk."""
    width, height = page.size
    size = (round(width * 1.15), round(height * 1.12))
    source = [(0, 0), (width, 0), (width, height), (0, height)]
    warped = page.transform(size, Image.Transform.PERSPECTIVE, _coefficients(corners, source),
                            Image.Resampling.BICUBIC, fillcolor=DESK)
    mask = Image.new("L", page.size, 255).transform(
        size, Image.Transform.PERSPECTIVE, _coefficients(corners, source), fillcolor=0)
    desk = Image.new("L", size, DESK)
    desk.paste(warped, (0, 0), mask)
    return desk


def keystone(page: Image.Image):
    """A far edge 6 % narrower than the near one, the page turned a little: a photo from above."""
    w, h = page.size
    return [(0.09 * w, 0.05 * h), (1.03 * w, 0.07 * h), (1.10 * w, 1.07 * h), (0.04 * w, 1.05 * h)]


def test_a_page_in_perspective_on_a_desk_is_found_by_its_corners():
    page = scans.render(dpi=DPI)
    corners = keystone(page)
    found = page_corners(photographed(page, corners), DPI)
    assert found is not None
    for (x, y), (u, v) in zip(found, corners):
        assert abs(x - u) < 0.02 * page.size[0] and abs(y - v) < 0.02 * page.size[1]


def test_the_squared_page_reads_like_the_scan(tmp_path):
    photo = photographed(scans.render(dpi=DPI), keystone(scans.render(dpi=DPI)))
    squared = flattened_page(photo, DPI)
    # the longer of each pair of sides: the page comes out a few per cent too wide or tall
    assert abs(squared.size[0] / squared.size[1] - 595 / 842) < 0.05
    path = tmp_path / "photo.jpg"
    path.write_bytes(scans.encode(photo.convert("RGB"), "JPEG", dpi=None, quality=85))
    (got,) = ocr.read_image(path, ocr.OcrOptions(languages=("en",)))
    assert [ln.text for ln in got.lines] == corpus.TEXT
    assert got.photo  # its values are calibrated as a photo's (ocr.calibration)


def test_a_scan_whose_page_fills_the_picture_is_left_as_it_is():
    page = scans.render(dpi=DPI)
    assert page_corners(page, DPI) is None and flattened_page(page, DPI) is page


def test_a_picture_without_a_page_is_left_as_it_is():
    dark = Image.fromarray(np.full((800, 600), DESK, dtype=np.uint8))
    assert flattened_page(dark, DPI) is dark


def test_a_white_block_on_a_tinted_page_is_no_page():
    page = Image.new("L", (1200, 1700), 215)  # a tinted invoice, scanned to its edges
    page.paste(250, (0, 0, 1200, 500))  # its white letterhead block
    page.paste(250, (100, 700, 1100, 1500))  # and a white table
    assert page_corners(page, DPI) is None


def test_a_receipt_on_a_light_desk_that_joins_the_picture_edge_is_left_as_it_is():
    photo = Image.new("L", (1600, 1200), 90)
    photo.paste(200, (0, 700, 1600, 1200))  # a light desk along the bottom
    photo.paste(245, (80, 300, 1500, 800))  # the receipt, running into it
    assert page_corners(photo, DPI) is None


def test_a_page_photographed_whole_just_inside_the_picture_is_squared():
    # A strip of desk a few pixels wide along the left edge: the page does not run off the
    # picture, so its left side is its outline, not the picture's edge.
    page = scans.render(dpi=DPI)
    w, h = page.size
    corners = [(0.012 * w, 0.05 * h), (1.03 * w, 0.07 * h), (1.10 * w, 1.07 * h),
               (0.008 * w, 1.05 * h)]
    found = page_corners(photographed(page, corners), DPI)
    assert found is not None
    for (x, y), (u, v) in zip(found, corners):
        assert abs(x - u) < 0.02 * w and abs(y - v) < 0.02 * h


def test_a_turned_page_whose_corners_touch_every_edge_is_found():
    """Turned a few degrees in the frame, the page reaches each edge of the picture with one
    corner: it is whole, and cut from the desk like any other."""
    page = scans.render(dpi=DPI)
    w, h = page.size
    big_w, big_h = round(w * 1.15), round(h * 1.12)
    corners = [(0.06 * big_w, 0), (big_w - 1, 0.04 * big_h), (0.94 * big_w, big_h - 1),
               (0, 0.96 * big_h)]
    photo = photographed(page, corners)
    assert photo.size == (big_w, big_h)
    found = page_corners(photo, DPI)
    assert found is not None
    for (x, y), (u, v) in zip(found, corners):
        assert abs(x - u) < 0.02 * w and abs(y - v) < 0.02 * h


def test_a_crop_of_a_page_running_off_every_edge_is_left_as_it_is():
    crop = Image.new("L", (1200, 1700), 245)  # the page all over the picture ...
    crop.paste(DESK, (0, 0, 200, 150))  # ... but for a corner of desk
    assert page_corners(crop, DPI) is None
