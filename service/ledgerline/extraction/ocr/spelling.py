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
"""
from __future__ import annotations

import re

from ..geometry import DocText
from ..text import fold
from ..vocabulary import VOCABULARY as V

_ADDRESS = re.compile(r"@|\bwww\b|https?:|\.(?:com|net|org)\b")
_DOMAIN = re.compile(r"(?:www\.|@|https?://)([a-z0-9-]+)\.[a-z]")
_WORD = re.compile(r"\w{4,}")
MIN_DOMAIN_LETTERS = 4  # "abc.de" could be the letters of many names
MAX_VOTES = 3  # more places say little more


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
