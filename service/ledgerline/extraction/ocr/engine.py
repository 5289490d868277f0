"""Tesseract 5 in-process (tesserocr): recognition of one page, upright and level.

Loading Tesseract's models costs a tenth of a second for one language and about a second for a
dozen; the sandbox's fork server loads them once (see ``adapters/sandbox_warmup.py``) and every
extraction child inherits them. One page is:

1. recognition, and every word with its box, its confidence and the box of each character;
2. where that reading is not plainly upright (few words, unsure, or set on end), orientation and
   script detection (OSD) on a copy of about 150 dpi, and where the page lies sideways or upside
   down, a quarter turn and the page recognised again; OSD costs about what a recognition of
   English does, and a page that reads sure and level is upright (upside down or sideways it
   reads as noise, or as words taller than wide);
3. the skew from the recognised text lines' baselines: a page more than
   ``ROTATE_IMAGE_DEGREES`` off level is rotated straight and recognised again, a slighter skew
   (which Tesseract reads well) is taken out of the word boxes;
4. the words with digits Tesseract is unsure of, read again by a second recogniser, and settled
   by a vote between the two (``second_opinion``).

A page written in Han script or Japanese kana reads, with the Latin languages' data, as noise:
few words, unsure. Such a reading is not plainly upright, so OSD has looked at it; where
OSD names the script Han or Japanese, or where little of the reading is legible (OSD takes a
noisy Japanese fax for Latin), the page is read again with the Japanese and Chinese data
(``CJK_TESSERACT_LANGUAGES``), and that reading is kept where a fair share of what it read
legibly is Han or kana. Every page that reads plainly upright is read exactly as before, at the
same cost; the others that are not CJK pay one more recognition at most.
"""
from __future__ import annotations

import math
import statistics
import threading
from dataclasses import dataclass, field

from PIL import Image

from ..errors import ExtractionError
from ..text import is_cjk
from .identity import installed_languages, tessdata_dir
from .options import CJK_TESSERACT_LANGUAGES
from .second_opinion import recogniser, vote

# The OSD model's own scale: 15 is "reasonably confident"; below 2 its guess is noise.
MIN_ORIENTATION_CONFIDENCE = 2.0
OSD_MIN_DPI = 150  # OSD on a copy reduced to no less than this: as right, and faster
DESKEW_MIN_DEGREES = 0.3  # less than a point over a row: rows stay rows
# Tesseract finds and reads slightly skewed lines by itself; only beyond this is the image
# resampled level and read again (a second recognition for the few pages that need it).
ROTATE_IMAGE_DEGREES = 2.0
INK_LEVEL = 160  # grey levels (0 black, 255 white): anything darker is ink
MIN_BASELINE_INCHES = 0.5  # shorter text lines say little about the page's skew
MAX_DESKEW_DEGREES = 20.0  # beyond it the "skew" is a table rule or a stamp, not the page
MIN_TILTED_LINES, TILTED_SHARE = 5, 0.2  # lines with a slope, and their share of the length
# A reading is upright without asking OSD when at least UPRIGHT_MIN_WORDS words of three or more
# letters and digits were read, their median confidence is UPRIGHT_CONFIDENCE or more and nearly
# all of them are wider than tall. Upside down, Tesseract reads English pages at a median 0.1-0.3;
# a quarter turn one way it reads them as sure as upright (it turns what it takes for vertical
# text), but every word then stands on end. Most upright scans and photos read at 0.89-0.96
# (10 of the corpus's 14 image files); the others are asked, as every page was before.
UPRIGHT_MIN_WORDS = 10
UPRIGHT_CONFIDENCE = 0.85
UPRIGHT_LEVEL_SHARE = 0.95
# OSD's names of the scripts the CJK data reads (it names Chinese pages "Japanese" as often as
# "Han"). A reading that is not plainly upright is read with the CJK data where OSD names one
# of them, or where less than CJK_TRY_LEGIBLE of its letters and digits were read at least
# LEGIBLE_CONFIDENCE sure; the CJK reading is kept where at least CJK_MIN_SHARE of the letters
# and digits it read that sure are Han or kana, and at least CJK_MIN_CHARS of them. The five
# real scans of the corpus that do not read plainly upright: a Japanese fax 0.42 legible with
# the thirteen Latin languages (OSD: "Latin"), 0.62 of the CJK reading's legible characters Han
# or kana; a Chinese VAT invoice 0.72 (OSD: "Japanese"), 0.34; the Latin pages 0.64 (a receipt,
# whose CJK reading would give 0.15: its noise read as Han), 0.76 and 0.95, not tried.
CJK_SCRIPTS = frozenset({"Han", "Japanese"})
CJK_TRY_LEGIBLE = 0.5
CJK_MIN_SHARE, CJK_MIN_CHARS = 0.25, 20
LEGIBLE_CONFIDENCE = 0.5
# Leptonica's message severity (its environ.h) under which nothing is printed
LEPTONICA_SEVERITY_NONE = 6


Baseline = tuple[tuple[int, int], tuple[int, int]]  # a text line's ends, (x, y) pixels


@dataclass
class Word:
    text: str
    confidence: float  # 0..1
    box: tuple[int, int, int, int]  # left, top, right, bottom (pixels, origin top left)
    line: int  # index of the text line the word belongs to
    line_box: tuple[int, int, int, int]
    symbols: list[tuple[str, int, int]] = field(default_factory=list)  # text, left, right


@dataclass
class PageResult:
    words: list[Word]
    width: int  # pixels of the upright, deskewed image the boxes refer to
    height: int
    rotated: int  # quarter turns applied, in degrees clockwise
    deskewed: float  # degrees of rotation applied to level the text
    script: str | None
    # The picture the words were read from, for a second reading of a region (``region``):
    # upright and as read; its boxes were levelled by ``levelled`` degrees (PIL's sense) after
    # (a slight skew is taken out of the boxes, not the picture). None: not kept.
    picture: Image.Image | None = None
    levelled: float = 0.0


class Engine:
    """One Tesseract instance for recognition and one for OSD; not for concurrent use."""

    def __init__(self, languages: str):
        from tesserocr import OEM, PSM, PyTessBaseAPI

        directory = tessdata_dir()
        missing = [lang for lang in [*languages.split("+"), "osd"]
                   if lang not in installed_languages(directory)]
        if missing:
            raise ExtractionError("ocr_unavailable", "Tesseract language data missing: "
                                  + ", ".join(missing) + " (Debian: tesseract-ocr-"
                                  + ", tesseract-ocr-".join(missing) + ")", transient=True)
        self.languages = languages
        self.lock = threading.Lock()
        quiet_leptonica()
        self._api = PyTessBaseAPI(path=directory, lang=languages, oem=OEM.LSTM_ONLY,
                                  psm=PSM.AUTO)
        self._osd = PyTessBaseAPI(path=directory, lang="osd", psm=PSM.OSD_ONLY)
        self.second = recogniser()  # re-reads the words Tesseract is unsure of
        # Loaded on the first page that may be Chinese or Japanese (none where its data is not
        # installed: such pages are read with the Latin data only, and the cache key says so).
        self._cjk = None
        self._cjk_installed = all(lang in installed_languages(directory)
                                  for lang in CJK_TESSERACT_LANGUAGES.split("+"))
        self._directory = directory

    def read(self, image: Image.Image, dpi: float,
             analysis: Image.Image | None = None) -> PageResult:
        """``analysis``: the page as it was before its lighting was flattened, for orientation
        (OSD's own binarisation reads the original grey levels better: on a flattened table page
        it guessed upside down), at ``image``'s size or any other."""
        small, _ = _analysis_copy(image, dpi, analysis)
        if _blank(small):  # an empty page (a PDF's blank last page): nothing to analyse
            return PageResult([], image.size[0], image.size[1], 0, 0.0, None)
        with self.lock:
            api = self._api
            words, baselines = self._recognise(image, dpi, api)
            turned, script = 0, None
            if not _reads_upright(words):
                turned, script = self._orientation(small)
                if turned:  # the page is turned this far clockwise: turn it back, read again
                    image = image.rotate(turned, expand=True)
                    words, baselines = self._recognise(image, dpi, api)
                if self._cjk_installed and (script in CJK_SCRIPTS
                                            or _legible_share(words) < CJK_TRY_LEGIBLE):
                    cjk_words, cjk_baselines = self._recognise(image, dpi, self._cjk_api())
                    if _written_in_cjk(cjk_words):
                        api, words, baselines = self._cjk, cjk_words, cjk_baselines
                        script = "Han"
            angle = _skew(baselines, dpi)
            straighten = 0.0
            if abs(angle) >= ROTATE_IMAGE_DEGREES:
                image = image.rotate(angle, resample=Image.Resampling.BILINEAR, expand=True,
                                     fillcolor=255)
                words, _ = self._recognise(image, dpi, api)
            elif abs(angle) >= DESKEW_MIN_DEGREES:
                straighten = angle  # Tesseract reads a slight skew well: level the boxes only
            else:
                angle = 0.0
        if self.second is not None:
            vote(words, image, self.second)
        if straighten:
            _straighten(words, straighten, image.size)
        return PageResult(words, image.size[0], image.size[1], turned, angle, script,
                          picture=image, levelled=straighten)

    def _recognise(self, image: Image.Image, dpi: float, api
                   ) -> tuple[list[Word], list[Baseline]]:
        """The page's words, and the baseline of each of its text lines, as ``api`` reads them."""
        api.SetImage(image)
        api.SetSourceResolution(max(70, round(dpi)))
        if not api.Recognize():
            raise ExtractionError("ocr_failed", "Tesseract could not recognise the page")
        baselines: list[Baseline] = []
        words = self._words(api, baselines)
        api.Clear()
        return words, baselines

    def _cjk_api(self):
        if self._cjk is None:
            from tesserocr import OEM, PSM, PyTessBaseAPI

            self._cjk = PyTessBaseAPI(path=self._directory, lang=CJK_TESSERACT_LANGUAGES,
                                      oem=OEM.LSTM_ONLY, psm=PSM.AUTO)
        return self._cjk

    def _orientation(self, small: Image.Image) -> tuple[int, str | None]:
        self._osd.SetImage(small)
        found = self._osd.DetectOrientationScript()
        self._osd.Clear()
        if not found or found["orient_conf"] < MIN_ORIENTATION_CONFIDENCE:
            return 0, (found or {}).get("script_name")
        return found["orient_deg"], found["script_name"]

    def _words(self, api, baselines: list[Baseline]) -> list[Word]:
        """The recognised words; the text lines' baselines are added to ``baselines``."""
        from tesserocr import RIL

        it = api.GetIterator()
        words: list[Word] = []
        if it is None or it.Empty(RIL.SYMBOL):
            return words
        line, line_box, word = -1, (0, 0, 0, 0), None
        while True:
            if it.IsAtBeginningOf(RIL.TEXTLINE):
                line += 1
                line_box = _row_box(it)
                baseline = it.Baseline(RIL.TEXTLINE)
                if baseline:
                    baselines.append(baseline)
            if it.IsAtBeginningOf(RIL.WORD) or word is None:
                word = Word(text=it.GetUTF8Text(RIL.WORD) or "",
                            confidence=max(0.0, it.Confidence(RIL.WORD)) / 100.0,
                            box=it.BoundingBox(RIL.WORD), line=line, line_box=line_box)
                words.append(word)
            symbol = it.GetUTF8Text(RIL.SYMBOL)
            box = it.BoundingBox(RIL.SYMBOL)
            if symbol and box:
                word.symbols.append((symbol, box[0], box[2]))
            if not it.Next(RIL.SYMBOL):
                break
        return words


def quiet_leptonica() -> bool:
    """Turn off the messages of the Leptonica library Tesseract runs on; whether it was found.

    Tesseract's layout analysis asks Leptonica for boxes and foreground that a photographed
    page's edges do not have, and Leptonica prints each refusal to the process's stderr ("Error
    in boxClipToRectangle: box outside rectangle", "Error in pixScanForForeground: no fg
    pixels found"): Tesseract goes on without them and reads the page, and a worker's log fills
    with errors that are none. Tesseract's own failures still raise (``_recognise``). The
    library is the one loaded in this process (tesserocr's wheel brings its own copy), found in
    the process's memory map; where it is not found (not Linux), its messages stay."""
    import ctypes

    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split(maxsplit=5)[-1].strip() for line in maps if "/liblept" in line}
    except OSError:
        return False
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        library.setMsgSeverity(LEPTONICA_SEVERITY_NONE)
        return True
    return False


def _reads_upright(words: list[Word]) -> bool:
    """Does this reading show an upright page (see ``UPRIGHT_CONFIDENCE``)?"""
    long = [w for w in words if sum(ch.isalnum() for ch in w.text) >= 3]
    if len(long) < UPRIGHT_MIN_WORDS:
        return False
    level = sum(w.box[2] - w.box[0] > w.box[3] - w.box[1] for w in long)
    return (level >= UPRIGHT_LEVEL_SHARE * len(long)
            and statistics.median(w.confidence for w in long) >= UPRIGHT_CONFIDENCE)


def legible_characters(words: list[Word]) -> list[str]:
    """The letters and digits of the words read at least LEGIBLE_CONFIDENCE sure."""
    return [ch for w in words if w.confidence >= LEGIBLE_CONFIDENCE
            for ch in w.text if ch.isalnum()]


def _legible_share(words: list[Word]) -> float:
    """The share of the reading's letters and digits read at least LEGIBLE_CONFIDENCE sure."""
    read = sum(ch.isalnum() for w in words for ch in w.text)
    return len(legible_characters(words)) / read if read else 1.0


def _written_in_cjk(words: list[Word]) -> bool:
    """Does a reading with the CJK data show a page written in Han or kana (CJK_MIN_SHARE)?"""
    legible = legible_characters(words)
    cjk = sum(is_cjk(ch) for ch in legible)
    return cjk >= CJK_MIN_CHARS and cjk >= CJK_MIN_SHARE * len(legible)


def _skew(baselines: list[Baseline], dpi: float) -> float:
    """Median slope of the text lines' baselines, in degrees (PIL's rotation sense)."""
    slopes = []
    for (x1, y1), (x2, y2) in baselines:
        if x2 - x1 >= MIN_BASELINE_INCHES * dpi:
            slopes.append((math.degrees(math.atan2(y2 - y1, x2 - x1)), x2 - x1))
    # Tesseract levels the lines inside boxes and tables itself and gives their baselines
    # exactly level, on a skewed page too (a photographed invoice of framed fields has
    # forty such lines and eighteen that show its 4.5 degrees): the slope of the lines that
    # have one decides, where they are several and a fair share of the text's length.
    tilted = [(slope, length) for slope, length in slopes if slope != 0.0]
    if (len(tilted) < MIN_TILTED_LINES
            or sum(n for _, n in tilted) < TILTED_SHARE * sum(n for _, n in slopes)):
        return 0.0
    angle = statistics.median(slope for slope, _ in tilted)
    return angle if abs(angle) <= MAX_DESKEW_DEGREES else 0.0


def _analysis_copy(image: Image.Image, dpi: float, source: Image.Image | None = None
                   ) -> tuple[Image.Image, float]:
    """A copy of ``image`` (or of ``source``, the same page before its last preparation) of
    about OSD_MIN_DPI for orientation, and its scale against ``image``."""
    scale = 1.0 if dpi <= OSD_MIN_DPI * 1.15 else OSD_MIN_DPI / dpi
    size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
    source = source if source is not None else image
    if source.size == size:
        return source, scale
    return source.resize(size, Image.Resampling.BILINEAR), scale


def _blank(image: Image.Image) -> bool:
    """No pixel darker than INK_LEVEL: paper, perhaps with a faint shadow, and no ink."""
    return image.getextrema()[0] > INK_LEVEL


def _straighten(words: list[Word], angle: float, size: tuple[int, int]) -> None:
    """Level the boxes of a slightly skewed page in place: each text line is moved to where
    its middle lands when the page is turned `angle` degrees (PIL's sense) about its centre,
    each word along with it, so a row's cells end up on one row."""
    theta = math.radians(angle)
    cos, sin = math.cos(theta), math.sin(theta)
    cx, cy = size[0] / 2, size[1] / 2

    def turned(x: float, y: float) -> tuple[float, float]:
        return (cx + (x - cx) * cos + (y - cy) * sin, cy - (x - cx) * sin + (y - cy) * cos)

    line_shift: dict[int, float] = {}
    for word in words:
        left, top, right, bottom = word.line_box
        if word.line not in line_shift:
            mid_x, mid_y = (left + right) / 2, (top + bottom) / 2
            line_shift[word.line] = turned(mid_x, mid_y)[1] - mid_y
        dy = line_shift[word.line]
        wx, wy = (word.box[0] + word.box[2]) / 2, (word.box[1] + word.box[3]) / 2
        dx = turned(wx, wy)[0] - wx
        word.box = _shift(word.box, dx, dy)
        word.line_box = _shift(word.line_box, 0, dy)
        word.symbols = [(text, round(lo + dx), round(hi + dx)) for text, lo, hi in word.symbols]


def _shift(box, dx: float, dy: float) -> tuple[int, int, int, int]:
    return (round(box[0] + dx), round(box[1] + dy), round(box[2] + dx), round(box[3] + dy))


def _row_box(it) -> tuple[int, int, int, int]:
    """The text line's box from its baseline and font metrics, not from its ink: like a text
    layer's line, it spans the font's height whether or not the words have descenders."""
    from tesserocr import RIL

    box = it.BoundingBox(RIL.TEXTLINE)
    baseline = it.Baseline(RIL.TEXTLINE)
    row = it.RowAttributes()
    if not (box and baseline and row and row.get("row_height", 0) > 0):
        return box
    (x1, y1), (x2, y2) = baseline
    middle = (box[0] + box[2]) / 2
    base = y1 if x2 == x1 else y1 + (y2 - y1) * (middle - x1) / (x2 - x1)
    bottom = base - min(0.0, row.get("descenders", 0.0))
    return (box[0], round(bottom - row["row_height"]), box[2], round(bottom))


_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def engine_for(languages: str) -> Engine:
    """The process's engine for these languages, loaded on first use (the fork server's is
    inherited by every extraction child)."""
    with _engines_lock:
        engine = _engines.get(languages)
        if engine is None:
            engine = _engines[languages] = Engine(languages)
        return engine
