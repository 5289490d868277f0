"""A region of an OCR'd page read again by the second recogniser: the box is given in the
page's points, and the picture is levelled as the words' boxes were."""
from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from ledgerline.extraction.ocr import second_opinion
from ledgerline.extraction.ocr.engine import PageResult
from ledgerline.extraction.ocr.region import PagePicture, reader
from ledgerline_tools.samples.fonts import _font_dir

pytestmark = pytest.mark.skipif(second_opinion.model_path() is None,
                                reason="rapidocr-onnxruntime missing")
DPI = 200
POINTS = 72 / DPI


def picture() -> tuple[Image.Image, dict[str, list[float]]]:
    """A page at 200 dpi with two names on it, and each name's box in points (origin bottom
    left, as the page's lines have them)."""
    font = ImageFont.truetype(str(_font_dir("font_source_sans_pro")
                                  / "SourceSansPro-Regular.ttf"), 36)
    image = Image.new("L", (900, 500), 255)
    draw = ImageDraw.Draw(image)
    boxes = {}
    for text, at in (("Holmqvists Teknik AB", (120, 150)), ("Williams Harper", (120, 320))):
        draw.text(at, text, font=font, fill=0)
        left, top, right, bottom = draw.textbbox(at, text, font=font)
        height = image.size[1]
        boxes[text] = [left * POINTS, (height - bottom) * POINTS, right * POINTS,
                       (height - top) * POINTS]
    return image, boxes


def test_the_region_asked_for_is_read_and_nothing_else():
    image, boxes = picture()
    read = PagePicture(image, DPI, 0.0, second_opinion.recogniser()).read
    for name, bbox in boxes.items():
        text, sure = read(bbox)
        assert text.strip() == name and sure > 0.9


def test_a_picture_whose_boxes_were_levelled_is_levelled_before_it_is_read():
    """A slight skew is taken out of the word boxes, not the picture: the boxes are where the
    words lie once the picture is turned as far."""
    image, boxes = picture()
    skewed = image.rotate(-6, resample=Image.Resampling.BILINEAR, fillcolor=255)
    read = PagePicture(skewed, DPI, 6, second_opinion.recogniser()).read
    assert read(boxes["Holmqvists Teknik AB"])[0].strip() == "Holmqvists Teknik AB"
    unlevelled = PagePicture(skewed, DPI, 0.0, second_opinion.recogniser()).read
    assert unlevelled(boxes["Holmqvists Teknik AB"])[0].strip() != "Holmqvists Teknik AB"


def test_an_empty_box_reads_nothing_and_a_page_without_its_picture_cannot_be_read_again():
    image, _ = picture()
    assert PagePicture(image, DPI, 0.0, second_opinion.recogniser()).read(
        [100.0, 50.0, 100.0, 60.0]) == ("", 0.0)
    result = PageResult([], 900, 500, 0, 0.0, None)
    assert reader(result, DPI, second_opinion.recogniser()) is None
    kept = PageResult([], 900, 500, 0, 0.0, None, picture=image)
    assert reader(kept, DPI, None) is None
    assert reader(kept, DPI, second_opinion.recogniser()) is not None


def test_an_accent_the_reading_left_out_is_a_mark_over_its_letter():
    """Over the "a" of "Bâtiment" and the "i"s' dots, none over "Batiment"'s "a"; specks of
    grain are none either."""
    font = ImageFont.truetype(str(_font_dir("font_source_sans_pro")
                                  / "SourceSansPro-Bold.ttf"), 48)
    found = {}
    for text in ("Bâtiment", "Batiment"):
        image = Image.new("L", (600, 200), 255)
        draw = ImageDraw.Draw(image)
        draw.text((60, 70), text, font=font, fill=0)
        for x, y in ((100, 60), (200, 64), (300, 150)):
            image.putpixel((x, y), 0)
        ascent, descent = font.getmetrics()
        top, bottom = 70, 70 + ascent + descent
        height = image.size[1]
        bbox = [60 * POINTS, (height - bottom) * POINTS, 560 * POINTS, (height - top) * POINTS]
        marks = PagePicture(image, DPI, 0.0, second_opinion.recogniser()).marks(bbox)
        ends = [draw.textbbox((60, 70), text[:n + 1], font=font)[2] for n in range(len(text))]
        found[text] = sorted({text[next(n for n, end in enumerate(ends)
                                        if end >= (x0 + x1) / 2 / POINTS)]
                              for x0, x1 in marks})
    assert found == {"Bâtiment": ["i", "â"], "Batiment": ["i"]}
