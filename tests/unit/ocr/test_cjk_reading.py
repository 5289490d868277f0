"""Which readings show a page written in Han or kana, and when the page is read with the
Japanese and Chinese data at all (``engine``)."""
from __future__ import annotations

from ledgerline.extraction.ocr import engine as E
from ledgerline.extraction.ocr.engine import Word


def words(*pairs: tuple[str, float]) -> list[Word]:
    return [Word(text, confidence, (0, 0, 40, 10), 0, (0, 0, 400, 10))
            for text, confidence in pairs]


def test_a_reading_mostly_of_sure_han_shows_a_cjk_page():
    reading = words(*[("发票号码", 0.9)] * 6, ("07007198", 0.95), ("¥294.82", 0.9))
    assert E._written_in_cjk(reading)


def test_a_latin_reading_with_a_few_han_read_off_its_noise_does_not():
    # a receipt read with the CJK data: its noise read as a few Han characters, unsure or few
    latin = words(*[("TOTAL", 0.9)] * 40, *[("合", 0.6)] * 12, *[("票", 0.3)] * 30)
    assert not E._written_in_cjk(latin)
    assert not E._written_in_cjk(words(("发票", 0.9)))  # too few to say


def test_legible_share_counts_letters_and_digits_read_sure():
    assert E._legible_share(words(("Invoice", 0.9), ("noise", 0.2), ("--", 0.9))) == 7 / 12
    assert E._legible_share([]) == 1.0


def _engine(monkeypatch, latin: list[Word], cjk: list[Word], script: str | None):
    """An engine whose Latin reading is ``latin``, whose CJK reading is ``cjk`` and whose OSD
    names ``script``; the readings it made are in its ``calls``."""
    import threading

    engine = E.Engine.__new__(E.Engine)
    engine.lock, engine.second, engine._cjk_installed = threading.Lock(), None, True
    engine._api, engine._cjk, engine.calls = "latin", "cjk", []

    def recognise(self, image, dpi, api):
        self.calls.append(api)
        return (latin if api == "latin" else cjk), []

    monkeypatch.setattr(E.Engine, "_recognise", recognise)
    monkeypatch.setattr(E.Engine, "_cjk_api", lambda self: "cjk")
    monkeypatch.setattr(E.Engine, "_orientation", lambda self, small: (0, script))
    return engine


def _read(engine):
    from PIL import Image

    return engine.read(Image.new("L", (200, 200), 0), 150)


def test_a_page_read_plainly_upright_is_never_read_with_the_cjk_data(monkeypatch):
    # the Latin pages that read upright (nearly all scans) cost what they cost before
    engine = _engine(monkeypatch, words(*[("Invoice", 0.95)] * 12), [], "Han")
    assert _read(engine).script is None and engine.calls == ["latin"]


def test_a_page_osd_names_han_is_read_with_the_cjk_data_and_kept_if_it_shows_han(monkeypatch):
    latin = words(*[("BVARGLAT", 0.6)] * 12)
    cjk = words(*[("发票号码", 0.9)] * 12)
    engine = _engine(monkeypatch, latin, cjk, "Han")
    result = _read(engine)
    assert engine.calls == ["latin", "cjk"] and result.words == cjk and result.script == "Han"


def test_an_illegible_page_osd_takes_for_latin_is_tried_and_kept_only_if_it_shows_han(
        monkeypatch):
    latin = words(*[("BVARGLAT", 0.3)] * 12)
    engine = _engine(monkeypatch, latin, words(*[("請求書", 0.9)] * 12), "Latin")
    assert _read(engine).words[0].text == "請求書"
    engine = _engine(monkeypatch, latin, words(*[("TOTAL", 0.9)] * 12), "Latin")
    result = _read(engine)
    assert engine.calls == ["latin", "cjk"] and result.words == latin


def test_a_legible_latin_page_that_is_not_plainly_upright_is_not_tried(monkeypatch):
    # an Arabic-English page, or a receipt read fairly well: OSD says Latin (or Arabic)
    engine = _engine(monkeypatch, words(*[("ab", 0.8)] * 30), [], "Arabic")
    assert _read(engine).words[0].text == "ab" and engine.calls == ["latin"]
