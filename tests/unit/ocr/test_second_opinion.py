"""A second recogniser re-reads the words with digits Tesseract is unsure of, and the two vote:
agreement makes a word surer, a sure and complete second reading replaces a doubtful first."""
from __future__ import annotations

import multiprocessing

import pytest
from PIL import Image, ImageDraw, ImageFont

from ledgerline.extraction.ocr import OcrOptions, fingerprint, preprocessing_tag
from ledgerline.extraction.ocr import second_opinion as S
from ledgerline.extraction.ocr.engine import Word
from ledgerline_tools.samples.fonts import _font_dir

pytestmark = pytest.mark.skipif(S.model_path() is None, reason="rapidocr-onnxruntime missing")


def page_with(text: str) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """A white strip with `text` printed on it at 200 dpi body size, and the text's box."""
    font = ImageFont.truetype(str(_font_dir("font_source_sans_pro")
                                  / "SourceSansPro-Regular.ttf"), 32)
    image = Image.new("L", (600, 120), 255)
    draw = ImageDraw.Draw(image)
    draw.text((40, 40), text, font=font, fill=0)
    return image, draw.textbbox((40, 40), text, font=font)


def word(text: str, confidence: float, box) -> Word:
    return Word(text=text, confidence=confidence, box=tuple(box), line=0, line_box=tuple(box),
                symbols=[(ch, box[0], box[2]) for ch in text])


@pytest.fixture(scope="module")
def recogniser():
    return S.recogniser()


def test_the_model_comes_with_the_wheel_and_reads_digits(recogniser):
    image, box = page_with("174.90")
    ((text, sure),) = recogniser.read([S.crop(image, box)])
    assert text == "174.90" and sure > 0.9


def test_a_doubtful_misreading_is_replaced_by_a_sure_second_reading(recogniser):
    image, box = page_with("174.90")
    words = [word("174,9", 0.62, box)]
    assert S.vote(words, image, recogniser) == 1
    (got,) = words
    assert got.text == "174.90" and got.confidence >= S.ACCEPT_AT
    assert [ch for ch, _, _ in got.symbols] == list("174.90")
    assert got.symbols[0][1] == box[0] and got.symbols[-1][2] == box[2]


def test_agreement_makes_a_word_as_sure_as_the_surer_engine(recogniser):
    image, box = page_with("2021-11-23")
    words = [word("2021-11-23", 0.71, box)]
    assert S.vote(words, image, recogniser) == 0
    assert words[0].text == "2021-11-23" and words[0].confidence > 0.9


def test_words_without_digits_or_read_surely_are_left_alone(recogniser):
    image, box = page_with("Total 1")
    letters, sure = word("Tatal", 0.4, box), word("Tota1", 0.97, box)
    assert S.vote([letters, sure], image, recogniser) == 0
    assert (letters.text, letters.confidence) == ("Tatal", 0.4)
    assert (sure.text, sure.confidence) == ("Tota1", 0.97)


def test_a_shorter_second_reading_does_not_replace_the_first(recogniser, monkeypatch):
    image, box = page_with("ref#1")
    monkeypatch.setattr(S.Recogniser, "read",
                        lambda self, crops, width=None: [("re#1", 0.99)] * len(crops))
    words = [word("ref#1", 0.75, box)]
    assert S.vote(words, image, recogniser) == 0 and words[0].text == "ref#1"


def test_a_word_is_read_at_its_own_width_and_a_region_at_a_line_s(recogniser, monkeypatch):
    # the vote's words go in narrow (the model's cost grows with the input's width); a region
    # (a seller name's place) is padded as PaddleOCR pads its lines
    widths: list[int] = []
    run = recogniser._session.run

    def spy(names, feed):
        widths.append(next(iter(feed.values())).shape[-1])
        return run(names, feed)

    monkeypatch.setattr(recogniser, "_session", type("S", (), {"run": staticmethod(spy)})())
    image, box = page_with("174.90")
    words = [word("174,9", 0.62, box)]
    assert S.vote(words, image, recogniser) == 1 and words[0].text == "174.90"
    piece = S.crop(image, box)
    assert widths == [S.word_width(piece)]
    assert widths[0] % S.WORD_STEP == 0 and S._scaled_width(piece) < widths[0] < 320
    assert recogniser.read([piece])[0][0] == "174.90" and widths[1] == S.LINE_MIN_WIDTH


def test_words_read_at_their_own_width_read_right(recogniser):
    texts = ["12", "174.90", "2021-11-23", "INV-0001/25", "4,854.00", "DE123456789", "12.5%"]
    crops = [S.crop(*page_with(text)) for text in texts]
    assert [text for text, _ in recogniser.read(crops, S.word_width)] == texts


def test_a_second_reading_with_other_decimal_marks_does_not_replace_the_first(recogniser,
                                                                            monkeypatch):
    image, box = page_with("2418,00")
    monkeypatch.setattr(S.Recogniser, "read",
                        lambda self, crops, width=None: [("2418.00", 0.99)] * len(crops))
    words = [word("2418,00", 0.75, box), word("2418,0", 0.75, box)]
    assert S.vote(words, image, recogniser) == 1
    assert [w.text for w in words] == ["2418,00", "2418.00"]


def test_a_second_reading_does_not_bring_in_han_the_first_has_not(recogniser, monkeypatch):
    # on a Chinese page the crop's margin takes in the character beside a figure; its words
    # would then read twice ("2018年03月23日年 03月月 23 日")
    image, box = page_with("2018")
    monkeypatch.setattr(S.Recogniser, "read",
                        lambda self, crops, width=None: [("2018年", 0.99)] * len(crops))
    words = [word("2018", 0.75, box), word("2O18年", 0.75, box)]
    assert S.vote(words, image, recogniser) == 1
    assert [w.text for w in words] == ["2018", "2018年"]


def test_a_word_with_a_character_the_model_cannot_write_is_not_re_read(recogniser,
                                                                      monkeypatch):
    # the model has no euro sign: it could never agree with "306,85€", and any reading it gave
    # in its place would lack the sign
    assert not recogniser.can_write("306,85€") and recogniser.can_write("306,85")
    image, box = page_with("306,85€")
    read: list[int] = []

    def second(self, crops, width=None):
        read.append(len(crops))
        return [("306,856", 0.99)] * len(crops)

    monkeypatch.setattr(S.Recogniser, "read", second)
    euro, plain = word("306,85€", 0.6, box), word("306,8S", 0.6, box)
    assert S.vote([euro, plain], image, recogniser) == 1
    assert read == [1] and (euro.text, euro.confidence) == ("306,85€", 0.6)
    assert plain.text == "306,856"


def _read_in_child(queue):
    image, box = page_with("4,854.00")
    queue.put(S.recogniser().read([S.crop(image, box)])[0][0])


def test_a_forked_child_uses_the_recogniser_its_parent_loaded(recogniser):
    # the sandbox's fork server loads the model once; its children read with it
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_read_in_child, args=(queue,))
    child.start()
    got = queue.get(timeout=60)
    child.join(timeout=10)
    assert child.exitcode == 0 and got == "4,854.00"


def test_the_ocr_identity_names_the_second_recogniser(monkeypatch):
    options = OcrOptions(languages=("en",))
    identity = fingerprint(options)["second_opinion"]
    assert len(identity["model"]) == 16 and identity["wheel"] and identity["onnxruntime"]
    before = preprocessing_tag(options)
    monkeypatch.setattr(S, "ACCEPT_AT", S.ACCEPT_AT - 0.01)
    assert preprocessing_tag(options) != before  # a changed vote is a new preprocessing
