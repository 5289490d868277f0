"""White text on a dark band (an item table's header) is read like the rest of the page."""
from __future__ import annotations

from PIL import Image, ImageDraw, ImageOps

from ledgerline.extraction import ocr
from ledgerline.extraction.ocr.polarity import dark_bands, dark_on_light
from ledgerline.extraction.sources.pdf_text import parse_pdf
from tests import scans
from tests.hostile import corpus

DPI = 200
OPTIONS = ocr.OcrOptions(languages=("en",))


def banded(page: Image.Image, top_pt: float, bottom_pt: float, height_pt: float) -> Image.Image:
    """The page with a dark band across it from ``top_pt`` to ``bottom_pt`` (points from the
    bottom), its text white: what a coloured table header prints."""
    scale = DPI / 72
    box = (60, round((height_pt - top_pt) * scale), page.size[0] - 60,
           round((height_pt - bottom_pt) * scale))
    out = page.copy()
    out.paste(ImageOps.invert(page.crop(box)).point(lambda v: max(0, v - 40)), box[:2])
    return out


def test_a_line_printed_white_on_a_dark_band_is_read(tmp_path):
    pdf = tmp_path / "invoice.pdf"
    pdf.write_bytes(scans.invoice_pdf())
    layer = parse_pdf(pdf).pages[0]
    line = next(ln for ln in layer.lines if ln.text.startswith("Invoice number"))
    page = banded(scans.render(dpi=DPI), line.y1 + 1.5, line.y0 - 1.5, layer.height)
    assert len(dark_bands(page, DPI)) == 1
    path = tmp_path / "scan.png"
    path.write_bytes(scans.encode(page, "PNG", dpi=DPI))
    (got,) = ocr.read_image(path, OPTIONS)
    assert [ln.text for ln in got.lines] == corpus.TEXT


def test_a_band_is_inverted_only_within_its_box():
    page = Image.new("L", (1000, 1400), 255)
    ImageDraw.Draw(page).rectangle((100, 300, 900, 360), fill=40)
    (box,) = dark_bands(page, DPI)
    assert abs(box[0] - 100) <= 4 and abs(box[1] - 300) <= 4 and abs(box[2] - 901) <= 4
    flipped = dark_on_light(page, DPI)
    assert flipped.getpixel((500, 330)) == 255 and flipped.getpixel((500, 200)) == 255


def test_the_desk_around_a_photographed_page_is_no_band():
    photo = Image.new("L", (1000, 1400), 70)
    ImageDraw.Draw(photo).rectangle((150, 150, 850, 1250), fill=235)
    assert dark_bands(photo, DPI) == []
    assert dark_on_light(photo, DPI) is photo


def test_a_rule_a_frame_or_a_line_of_text_is_no_band():
    page = Image.new("L", (1600, 2200), 255)
    draw = ImageDraw.Draw(page)
    draw.rectangle((100, 100, 1500, 104), fill=0)  # a rule
    draw.rectangle((100, 300, 1500, 700), outline=0, width=3)  # a frame
    draw.text((120, 900), "TOTAL DUE 1,234.56 " * 3, fill=0)
    assert dark_bands(page, DPI) == []


def test_a_band_on_dim_paper_takes_the_paper_s_brightness_and_leaves_no_shadow():
    # A photo's paper is grey; a band made pure white would be the brightest thing near it, and
    # the flattening, dividing by the brightest level around each pixel, would darken the paper
    # beside it (the item row under a header went unread in that shadow).
    from ledgerline.extraction.ocr.illumination import flatten

    page = Image.new("L", (1000, 1400), 180)
    ImageDraw.Draw(page).rectangle((100, 300, 900, 360), fill=40)
    flipped = dark_on_light(page, DPI)
    assert abs(flipped.getpixel((500, 330)) - 180) <= 3
    flat = flatten(flipped, DPI)
    assert flat.getpixel((500, 385)) >= 245 and flat.getpixel((500, 700)) >= 245
