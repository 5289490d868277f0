"""The vocabulary of each invoice language, one module per language.

A language module defines ``LANGUAGE``: the printed words (labels and phrases, each with the
synonyms real issuers use), item names, business words for company names, and the countries
that write invoices in it (currency, VAT rates, legal forms, identifier shapes, date patterns).
Adding a language is adding one module here and its code to ``LANGUAGE_CODES``.
"""

from __future__ import annotations

import importlib

from .base import CREDIT_NOTE_KEYS, PLACEHOLDERS, WORD_KEYS, Country, Item, Language

LANGUAGE_CODES = ("en", "de", "fr", "es", "it", "nl", "pl", "cs", "pt", "sv", "da", "no", "fi")


def _load() -> dict[str, Language]:
    out = {}
    for code in LANGUAGE_CODES:
        module = importlib.import_module(f"{__name__}.{code}")
        out[code] = module.LANGUAGE
    return out


LANGUAGES: dict[str, Language] = _load()

__all__ = ["CREDIT_NOTE_KEYS", "LANGUAGES", "LANGUAGE_CODES", "PLACEHOLDERS", "WORD_KEYS",
           "Country", "Item", "Language"]
