"""A reading that left part of the page's text unread says so: the characters under no word."""
from __future__ import annotations

from PIL import Image

from ledgerline.extraction.ocr import reading
from ledgerline.extraction.ocr.coverage import unread_share
from ledgerline.extraction.ocr.engine import PageResult, Word, engine_for
from ledgerline.extraction.ocr.images import Frame
from tests import scans

DPI = 200


def test_a_page_read_whole_leaves_little_unread_and_a_skipped_half_shows():
    page = scans.render(dpi=DPI)
    result = engine_for("eng").read(page, DPI)
    assert unread_share(result.picture, result.words, DPI) < reading.RETRY_UNREAD_SHARE
    assert unread_share(page, [], DPI) == 1.0
    # words read as blanks (a table's rules read as rows) cover nothing
    blanks = [Word(" ", 0.95, w.box, w.line, w.line_box) for w in result.words]
    assert unread_share(page, blanks, DPI) == 1.0
    every_other_line = [w for w in result.words if w.line % 2 == 0]
    assert 0.2 < unread_share(page, every_other_line, DPI) < 0.8


def test_a_blank_page_has_nothing_unread():
    assert unread_share(Image.new("L", (1654, 2339), 255), [], DPI) == 0.0


class CountingEngine:
    """Tesseract, its readings counted; a subclass spoils the first one."""

    second = None

    def __init__(self):
        self.real = engine_for("eng")
        self.calls = 0


class SkippingEngine(CountingEngine):
    """Tesseract whose layout analysis dropped the page on its first reading."""

    def read(self, image, dpi, analysis=None):
        self.calls += 1
        if self.calls == 1:
            return PageResult([], image.size[0], image.size[1], 0, 0.0, None, picture=image)
        return self.real.read(image, dpi, analysis)


def test_a_page_whose_reading_left_its_text_unread_is_read_again():
    engine = SkippingEngine()
    page = reading._read_frame(engine, Frame(scans.render(dpi=DPI), DPI, 1),
                               reading.OcrOptions(languages=("en",)))
    assert engine.calls == 2
    assert any("ACME" in line.text for line in page.lines)
    assert page.photo  # read as a photo whose tables went unread: calibrated as one


def test_a_scan_read_whole_is_not_taken_for_a_photo():
    page = reading._read_frame(engine_for("eng"), Frame(scans.render(dpi=DPI), DPI, 1),
                               reading.OcrOptions(languages=("en",)))
    assert page.lines and not page.photo


def test_a_page_read_whole_is_read_once():
    engine = SkippingEngine()
    engine.calls = 1  # its first reading is a good one
    reading._read_frame(engine, Frame(scans.render(dpi=DPI), DPI, 1),
                        reading.OcrOptions(languages=("en",)))
    assert engine.calls == 2


class WordDroppingEngine(CountingEngine):
    """Tesseract whose first reading dropped the page's first word (a little of its text, 4 %
    of this page's characters, as a photo's header cell goes unread), and whose later readings
    are whole."""

    def read(self, image, dpi, analysis=None):
        self.calls += 1
        result = self.real.read(image, dpi, analysis)
        if self.calls == 1:
            first = next(w for w in result.words if w.text.strip())
            result.words = [w for w in result.words if w is not first]
        return result


def _read(monkeypatch, photo: bool) -> tuple[WordDroppingEngine, object]:
    page = scans.render(dpi=DPI)
    if photo:  # taken for a page cut from its desk: outline.flattened_page gave a new picture
        monkeypatch.setattr(reading, "flattened_page", lambda image, dpi: image.copy())
    engine = WordDroppingEngine()
    read = reading._read_frame(engine, Frame(page, DPI, 1), reading.OcrOptions(languages=("en",)))
    return engine, read


def test_a_photo_with_a_little_of_its_text_unread_is_read_again(monkeypatch):
    engine, page = _read(monkeypatch, photo=True)
    assert engine.calls == 2
    assert page.photo
    assert any("ACME" in line.text for line in page.lines)  # the word the first reading lost


def test_a_scan_with_as_little_unread_is_read_once(monkeypatch):
    engine, page = _read(monkeypatch, photo=False)
    assert engine.calls == 1
    assert not page.photo
    assert not any("ACME" in line.text for line in page.lines)
