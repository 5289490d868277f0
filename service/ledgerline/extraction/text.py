"""Text normalisation shared by sources and finders.

``normalise_text`` is applied by the sources to everything they read; ``fold`` gives the
lower-case, accent-free copy that vocabulary patterns are written against. Folding keeps the
length of the text, so a match offset in the folded copy is the same offset in the printed line.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_SPACES = "\u00a0\u202f\u2009\u2007\u2008\u200a"
_SPACE_RE = re.compile(f"[{_SPACES}]")
# The Unicode hyphen and non-breaking hyphen print as "-" and join the parts of identifiers and
# dates ("IOPOLE‐jdz7", "18‐08‐2026") as it does; dashes and the minus sign keep their meaning.
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-"})


def normalise_text(text: str) -> str:
    """NFC-normalise, turn the many Unicode spaces into plain spaces and hyphens into "-"."""
    text = unicodedata.normalize("NFC", text)
    return _SPACE_RE.sub(" ", text).translate(_HYPHENS)


@lru_cache(maxsize=4096)
def _fold_char(c: str) -> str:
    low = c.lower()
    if len(low) != 1:
        low = c
    decomposed = unicodedata.normalize("NFKD", low)
    base = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return base if len(base) == 1 else low


# Japanese kana (with the katakana's phonetic extensions) and Han characters (with extension A
# and the compatibility ideographs): scripts written without spaces between words.
_CJK_RANGES = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
               (0xF900, 0xFAFF))
CJK_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES)  # in a [...] class


def is_cjk(ch: str) -> bool:
    """A Han character or Japanese kana (:data:`CJK_CLASS`)."""
    code = ord(ch)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def fold(text: str) -> str:
    """Lower-case, accent-free copy of ``text`` with exactly the same length."""
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(c) for c in text)
