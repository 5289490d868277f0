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


def test_an_accent_raises_its_letters_ink_and_specks_are_no_ink():
    """Over the "a" of "Bâtiment" the ink reaches above the other short letters, over
    "Batiment"'s it does not; specks of grain above the line, and the descenders of the line
    above reaching into the band, are left out."""
    font = ImageFont.truetype(str(_font_dir("font_source_sans_pro")
                                  / "SourceSansPro-Bold.ttf"), 48)
    tops = {}
    for text in ("Bâtiment", "Batiment"):
        image = Image.new("L", (600, 200), 255)
        draw = ImageDraw.Draw(image)
        draw.text((60, 70), text, font=font, fill=0)
        draw.text((60, 10), "gjpqy gjpqy", font=font, fill=0)  # the line above
        for x, y in ((100, 62), (175, 64), (300, 150)):
            image.putpixel((x, y), 0)
        ascent, descent = font.getmetrics()
        top, bottom = 70, 70 + ascent + descent
        height = image.size[1]
        bbox = [60 * POINTS, (height - bottom) * POINTS, 560 * POINTS, (height - top) * POINTS]
        ink = PagePicture(image, DPI, 0.0, second_opinion.recogniser()).ink(bbox)
        a = draw.textbbox((60, 70), text[:2], font=font)
        b = draw.textbbox((60, 70), text[:1], font=font)
        e = draw.textbbox((60, 70), text[:6], font=font)
        m = draw.textbbox((60, 70), text[:5], font=font)
        over_a = [t for x, t, _ in ink if b[2] + 2 < x / POINTS < a[2] - 2]
        over_e = [t for x, t, _ in ink if m[2] + 2 < x / POINTS < e[2] - 2]
        tops[text] = max(over_a) - max(over_e)
        assert max(t for _, t, _ in ink) < (height - 62) * POINTS  # no speck, no line above
    assert tops["Bâtiment"] > 10 * POINTS
    assert abs(tops["Batiment"]) < 2 * POINTS


def test_only_a_documents_first_and_last_pages_keep_their_picture(tmp_path):
    """A long scan's pictures would take the extraction's memory: the first page and the last,
    where a seller's name is read (letterhead, footer), can be read again, the others not."""
    from ledgerline.extraction.ocr import OcrOptions, read_image
    from tests import scans

    page = scans.render(dpi=150)
    path = tmp_path / "scan.tiff"
    path.write_bytes(scans.multipage_tiff([page] * 4, dpi=150))
    pages = read_image(path, OcrOptions(languages=("en",)))
    assert [p.read_again is not None for p in pages] == [True, False, False, True]
