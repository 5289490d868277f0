"""Deterministic sample invoices: realistic PDFs with their expected field values.

    generate(seed, lang=None, template=None) -> (pdf_bytes, truth)
    scan(pdf_bytes, seed, dpi=200, photo=False) -> Scan(images, pdf, dpi)
    LANGUAGE_CODES, TEMPLATE_NAMES

The same seed (and language and template) gives byte-identical PDFs: reportlab's invariant
mode writes no creation date or random file id, and every random choice comes from generators
seeded by the arguments. ``generate(seed)`` draws the language and template from the seed and
equals ``generate(seed, lang=L, template=T)`` for the ones it drew.
"""

from __future__ import annotations

import random

from .build import P_CREDIT_NOTE, as_credit_note, build_invoice, draw_country
from .formats import Formatter, draw_style
from .languages import CREDIT_NOTE_KEYS, LANGUAGE_CODES, LANGUAGES, WORD_KEYS
from .layouts import TEMPLATE_NAMES
from .layouts import load as load_template
from .render import Ctx, draw_look
from .truth import GENERATOR_VERSION, truth_of

__all__ = ["GENERATOR_VERSION", "LANGUAGE_CODES", "TEMPLATE_NAMES", "generate", "scan"]


def generate(seed: int, lang: str | None = None, template: str | None = None,
             document_type: str | None = None) -> tuple[bytes, dict]:
    """One invoice PDF and its truth (corpus schema plus ``_printed`` and friends).
    ``document_type`` "credit_note" or "invoice" makes it one; by default a seed draws a credit
    note now and then (:data:`build.P_CREDIT_NOTE`), from a generator of its own."""
    pick = random.Random(f"ledgerline-samples:{seed}:pick")
    lang = lang or pick.choice(LANGUAGE_CODES)
    template = template or pick.choice(TEMPLATE_NAMES)
    if lang not in LANGUAGES:
        raise KeyError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGE_CODES)}")
    layout = load_template(template)
    rng = random.Random(f"ledgerline-samples:{seed}:{lang}:{template}")
    language = LANGUAGES[lang]
    country = draw_country(rng, language)
    invoice = build_invoice(rng, language, country, layout.NEEDS)
    style = draw_style(rng, locale=country.locale, currency=country.currency,
                       date_patterns=country.date_patterns, colon=language.colon,
                       percent_space=language.percent_space)
    words = choose_words(rng, language, country)
    credit = random.Random(f"ledgerline-samples:{seed}:{lang}:{template}:credit-note")
    if document_type == "credit_note" or (
            document_type is None and credit.random() < P_CREDIT_NOTE):
        invoice = as_credit_note(credit, invoice, language)
        words = {**words, **credit_note_words(credit, language)}
    ctx = Ctx(invoice, Formatter(style), words, draw_look(rng), rng, country.page_size)
    pdf, pages = layout.render(ctx)
    return pdf, truth_of(ctx, seed=seed, template=template, pages=pages)


def choose_words(rng: random.Random, language, country) -> dict[str, str]:
    """One synonym per word for the whole invoice (country overrides first)."""
    keys = list(WORD_KEYS) + sorted(
        k for k in language.words if k not in WORD_KEYS and k not in CREDIT_NOTE_KEYS)
    return {k: rng.choice(country.words.get(k, language.words[k])) for k in keys}


def credit_note_words(rng: random.Random, language) -> dict[str, str]:
    """A credit note's title and number label in place of the invoice's, and the label of the
    invoice it credits."""
    title, number, preceding = (rng.choice(language.words[k]) for k in CREDIT_NOTE_KEYS)
    return {"invoice": title, "invoice_number": number, "preceding_invoice": preceding}


def scan(pdf: bytes, seed: int, **options):
    """Render ``pdf`` and degrade it like a scan or phone photo; see ``samples.scan``."""
    from .scan import scan_pdf

    return scan_pdf(pdf, seed, **options)
