"""What the rest of the page says for and against a chosen seller name.

The ranker scores each place a name is printed on its own; whether the chosen name is the
issuer's also shows in the other places the page prints the same name (with or without its
legal form, in capitals or not) and in the issuer's own lines: the block of a "Seller" label,
the e-mail domain or website, the seller's VAT id printed in the name's block, the holder of the
bank account. Against it speak the addressee's side (the block of a "Bill to" label, the buyer's
VAT id in the block, the recipient block under the sender line), the name being the one chosen
for the buyer too, a "name" that is a label, a sentence or a code (a digital seal's base64, a
tax number), and another name on the page with
more of the issuer's own lines than this one. :func:`issuer_evidence` counts
both, for the confidence (:mod:`.confidence`): a wrong seller out of source was about as
probable to the ranker as a right one, but rarely as well supported.
"""

from __future__ import annotations

import re
from functools import cache

from babel import Locale, UnknownLocaleError

from ..finders import parties as P
from ..text import fold
from ..vocabulary import VOCABULARY as V
from .features import FEATURE_INDEX, Row

# Each is one point of support when any place of the name has it.
SUPPORT = (
    ("labelled", (f"kind_{P.PARTY_LABEL}",)),
    ("domain", ("name_in_domain",)),
    ("vat_id", ("name_block_seller_vat",)),
    ("bank", (f"kind_{P.ACCOUNT_HOLDER}", "name_near_iban")),
    ("sender", (f"kind_{P.SENDER_LINE}",)),
)
# Each is one point against when any place of the name has it.
AGAINST = (
    "name_in_buyer_block", "name_block_buyer_vat", f"kind_{P.RECIPIENT_BLOCK}",
    f"kind_{P.BELOW_SENDER_LINE}",
)
MAX_SUPPORT = 4  # more agreeing places say little more
# A label ("Vendeur", "Lieferadresse:", "Teljesítés időpontja/") or a sentence ("Bereiche ohne
# Inhalte werden nicht dargestellt!") is not a name.
_LABEL_END = re.compile(r"[:/!?]\s*$")
SENTENCE_WORDS = 6


def name_core(name) -> str:
    """A name as its spellings share it: folded, without legal forms and punctuation."""
    return re.sub(r"[\W_]+", "", V.legal_form.sub("", fold(str(name))))


def issuer_evidence(value, rows: list[Row], other_party) -> tuple[float, float]:
    """(support, against) of the seller name ``value``, from every row of the field that
    prints the same name (``rows``) and the name chosen for the buyer (``other_party``)."""
    core = name_core(value)
    if not core:
        return 0.0, 1.0
    same = [r for r in rows if r.value is not None and name_core(r.value) == core]
    support = _support(same)
    against = 0.0
    for f in AGAINST:
        if any(r.x[FEATURE_INDEX[f]] for r in same):
            against += 1
    if other_party is not None and name_core(other_party) == core:
        against += 1
    if is_label_or_sentence(str(value)):
        against += 1
    if _rival_support(core, rows) > support:
        against += 1
    return float(min(support, MAX_SUPPORT)), against


def _support(same: list[Row]) -> float:
    support = 0.0
    for _name, features in SUPPORT:
        if any(r.x[FEATURE_INDEX[f]] for r in same for f in features):
            support += 1
    if len({r.cands[0].line for r in same if r.cands}) >= 2:  # printed in two places at least
        support += 1
    return support


def _rival_support(core: str, rows: list[Row]) -> float:
    """The most support any other name on the page has: an addressee taken for the issuer
    leaves the issuer's own lines (its domain, its VAT id, its bank account) to another name."""
    others: dict[str, list[Row]] = {}
    for r in rows:
        other = name_core(r.value) if r.value is not None else ""
        if (other and other != core and not is_label_or_sentence(str(r.value))
                and not is_place(str(r.value))):
            others.setdefault(other, []).append(r)
    return max((_support(same) for same in others.values()), default=0.0)


def is_label_or_sentence(text: str) -> bool:
    """Is a "name" a label (of a party, a delivery, a total or an item column), a sentence or a
    code, rather than a name?"""
    folded = fold(text).strip()
    return bool(
        _LABEL_END.search(folded)
        or V.seller_label.match(folded)
        or V.buyer_label.match(folded)
        or V.delivery_label.search(folded)
        or _whole(V.totals_row, folded)  # "Totaal" over the items' column and by the total
        or any(_whole(rx, folded) for rx in V.column_headers.values())  # "Unit Price"
        or len(folded.split()) > SENTENCE_WORDS
        or is_code(text)
    )


def _whole(rx: re.Pattern, folded: str) -> bool:
    m = rx.match(folded)
    return m is not None and m.end() >= len(folded.rstrip(" :"))


def is_place(text: str) -> bool:
    """Is a "name" where a party is rather than who: a country's name or code ("UNITED STATES",
    "Schweiz", "FR", in any vocabulary language) or an address line (a postcode, a street and
    its number)? Printed twice (the issuer's and the addressee's address, a payment slip), such
    a line is no rival of the issuer."""
    folded = fold(text).strip(" ,.")
    if folded in _country_names() or text.strip() in _country_codes():
        return True
    return any(c.isdigit() for c in folded) and bool(P.ADDRESS.search(folded))


@cache
def _country_codes() -> frozenset[str]:
    return frozenset(code for code in Locale("en").territories if len(code) == 2)


@cache
def _country_names() -> frozenset[str]:
    """Every country's name in the vocabulary's languages (CLDR, through babel), folded."""
    names = set()
    for language in V.languages:
        try:
            territories = Locale.parse(language).territories
        except (ValueError, UnknownLocaleError):
            continue
        names.update(fold(n) for code, n in territories.items() if len(code) == 2)
    return frozenset(names)


# A code (a digital seal's base64, a hash, a tax or serial number) is not a name: a word of this
# many characters mixing letters and digits, a character of base64 or of a formula, or fewer
# letters than other characters ("2021/0042", "GBA850422V27").
CODE_WORD_CHARS = 8
_CODE_WORD = re.compile(rf"(?=\w*\d)(?=\w*[^\W\d_])\w{{{CODE_WORD_CHARS},}}")
_CODE_CHARS = re.compile(r"[=+<>{}|\\]")


def is_code(text: str) -> bool:
    """Is a "name" a code rather than a name?"""
    shown = "".join(text.split())
    letters = sum(c.isalpha() for c in shown)
    return bool(_CODE_CHARS.search(text) or any(_CODE_WORD.fullmatch(w) for w in text.split())
                or letters < len(shown) - letters)
