"""Tesseract reads scans into the positioned-text model the text layer gives: the same lines, at
the same place on the page, whichever way up the scan came in, with a confidence for every
character."""
from __future__ import annotations

import io
from itertools import pairwise

import pytest

from ledgerline.extraction import ocr
from ledgerline.extraction.model import Line, bbox_confidence, location_confidence
from ledgerline.extraction.sources.pdf_text import parse_pdf
from tests import scans
from tests.hostile import corpus

OPTIONS = ocr.OcrOptions(languages=("en",), dpi=300)
POSITION_TOLERANCE_PT = 3.0  # OCR boxes are ink; text-layer boxes are glyph cells


@pytest.fixture(scope="module")
def page():
    return scans.render(dpi=200)


@pytest.fixture(scope="module")
def text_layer(tmp_path_factory):
    path = tmp_path_factory.mktemp("pdf") / "invoice.pdf"
    path.write_bytes(scans.invoice_pdf())
    return parse_pdf(str(path)).pages[0].lines


def read(tmp_path, data: bytes, options=OPTIONS):
    path = tmp_path / "scan"
    path.write_bytes(data)
    return ocr.read_image(str(path), options)


def texts(pages, number: int = 0) -> list[str]:
    return [ln.text for ln in pages[number].lines]


def test_a_scan_reads_like_its_text_layer_at_the_same_place(tmp_path, page, text_layer):
    (got,) = read(tmp_path, scans.encode(page, "PNG"))
    assert [ln.text for ln in got.lines] == [ln.text for ln in text_layer]
    assert abs(got.width - 595) < 1 and abs(got.height - 842) < 1
    for mine, theirs in zip(got.lines, text_layer):
        assert isinstance(mine, Line) and mine.confidences is not None
        assert all(abs(a - b) <= POSITION_TOLERANCE_PT for a, b in zip(mine.bbox, theirs.bbox))
        assert len(mine.chars) == len(mine.confidences) == len(mine.text)
        # characters in order, inside their line
        assert all(c[0] <= d[0] for c, d in pairwise(mine.chars))
        assert mine.x0 <= mine.chars[0][0] and mine.chars[-1][1] <= mine.x1 + 0.01
        assert 0.5 < mine.span_confidence(0, len(mine.text)) <= 1.0


def test_a_span_box_points_at_the_word(tmp_path, page, text_layer):
    (got,) = read(tmp_path, scans.encode(page, "PNG"))
    line = next(ln for ln in got.lines if ln.text.startswith("Invoice number"))
    start = line.text.index("INV-")
    mine = line.span_bbox(start, len(line.text))
    theirs = next(ln for ln in text_layer if ln.text.startswith("Invoice number"))
    theirs_box = theirs.span_bbox(start, len(theirs.text))
    assert abs(mine[0] - theirs_box[0]) <= POSITION_TOLERANCE_PT
    assert abs(mine[2] - theirs_box[2]) <= POSITION_TOLERANCE_PT
    assert bbox_confidence(line, mine) == line.span_confidence(start, len(line.text))


@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_page_scanned_sideways_or_upside_down_is_turned_upright(tmp_path, page, degrees):
    pages = read(tmp_path, scans.encode(scans.turned(page, degrees), "PNG"))
    assert texts(pages) == corpus.TEXT
    assert pages[0].width < pages[0].height


def test_a_page_that_reads_upright_is_not_asked_its_orientation(tmp_path, page, monkeypatch):
    # orientation detection costs about what recognising the page does: an upright reading
    # (sure, and its words wider than tall) makes it needless
    from ledgerline.extraction.ocr.engine import Engine

    def asked(self, small):
        raise AssertionError("orientation detection run on an upright page")

    monkeypatch.setattr(Engine, "_orientation", asked)
    assert texts(read(tmp_path, scans.encode(page, "PNG"))) == corpus.TEXT


@pytest.mark.parametrize("degrees", [-4, 2.5])
def test_a_skewed_photo_is_straightened_before_reading(tmp_path, page, degrees):
    photo = scans.turned(page, degrees).convert("RGB")
    pages = read(tmp_path, scans.encode(photo, "JPEG", dpi=None, quality=75))
    assert texts(pages) == corpus.TEXT
    rows = [ln.y0 for ln in pages[0].lines]
    assert all(a > b for a, b in pairwise(rows))  # one line per row, top to bottom


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "HEIF"])
def test_every_accepted_image_format(tmp_path, page, fmt):
    assert texts(read(tmp_path, scans.encode(page, fmt))) == corpus.TEXT


def test_every_page_of_a_tiff(tmp_path, page):
    pages = read(tmp_path, scans.multipage_tiff([page, page.rotate(180)]))
    assert [p.number for p in pages] == [1, 2]
    assert [ln.page for p in pages for ln in p.lines] == [1] * 6 + [2] * 6
    assert texts(pages, 1) == corpus.TEXT


def test_a_blank_page_has_no_lines(tmp_path):
    blank = scans.render(dpi=200).point(lambda _: 255)
    assert read(tmp_path, scans.encode(blank, "PNG"))[0].lines == []


def test_only_pages_without_a_text_layer_are_read(tmp_path, text_layer):
    mixed = tmp_path / "mixed.pdf"
    mixed.write_bytes(scans.mixed_pdf())
    parsed = parse_pdf(str(mixed))
    assert ocr.pages_to_ocr(str(mixed), parsed.pages) == [2]
    (second,) = ocr.read_pdf_pages(str(mixed), [2], OPTIONS)
    assert second.number == 2 and [ln.text for ln in second.lines] == corpus.TEXT

    text = tmp_path / "text.pdf"
    text.write_bytes(scans.invoice_pdf())
    assert ocr.pages_to_ocr(str(text), parse_pdf(str(text)).pages) == []


def test_a_scan_with_a_stamped_line_of_text_is_still_a_scan(tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(scans.image_only_pdf([scans.render(dpi=150)], 150)))
    stamp = PdfReader(io.BytesIO(corpus.good_invoice()))
    writer.pages[0].merge_page(stamp.pages[0], over=True)  # six printed lines over the picture
    path = tmp_path / "stamped.pdf"
    with path.open("wb") as f:
        writer.write(f)
    assert ocr.pages_to_ocr(str(path), parse_pdf(str(path)).pages) == [1]


def test_text_layer_lines_are_certain():
    line = Line(1, 0, 0, 10, 10, "abc", [(0, 3), (3, 6), (6, 9)])
    assert bbox_confidence(line, [0, 0, 3, 10]) is None
    assert location_confidence([line], 0, 1, [0, 0, 3, 10]) == 1.0
    ocr_line = Line(1, 0, 0, 10, 10, "a b", [(0, 3), (3, 5), (5, 9)],
                    confidences=[0.9, 0.4, 0.4])
    assert ocr_line.span_confidence(0, 1) == 0.9 and bbox_confidence(ocr_line, None) == 0.4
    assert bbox_confidence(ocr_line, [0, 0, 3, 10]) == 0.9
    assert location_confidence([ocr_line], 0, 1, [0, 0, 3, 10]) == 0.9


def test_a_value_without_a_place_gets_the_documents_median_confidence():
    lines = [Line(1, 0, 0, 10, 10, "a", [(0, 9)], confidences=[c]) for c in (0.5, 0.7, 0.9)]
    assert location_confidence(lines, None, None, None) == 0.7
    # found by its box where no line index came with it: the least sure line under the box
    assert location_confidence(lines, None, 1, [0, 0, 10, 10]) == 0.5
    assert location_confidence([Line(1, 0, 0, 10, 10, "a", [(0, 9)])], None, None, None) == 1.0


def test_the_cache_key_sees_engine_languages_and_dpi():
    base = ocr.fingerprint(OPTIONS)
    assert base["engine"] == "tesseract" and base["version"].startswith("5.")
    assert base["languages"] == "eng" and base["dpi"] == 300 and base["data"]["eng"] != "missing"
    tags = {ocr.preprocessing_tag(o) for o in (
        OPTIONS, ocr.OcrOptions(languages=("en", "de"), dpi=300),
        ocr.OcrOptions(languages=("en",), dpi=200))}
    assert len(tags) == 3
    assert ocr.preprocessing_tag(OPTIONS) == ocr.preprocessing_tag(ocr.OcrOptions(("en",), 300))


def test_the_cache_key_sees_the_page_preparation(monkeypatch):
    from ledgerline.extraction.ocr import identity

    before = ocr.preprocessing_tag(OPTIONS)
    monkeypatch.setattr(identity, "PAGE_PREPARATION_VERSION", "prep-1999.01.1")
    assert ocr.preprocessing_tag(OPTIONS) != before
