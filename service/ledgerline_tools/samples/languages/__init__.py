"""The vocabulary of each invoice language, one module per language.

A language module defines ``LANGUAGE``: the printed words (labels and phrases, each with the
synonyms real issuers use), item names, business words for company names, and the countries
that write invoices in it (currency, VAT rates, legal forms, identifier shapes, date patterns).
The languages are the registry's (``ledgerline.extraction.languages``), in its order, which the
generator draws from; adding one is its row there and one module here.
"""

from __future__ import annotations

import importlib

from ledgerline.extraction.languages import CODES as LANGUAGE_CODES
from .base import CREDIT_NOTE_KEYS, PLACEHOLDERS, WORD_KEYS, Country, Item, Language


def _load() -> dict[str, Language]:
    out = {}
    for code in LANGUAGE_CODES:
        module = importlib.import_module(f"{__name__}.{code}")
        out[code] = module.LANGUAGE
    return out


LANGUAGES: dict[str, Language] = _load()

__all__ = ["CREDIT_NOTE_KEYS", "LANGUAGES", "LANGUAGE_CODES", "PLACEHOLDERS", "WORD_KEYS",
           "Country", "Item", "Language"]
