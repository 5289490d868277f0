"""The languages Ledgerline reads invoices in: one row each, and everything that names a language
reads it here.

A language's ISO 639-1 code names its vocabulary module (``vocabulary/<code>.py``: the words
invoices are read by) and its sample language in the tooling
(``ledgerline_tools/samples/languages/<code>.py``); its row gives the name of Tesseract's language
data for OCR (one Debian package each, ``tesseract-ocr-<name>`` with "_" written "-"). Tests check that every row has
both modules and that no module lacks a row. Adding a language is a row here and those two files
(see ``vocabulary/__init__.py``), plus its Tesseract data in the Dockerfile and
``scripts/install-system-deps``; ``tests/unit/test_languages.py`` checks them all.

The order is OCR's (Tesseract is given the languages in it, the first primary, and its language
argument enters the cache key) and the sample generator's (it draws languages from it).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1
    tesseract: str  # the name of Tesseract's language data


LANGUAGES: dict[str, Language] = {language.code: language for language in (
    Language("en", "eng"),
    Language("de", "deu"),
    Language("fr", "fra"),
    Language("es", "spa"),
    Language("it", "ita"),
    Language("nl", "nld"),
    Language("pl", "pol"),
    Language("cs", "ces"),
    Language("pt", "por"),
    Language("sv", "swe"),
    Language("da", "dan"),
    Language("no", "nor"),
    Language("fi", "fin"),
)}
CODES = tuple(LANGUAGES)

# Languages of another script than the Latin: OCR reads a page with their data (and English's,
# for the Latin words and figures such pages carry) only where the page is written in their
# script (``ocr/engine.py``): given to Tesseract with the others on every page, Japanese and
# Chinese would make every page several times slower to read. Each has a vocabulary module but
# no sample language: the sample generator's fonts draw Latin script only, so no generated
# invoice (and no ranker training document) is written in them.
BY_SCRIPT: dict[str, Language] = {language.code: language for language in (
    Language("ja", "jpn"),
    Language("zh", "chi_sim"),
)}
SCRIPT_CODES = tuple(BY_SCRIPT)


def _vocabulary_order() -> tuple[str, ...]:
    """The table's order but for Dutch before Italian, as the two entered the vocabulary; the
    languages read by script after them."""
    order = list(CODES)
    order.insert(order.index("it"), order.pop(order.index("nl")))
    return (*order, *SCRIPT_CODES)


# The order the vocabulary joins its languages' phrases in: it orders labels of equal weight and
# enters the cache key (MODEL_CONFIG["languages"]), so it stays as it was when the vocabulary
# and OCR learnt these languages apart; a language added later comes last in both.
VOCABULARY_ORDER = _vocabulary_order()
