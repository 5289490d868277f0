"""Light grey print beside black text, and a page lit unevenly, are read like a clean scan: the
paper's lighting is taken out and light print darkened before Tesseract binarises the page."""
from __future__ import annotations

import numpy as np
from PIL import Image

from ledgerline.extraction import ocr
from ledgerline.extraction.ocr.illumination import flatten, without_grain
from ledgerline.extraction.sources.pdf_text import parse_pdf
from tests import scans
from tests.hostile import corpus

DPI = 200
GREY = 165  # the darkest grey level of a faded line: a light grey label
OPTIONS = ocr.OcrOptions(languages=("en",))


def faded(page: Image.Image, top_pt: float, bottom_pt: float, height_pt: float) -> Image.Image:
    """The page with the text between two heights (points from the bottom) printed light grey."""
    scale = DPI / 72
    box = (0, round((height_pt - top_pt) * scale), page.size[0],
           round((height_pt - bottom_pt) * scale))
    out = page.copy()
    out.paste(page.crop(box).point(lambda v: GREY + v * (255 - GREY) // 255), box[:2])
    return out


def shadowed(page: Image.Image) -> Image.Image:
    """The page under light falling off to half its brightness at the right edge (a phone's
    photo in a room)."""
    light = np.linspace(1.0, 0.5, page.size[0], dtype=np.float32)[None, :]
    return Image.fromarray((np.asarray(page, dtype=np.float32) * light).astype(np.uint8))


def read(tmp_path, page: Image.Image) -> list[str]:
    path = tmp_path / "scan.png"
    path.write_bytes(scans.encode(page, "PNG", dpi=DPI))
    (got,) = ocr.read_image(path, OPTIONS)
    return [ln.text for ln in got.lines]


def test_lines_printed_light_grey_are_read_with_the_black_ones(tmp_path):
    pdf = tmp_path / "invoice.pdf"
    pdf.write_bytes(scans.invoice_pdf())
    layer = parse_pdf(pdf).pages[0]
    page = scans.render(dpi=DPI)
    for line in layer.lines[1:4]:
        page = faded(page, line.y1 + 1.5, line.y0 - 1.5, layer.height)
    assert read(tmp_path, page) == corpus.TEXT


def test_a_page_lit_from_one_side_is_read_whole(tmp_path):
    assert read(tmp_path, shadowed(scans.render(dpi=DPI))) == corpus.TEXT


def test_the_paper_comes_out_white_under_a_shadow_and_ink_stays_ink():
    page = Image.new("L", (1000, 1000), 240)
    page.paste(30, (100, 480, 900, 490))  # a stroke across the page
    flat = np.asarray(flatten(shadowed(page), DPI))
    assert flat[200, 50] >= 235 and flat[200, 950] >= 235  # paper on both sides
    assert flat[485, 500] < 60 and flat[485, 880] < 60  # the stroke, in light and in shadow


def test_the_desk_around_a_photographed_page_is_made_paper():
    photo = Image.new("L", (1000, 1400), 70)
    photo.paste(235, (150, 150, 850, 1250))
    flat = np.asarray(flatten(photo, DPI))
    assert flat[20, 20] == 255 and flat[700, 500] == 255
    assert flat[700, 155] == 255  # no black rim where the page meets the desk



def test_a_table_page_is_not_turned_upside_down_by_its_flattening(tmp_path):
    # Orientation detection on the flattened copy of this page of a generated Danish invoice
    # (a table and its totals) guessed upside down; it looks at the page before flattening.
    import pypdfium2 as pdfium

    from ledgerline_tools.samples import generate
    from ledgerline_tools.samples.scan import Degradation, degrade, image_pdf

    pdf, _ = generate(8)
    document = pdfium.PdfDocument(pdf)
    try:
        page = document[2].render(scale=DPI / 72).to_pil().convert("RGB")
    finally:
        document.close()
    clean = Degradation(rotation=0.0, blur=0.0, noise=0.0, lighting=0.0, light_angle=0.0,
                        quality=92, grey=True, perspective=0.0)
    path = tmp_path / "page3.pdf"  # as a scanner's image-only PDF
    path.write_bytes(image_pdf([degrade(page, clean, dpi=DPI, noise_seed=107002)], DPI))
    (got,) = ocr.read_pdf_pages(path, [1], ocr.OcrOptions())
    text = " ".join(ln.text for ln in got.lines)
    assert "Beskrivelse" in text and "Enhedspris" in text


def test_the_grain_of_dim_paper_comes_out_white_and_ink_stays_ink():
    # A photo's sensor noise on dim paper, stretched by the flattening, would leave specks that
    # Tesseract's threshold keeps as ink.
    rng = np.random.default_rng(7)
    pixels = np.full((1000, 1000), 150.0) + rng.normal(0.0, 14.0, (1000, 1000))
    pixels[480:490, 100:900] = 30  # a stroke
    pixels[600:610, 100:900] = 150 * 0.6  # a light grey one, 0.6 of the paper's brightness
    page = flatten(Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)), DPI)
    assert (np.asarray(page)[100:400, 100:900] < 200).mean() > 0.01  # the grain, stretched
    flat = np.asarray(without_grain(page))
    paper = flat[100:400, 100:900]
    assert (paper < 255).mean() < 0.001
    assert flat[482:488, 200:800].max() < 60 and np.median(flat[602:608, 200:800]) < 128


def test_a_clean_page_keeps_its_grey_levels_without_its_grain():
    page = Image.new("L", (1000, 1000), 250)
    page.paste(120, (100, 480, 900, 490))
    flat = np.asarray(without_grain(flatten(page, DPI)))
    assert 50 <= flat[485, 500] <= 70  # (120 / 250) squared: darkened, not cut
