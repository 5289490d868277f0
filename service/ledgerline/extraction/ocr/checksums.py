"""Identifiers with a check digit, read again where OCR confused a letter with a digit.

Tesseract reads a VAT number's final letter O as a zero ("IE5643540O" → "IE56435400"), an
account number's zero as an O, a B as an 8. A text layer never does, and a VAT id or IBAN that
fails its checksum asks for review. Where a token shaped like a VAT id (a country prefix python-
stdnum knows) or an IBAN fails its checksum, the readings that swap up to ``MAX_SWAPS`` easily
confused characters are checked too, and when exactly one of them is valid it replaces the token
(same length: every character keeps its box). Two valid readings, or none, leave it as read.

An identifier's letters have no check digit, but its shape tells: a zero between two capital
letters ("INV NO: P0S01/00012379") is the letter O that Tesseract reads as a zero more often
than any other confusion, where the word is an identifier in capitals (no lower-case letter) and
the letters around it are letters only. A Canadian postcode ("K0A 1B0") alternates letters and
digits by design and keeps its zeros; a VAT id or IBAN that holds its checksum as read is kept
as read.
"""
from __future__ import annotations

import itertools
import re

from ..model import Line

MAX_SWAPS = 1  # two swaps find a valid IBAN by chance too often (1 in 97 a reading)
# Characters Tesseract confuses in identifiers, each with what it may have been.
CONFUSED = {"0": "O", "O": "0", "1": "I", "I": "1", "5": "S", "S": "5", "8": "B", "B": "8",
            "2": "Z", "Z": "2", "6": "G", "G": "6"}
_VAT = re.compile(r"\b((?:[A-Z]{2}|CHE)[0-9A-Z]{8,14})\b")
_IBAN = re.compile(r"\b([A-Z]{2}[0-9O]{2}(?: ?[0-9A-Z]{4}){2,7}(?: ?[0-9A-Z]{1,4})?)\b")
# VAT-number prefixes that are not the country's ISO code (Greece's EL, Northern Ireland's XI)
_PREFIX_COUNTRY = {"EL": "gr", "XI": "gb"}


def repair_line(line: Line) -> None:
    """Replace, in place, identifiers of the line that fail their checksum and have exactly one
    valid reading within ``MAX_SWAPS`` confusions."""
    text = line.text
    for pattern, valid, prefix in ((_VAT, _vat_valid, 2), (_IBAN, _iban_valid, 2)):
        for m in pattern.finditer(text):
            token = m.group(1)
            if valid(token) is not False:
                continue  # valid, or a prefix no checksum is known for
            fixed = _one_valid_reading(token, valid, prefix)
            if fixed is not None:
                text = text[: m.start(1)] + fixed + text[m.end(1):]
    line.text = _zeros_between_capitals(text)


# A zero with a capital letter on either side, in a word without lower-case letters.
_ZERO_IN_CAPITALS = re.compile(r"(?<=[A-Z])0(?=[A-Z])")
_WORD = re.compile(r"\S+")
_CA_POSTCODE_PART = re.compile(r"[A-Z]\d[A-Z](?:\d[A-Z]\d)?")


def _zeros_between_capitals(text: str) -> str:
    """The line with each zero between two capital letters of an identifier read as the letter
    O (same length: every character keeps its box)."""
    if "0" not in text:
        return text
    return _WORD.sub(_word_with_letters, text)


def _word_with_letters(m: re.Match) -> str:
    word = m.group(0)
    if not _ZERO_IN_CAPITALS.search(word) or any(c.islower() for c in word):
        return word
    if _CA_POSTCODE_PART.fullmatch(word.strip(".,;:()")):
        return word
    for pattern, valid in ((_VAT, _vat_valid), (_IBAN, _iban_valid)):
        if any(valid(v.group(1)) for v in pattern.finditer(word)):
            return word
    return _ZERO_IN_CAPITALS.sub("O", word)


def _one_valid_reading(token: str, valid, keep: int) -> str | None:
    places = [k for k in range(keep, len(token)) if token[k] in CONFUSED]
    found = set()
    for count in range(1, MAX_SWAPS + 1):
        for chosen in itertools.combinations(places, count):
            chars = list(token)
            for k in chosen:
                chars[k] = CONFUSED[chars[k]]
            candidate = "".join(chars)
            if valid(candidate):
                found.add(candidate)
        if found:  # the fewest swaps that give a valid reading decide
            break
    return found.pop() if len(found) == 1 else None


def _vat_valid(token: str) -> bool | None:
    import stdnum

    prefix = token[:2]
    try:
        module = stdnum.get_cc_module(_PREFIX_COUNTRY.get(prefix, prefix).lower(), "vat")
    except ImportError:
        return None
    if module is None:
        return None
    try:
        return bool(module.is_valid(token))
    except Exception:  # noqa: BLE001 - stdnum raises only its own errors; stay defensive
        return False


def _iban_valid(token: str) -> bool:
    from stdnum import iban

    return bool(iban.is_valid(token.replace(" ", "")))
