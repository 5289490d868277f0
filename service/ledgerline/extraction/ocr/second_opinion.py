"""A second recogniser for the words Tesseract is unsure of, and the vote between the two.

Tesseract finds the page's layout and reads every word; where a word that carries digits (an
amount, a date, an invoice number, an identifier) comes back with less than
``REREAD_BELOW`` confidence, its box is cut out and read again by PP-OCR's text-line recogniser
(the PP-OCRv4 recognition model, run by ONNX Runtime on the CPU). The two engines fail
differently: Tesseract reads a comma for a point and a 7 for a 1 on thermal receipts and
dotted table rules, PP-OCR drops accents and the first or last letter of a tight crop. So:

- both agree: the word stands, as sure as the surer of the two (two engines that agree are
  rarely both wrong);
- they differ, and PP-OCR is sure (``ACCEPT_AT``), surer than Tesseract, read no fewer
  characters, and not only other decimal marks: PP-OCR's reading replaces the word (its
  characters spread over the word's box);
- otherwise Tesseract's reading stands with its own confidence.

A word with a character the model cannot write (its character set has no euro or pound sign, no
"Ä" or "ß") is not re-read: PP-OCR cannot agree with it, and any reading it gives in its place
lacks that character. Such words were a quarter to a third of the vote's time on the 150 dpi
scans of ``bench/ocr.py`` ("306,85€" read "306,85", which never replaced it).

The model ships inside the ``rapidocr-onnxruntime`` wheel (PaddleOCR's models, Apache-2.0);
nothing is fetched at run time. Only the model file is used: the wheel's own pipeline imports
OpenCV, which a server does not need for this. The recogniser is loaded once per process (the
sandbox's fork server loads it, every extraction child inherits it), on one thread, without a
memory arena, so that a child's memory stays within its limit.
"""
from __future__ import annotations

import importlib.util
import math
import os
import threading

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..text import is_cjk

if TYPE_CHECKING:  # numpy and Pillow load with the recogniser, not with the cache key
    import numpy as np
    from PIL import Image

MODEL_PACKAGE = "rapidocr_onnxruntime"
MODEL_FILE = os.path.join("models", "ch_PP-OCRv4_rec_infer.onnx")
INPUT_HEIGHT = 48  # the model's input: text lines 48 pixels high
# A region's line (``region``) is padded on the right to at least the width of PaddleOCR's own
# inputs, as the model was trained; its name confirmations were measured on that.
LINE_MIN_WIDTH = 320
# A word the vote re-reads is padded only to its own width and a margin, rounded up to a step:
# the model's cost grows with its input's width, and a word of a page is 30-200 pixels wide
# here, so padding each to 320 cost 2.3 times as much (17 against 7.5 ms a word on the 150 dpi
# speed pages of ``bench/ocr.py``). With a word's decimal marks left to Tesseract
# (``_marks_only``), the narrow inputs' vote was the text layer's reading as often on the
# generated scans and more often on the phone photos (bench/RESULTS.md, 2026-12-05).
WORD_MARGIN = 16
WORD_STEP = 8
WORD_MIN_WIDTH = 32
REREAD_BELOW = 0.93  # Tesseract's word confidence under which a word with digits is re-read
ACCEPT_AT = 0.95  # PP-OCR's confidence at which its differing reading replaces Tesseract's
MAX_WORDS = 48  # re-read per page, least sure first: a bound on the time a page can take
MAX_ASPECT = 24.0  # a word wider than this many heights is a run of code, not a value
PAD_HEIGHTS = 0.25  # margin around a word's box, in its heights: the model reads lines with air


def model_path() -> str | None:
    """Where the wheel keeps the recognition model; None when the wheel is not installed.
    Found without importing the package (whose import loads OpenCV)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(next(iter(spec.submodule_search_locations)), MODEL_FILE)
    return path if os.path.isfile(path) else None


class Recogniser:
    """PP-OCR's text-line recogniser: crops of text in, (text, confidence) out."""

    def __init__(self, path: str):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(path, options,
                                                     providers=["CPUExecutionProvider"])
        characters = self._session.get_modelmeta().custom_metadata_map["character"]
        # CTC classes: blank first, the model's characters, then the space
        self._classes = ["", *characters.splitlines(), " "]
        self.characters = frozenset(self._classes)
        self._input = self._session.get_inputs()[0].name
        self.lock = threading.Lock()

    def read(self, crops: list[Image.Image], width: Callable[[Image.Image], int] | None = None
             ) -> list[tuple[str, float]]:
        """Each crop's reading, one at a time (a row's output does not depend on rows beside
        it, and one row takes less CPU than a batch); ``width``: the input's width for a crop,
        a line's (``line_width``) unless told."""
        import numpy as np

        width = width or line_width
        out: list[tuple[str, float]] = []
        for crop in crops:
            pixels = _normalised(crop, width(crop))[np.newaxis]
            with self.lock:
                probabilities = self._session.run(None, {self._input: pixels})[0]
            out.append(self._decode(probabilities[0]))
        return out

    def can_write(self, text: str) -> bool:
        """Whether the model's character set has every character of ``text``."""
        return all(ch in self.characters for ch in text)

    def _decode(self, row: np.ndarray) -> tuple[str, float]:
        import numpy as np

        best = row.argmax(axis=1)
        sure = row.max(axis=1)
        keep = np.ones(len(best), dtype=bool)
        keep[1:] = best[1:] != best[:-1]
        keep &= best != 0
        if not keep.any():
            return "", 0.0
        text = "".join(self._classes[i] for i in best[keep])
        return text, float(sure[keep].mean())


def _scaled_width(crop: Image.Image) -> int:
    return max(1, math.ceil(INPUT_HEIGHT * crop.size[0] / crop.size[1]))


def line_width(crop: Image.Image) -> int:
    """A region's input: the crop's own width, padded to at least ``LINE_MIN_WIDTH``."""
    return max(LINE_MIN_WIDTH, _scaled_width(crop))


def word_width(crop: Image.Image) -> int:
    """A re-read word's input: its own width and ``WORD_MARGIN``, rounded up to ``WORD_STEP``."""
    return max(WORD_MIN_WIDTH,
               WORD_STEP * math.ceil((_scaled_width(crop) + WORD_MARGIN) / WORD_STEP))


def _normalised(crop: Image.Image, width: int) -> np.ndarray:
    """The crop 48 pixels high, RGB scaled to -1..1, padded to ``width`` on the right."""
    import numpy as np
    from PIL import Image

    resized = crop.convert("RGB").resize((min(width, _scaled_width(crop)), INPUT_HEIGHT),
                                         Image.Resampling.BILINEAR)
    pixels = np.asarray(resized, dtype=np.float32).transpose(2, 0, 1) / 127.5 - 1.0
    out = np.zeros((3, INPUT_HEIGHT, width), dtype=np.float32)
    out[:, :, : pixels.shape[2]] = pixels
    return out


def settings() -> dict:
    """What decides which words are re-read and how the vote goes: part of the OCR identity."""
    return {"reread_below": REREAD_BELOW, "accept_at": ACCEPT_AT, "max_words": MAX_WORDS,
            "max_aspect": MAX_ASPECT, "pad": PAD_HEIGHTS, "line_min_width": LINE_MIN_WIDTH,
            "word_width": [WORD_MARGIN, WORD_STEP, WORD_MIN_WIDTH], "marks_stand": True,
            "unwritable_skipped": True}


def worth_rereading(text: str, confidence: float) -> bool:
    return confidence < REREAD_BELOW and any(ch.isdigit() for ch in text)


def vote(words: list, image: Image.Image, recogniser: Recogniser) -> int:
    """Re-read the unsure words with digits on ``image`` (the picture their boxes refer to) and
    settle each by the vote above, in place; the number of words replaced."""
    chosen = [w for w in words if worth_rereading(w.text, w.confidence)
              and _height(w.box) > 0 and _width(w.box) / _height(w.box) <= MAX_ASPECT
              and recogniser.can_write(w.text)]
    chosen = sorted(chosen, key=lambda w: w.confidence)[:MAX_WORDS]
    if not chosen:
        return 0
    crops = [crop(image, w.box) for w in chosen]
    replaced = 0
    for word, (text, sure) in zip(chosen, recogniser.read(crops, word_width), strict=True):
        text = text.strip()
        if text == word.text:
            word.confidence = max(word.confidence, sure)
        elif (sure >= ACCEPT_AT and sure > word.confidence and " " not in text
              and len(text) >= len(word.text) and not _marks_only(text, word.text)
              and not _cjk_added(text, word.text)):
            _replace(word, text, sure)
            replaced += 1
    return replaced


def _marks_only(text: str, first: str) -> bool:
    """The two readings differ only in a comma read for a point or the other way round. Read
    at their own width, PP-OCR takes a word's comma for a point more often than Tesseract
    misreads one: on the generated phone photos of ``bench/ocr.py`` Tesseract's mark was the
    text layer's where they differed (2026-12-05). Which mark an amount has is the page's
    locale and the totals' arithmetic to settle, not the vote."""
    return text.replace(".", ",") == first.replace(".", ",")


def _cjk_added(text: str, first: str) -> bool:
    """PP-OCR's reading has Han or kana that Tesseract's has not. Its model reads Chinese:
    on a Chinese or Japanese page, the margin of a figure's crop takes in the character beside
    it ("2018" read "2018年03月23日" over its neighbours, which then read twice), and on a
    Latin page such a character is a misreading of a mark."""
    return any(is_cjk(ch) for ch in text) and not any(is_cjk(ch) for ch in first)


def _replace(word, text: str, confidence: float) -> None:
    left, _, right, _ = word.box
    step = (right - left) / len(text)
    word.text = text
    word.confidence = confidence
    word.symbols = [(ch, round(left + k * step), round(left + (k + 1) * step))
                    for k, ch in enumerate(text)]


def crop(image: Image.Image, box) -> Image.Image:
    """The picture inside a box (pixels), with the air around it the model reads lines with."""
    left, top, right, bottom = box
    pad = max(2, round(PAD_HEIGHTS * (bottom - top)))
    return image.crop((max(0, left - pad), max(0, top - pad), min(image.size[0], right + pad),
                       min(image.size[1], bottom + pad)))


def _height(box) -> int:
    return box[3] - box[1]


def _width(box) -> int:
    return box[2] - box[0]


_recogniser: Recogniser | None = None
_loaded = False
_load_lock = threading.Lock()


def recogniser() -> Recogniser | None:
    """The process's recogniser, loaded on first use; None where the wheel is missing."""
    global _recogniser, _loaded
    with _load_lock:
        if not _loaded:
            path = model_path()
            _recogniser = Recogniser(path) if path else None
            _loaded = True
        return _recogniser
