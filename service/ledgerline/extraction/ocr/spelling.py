"""How the page's other places spell a name OCR read: the same name read again, letter for letter,
or the same letters with other accents.

Tesseract misreads accents at word confidences as high as a right word's ("Nystrém" for
"Nyström", "Rädgivning" for "Rådgivning"), so the words' confidence cannot tell a seller name
read right from one misread. A seller's name is mostly printed more than once (the letterhead,
the footer's legal line, the account holder), each place in its own size and surroundings, and
each read on its own: the same spelling read again elsewhere is evidence that it was read right,
and a place whose letters are the same but whose accents differ (the letterhead's "Bâtiment",
the footer's "Batiment") says that one of them was misread. :func:`spelling_votes` counts both,
for the OCR calibration (:mod:`.calibration`).

A web or mail address spells a name without accents, whatever the name's own spelling is: its
domain confirms a name read without accents whose letters, but for its legal form, are the
domain's (``billing@planung-hamann.de`` for "Planung Hamann OHG"), and says nothing of a name
with accents. A word of the name that the page prints elsewhere with other accents (the name's
"Servicos", an item's "Serviços") speaks against the name as its other places do: OCR drops an
accent as surely as it reads one.

A name printed once has no other place; the second recogniser reading its place again
(:mod:`.region`) is the evidence left (:func:`read_again_vote`). It reads the same pixels with
another model, whose misreads are its own for the letters ("Holmqvists" that Tesseract read
"Holmavists" on a blurred photo), but not for the accents: its alphabet has á é í ó ú à è ì ò
ä ü and none of â ç ñ ö å ø or the Slavic letters, and it drops even those it has
("Pospisilova"). So its reading confirms a name's letters and the accents it reads itself, and
never that a plain letter has no accent: both engines read "Batiment" for a photo's
"Bâtiment". That is asked of the pixels: where the page prints a letter of the name elsewhere
with an accent ("â" or "à" for an "a"), that letter's ink in the name's place reaching above
its like or below the baseline (:meth:`.region.PagePicture.ink`) says the accent may have
been dropped, and the second reading confirms nothing.
"""
from __future__ import annotations

import re

from ..geometry import DocText
from ..model import ReadAgain
from ..text import fold
from ..vocabulary import VOCABULARY as V

_ADDRESS = re.compile(r"@|\bwww\b|https?:|\.(?:com|net|org)\b")
_DOMAIN = re.compile(r"(?:www\.|@|https?://)([a-z0-9-]+)\.[a-z]")
_WORD = re.compile(r"\w{4,}")
MIN_DOMAIN_LETTERS = 4  # "abc.de" could be the letters of many names
MAX_VOTES = 3  # more places say little more
# The second recogniser's confidence (mean over its characters) at which its reading of a name
# counts: a right name's place read again reads 0.94-1.00, a cut or stained crop lower.
READ_AGAIN_SURE = 0.9
# Letters with a stroke, which folding keeps (they do not decompose), and the letter they are
# read as when the stroke is lost.
_STROKED = {"ø": "o", "ł": "l", "đ": "d", "ı": "i"}


def letters(text: str, folded: str | None = None, *,
            legal_form: bool = True) -> tuple[str, str]:
    """The letters and digits of ``text`` as spelt (lower case, accents kept) and folded
    (accents dropped), without punctuation and spaces (and without legal forms when
    ``legal_form`` is false); both of the same length."""
    folded = fold(text) if folded is None else folded
    keep = [True] * len(text)
    if not legal_form:
        for m in V.legal_form.finditer(folded):
            keep[m.start():m.end()] = [False] * (m.end() - m.start())
    spelt, plain = [], []
    for ch, f, kept in zip(text, folded, keep, strict=True):
        if kept and f.isalnum():
            low = ch.lower()
            spelt.append(low if len(low) == 1 else ch)
            plain.append(f)
    return "".join(spelt), "".join(plain)


def spelling_votes(dt: DocText, name: str, line: int | None) -> tuple[float, float]:
    """(agree, differ): how many OCR'd lines other than the name's own ``line`` print the
    name's letters (its legal form included) with the same accents, or, for a name without
    accents, an address whose domain is its letters; and how many print them, or one of its
    words, with other accents (each at most :data:`MAX_VOTES`)."""
    spelt, plain = letters(name)
    if len(plain) < 3:
        return 0.0, 0.0
    core = letters(name, legal_form=False)[1]
    words = [(w.lower(), fold(w)) for w in _WORD.findall(name)]
    agree = differ = 0
    for i, ln in enumerate(dt.lines):
        if i == line or ln.confidences is None:
            continue
        if _ADDRESS.search(dt.folded[i]):
            agree += spelt.isascii() and core in _domains(dt.folded[i])
            continue
        line_spelt, line_plain = letters(ln.text, dt.folded[i])
        start = _find(line_spelt, line_plain, spelt, plain)
        if start is not None:
            if line_spelt[start:start + len(spelt)] == spelt:
                agree += 1
            else:
                differ += 1
        elif _word_spelt_otherwise(ln.text, dt.folded[i], words):
            differ += 1
    return float(min(agree, MAX_VOTES)), float(min(differ, MAX_VOTES))


def _domains(folded: str) -> set[str]:
    """The letters of the domains of the line's addresses (before the top-level domain)."""
    return {label for m in _DOMAIN.finditer(folded)
            if len(label := m.group(1).replace("-", "")) >= MIN_DOMAIN_LETTERS}


def _word_spelt_otherwise(text: str, folded: str, words: list[tuple[str, str]]) -> bool:
    """Does the line print a word of the name (four letters or more) with other accents?"""
    for m in _WORD.finditer(text):
        word, plain = m.group().lower(), folded[m.start():m.end()]
        if any(plain == w_plain and word != w for w, w_plain in words):
            return True
    return False


def _find(line_spelt: str, line_plain: str, spelt: str, plain: str) -> int | None:
    """Where the line prints the name's letters, an accented letter on either side matching any
    letter (a misread accent need not fold to the same letter: "Nystrém" for "Nyström")."""
    for start in range(len(line_plain) - len(plain) + 1):
        if all(lp == p or not ls.isascii() or not s.isascii()
               for lp, ls, p, s in zip(line_plain[start:], line_spelt[start:], plain, spelt)):
            return start
    return None


def read_again_vote(dt: DocText, name: str, line: int | None, bbox,
                    again: ReadAgain | None) -> float:
    """What a second reading (``again``) of the name's place ``bbox`` on its ``line`` says:
    +1 where it read the name's letters and accents, at least :data:`READ_AGAIN_SURE` sure, and
    no plain letter of the name may have lost an accent (:func:`_in_doubt`); -1 where it read
    other letters (accents aside); 0 otherwise, and where the page cannot be read again."""
    if again is None or not bbox or line is None:
        return 0.0
    spelt, plain = letters(name)
    if len(plain) < 3:
        return 0.0
    text, sure = again.read(bbox)
    again_spelt, again_plain = letters(text)
    if _unstroked(again_plain) != _unstroked(plain):
        return -1.0
    if again_spelt != spelt or sure < READ_AGAIN_SURE:
        return 0.0
    return 0.0 if _in_doubt(dt, line, bbox, again) else 1.0


def identifier_read_again_vote(raw: str, bbox, again: ReadAgain | None) -> float:
    """What a second reading of an identifier's place ``bbox`` says of the characters OCR read
    (``raw``, spaces aside): +1 the same, at least :data:`READ_AGAIN_SURE` sure; -1 others; 0
    where it read nothing, unsure, or the page cannot be read again.

    An invoice number has no accents and is mostly printed once, and a misread character reads
    as sure as a right one to the ranker ("704543" for "F04543" at 300 dpi, an "F" taken for a
    "7"): the other engine, whose misreads are its own, read "F04543" there, and every right
    number of the calibration's scans and photos alike."""
    if again is None or not bbox:
        return 0.0
    chars = "".join(raw.split())
    text, sure = again.read(bbox)
    got = "".join(text.split())
    if not chars or not got:
        return 0.0
    if got != chars:
        return -1.0
    return 1.0 if sure >= READ_AGAIN_SURE else 0.0


def _in_doubt(dt: DocText, line: int, bbox, again: ReadAgain) -> bool:
    """May a letter of the line inside ``bbox``, read plain, have lost an accent? Only a letter
    the page's other places print with an accent ("Bâtiment" read "Batiment" on a page that
    prints "â" or "à" elsewhere) is asked, of the ink in its place (:func:`_marked`)."""
    accented = _accented_elsewhere(dt, line)
    ln = dt.lines[line]
    placed = [(ch, box) for ch, box in zip(ln.text, ln.chars, strict=False)
              if box is not None and ch.isalpha() and box[1] > bbox[0] and box[0] < bbox[2]]
    doubtful = [k for k, (ch, _) in enumerate(placed) if ch.isascii() and ch.lower() in accented]
    if not doubtful:
        return False
    reach = _reach(placed, again.ink([bbox[0], ln.y0, bbox[2], ln.y1]))
    return any(_marked(k, placed, reach, ln.y1 - ln.y0) for k in doubtful)


# Letters whose ink reaches only the lower case letters' top (an accent raises them), and those
# whose ink stops at the baseline (a cedilla or an ogonek takes them below).
SHORT = set("acemnorsuvwxz")
ON_BASELINE = set("abcdefhiklmnorstuvwxzABCDEFGHIKLMNOPRSTUVWXYZ")
MARK_HEIGHTS = 0.1  # of the line's height: ink this far beyond its like is a mark


def _reach(placed: list, ink: list) -> list[tuple[float, float] | None]:
    """How high and how low each placed letter's ink reaches (points): every ink column is
    the letter's whose box's middle is nearest (Tesseract's boxes of a bold name's letters
    overlap)."""
    middles = [(box[0] + box[1]) / 2 for _, box in placed]
    reach: list[tuple[float, float] | None] = [None] * len(placed)
    for x, top, bottom in ink:
        k = min(range(len(middles)), key=lambda n: abs(middles[n] - x))
        got = reach[k]
        reach[k] = (top, bottom) if got is None else (max(got[0], top), min(got[1], bottom))
    return reach


def _marked(k: int, placed: list, reach: list, height: float) -> bool:
    """Does the k-th letter's ink reach above its like (an upper case letter above the other
    upper case letters, a short letter above the other short letters) or below the baseline
    the page's other letters sit on? A letter with no like to compare with, or no ink, is."""
    ch = placed[k][0]
    if reach[k] is None:
        return True
    top, bottom = reach[k]
    like = [r[0] for (c, _), r in zip(placed, reach, strict=True) if r is not None
            and (c.isupper() if ch.isupper() else c in SHORT)]
    base = [r[1] for (c, _), r in zip(placed, reach, strict=True)
            if r is not None and c in ON_BASELINE]
    if not base or ((ch.isupper() or ch in SHORT) and len(like) < 2):
        return True
    if ch in ON_BASELINE and bottom < _median(base) - MARK_HEIGHTS * height:
        return True
    if ch.isupper() or ch in SHORT:
        return top > _median(like) + MARK_HEIGHTS * height
    return ch.lower() in "ij"  # a dot or an accent: the ink cannot tell


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _unstroked(plain: str) -> str:
    return "".join(_STROKED.get(ch, ch) for ch in plain)


def _accented_elsewhere(dt: DocText, line: int | None) -> set[str]:
    """The plain letters whose accented forms the page's OCR'd lines other than ``line`` print
    (lower case): "ä" or "â" anywhere makes "a" one that may have lost its accent."""
    out = set()
    for i, ln in enumerate(dt.lines):
        if i == line or ln.confidences is None:
            continue
        for ch, plain in zip(ln.text, dt.folded[i], strict=True):
            plain = _STROKED.get(plain, plain)
            if not ch.isascii() and ch.isalpha() and plain.isascii() and plain.isalpha():
                out.add(plain)
    return out
