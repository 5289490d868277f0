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
    monkeypatch.setattr(S.Recogniser, "read", lambda self, crops: [("re#1", 0.99)] * len(crops))
    words = [word("ref#1", 0.75, box)]
    assert S.vote(words, image, recogniser) == 0 and words[0].text == "ref#1"


def test_words_read_one_at_a_time_read_as_in_batches_of_six(recogniser):
    # The vote and the OCR calibration were measured on inputs of six crops padded to the
    # widest of them; read one at a time, each crop keeps its padding and its reading.
    import numpy as np

    texts = ["12", "174.90", "2021-11-23", "INV-0001/25", "4,854.00", "DE123456789",
             "1 543 622,19 EUR", "12.5%", "Ref 2024-0042-A7 / 17.03.2024 / 4,854.00"]
    crops = [S.crop(*page_with(text)) for text in texts]
    order = sorted(range(len(crops)), key=lambda k: crops[k].size[0] / crops[k].size[1])
    expected: dict[int, tuple[str, float]] = {}
    for start in range(0, len(order), 6):
        group = order[start:start + 6]
        width = max([S.MIN_INPUT_WIDTH] + [S._scaled_width(crops[k]) for k in group])
        batch = np.stack([S._normalised(crops[k], width) for k in group])
        rows = recogniser._session.run(None, {recogniser._input: batch})[0]
        expected.update({k: recogniser._decode(row) for k, row in zip(group, rows, strict=True)})
    assert max(S._scaled_width(c) for c in crops) > S.MIN_INPUT_WIDTH  # padding is at stake
    assert recogniser.read(crops) == [expected[k] for k in range(len(crops))]


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
