"""Every language renders, and pdfminer's text holds every value the truth says is printed."""

from __future__ import annotations

import pytest

from ledgerline_tools.samples import LANGUAGE_CODES, TEMPLATE_NAMES

from .conftest import page_text, sample, squash

KEY_PRINTED = ("invoice_number", "issue_date", "seller_name", "buyer_name", "gross_total")
# Two layouts per language, rotating through all of them.
CASES = [(lang, TEMPLATE_NAMES[(i + k) % len(TEMPLATE_NAMES)])
         for i, lang in enumerate(LANGUAGE_CODES) for k in (0, 4)]


@pytest.mark.parametrize("lang,template", CASES)
def test_every_printed_value_is_in_the_text_layer(lang, template):
    seed = 100 + LANGUAGE_CODES.index(lang)
    _, truth = sample(seed, lang, template)
    text = page_text(seed, lang, template)
    printed = truth["_printed"]
    for field in KEY_PRINTED:
        assert field in printed, f"{field} not printed"
    for field, value in printed.items():
        assert squash(value) in text, f"{field} printed as {value!r} is not in the text"
    assert truth["invoice_number"] in text


@pytest.mark.parametrize("template", TEMPLATE_NAMES)
def test_one_page_layouts_fit_one_page_and_multi_page_spans_several(template):
    for seed in range(3):
        _, truth = sample(200 + seed, "pl", template)
        pages = truth["_generator"]["pages"]
        assert pages > 1 if template == "multi_page" else pages == 1


def test_national_letters_survive_extraction():
    text = page_text(7, "cs", "two_columns")
    assert any(ch in text for ch in "ěščřžýáíéůúňťď")


def test_dates_are_written_with_the_locales_month_names():
    from ledgerline_tools.samples import generate

    months = {"de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
                     "September", "Oktober", "November", "Dezember", "Jänner")}
    long_dates = [generate(s, "de", "letterhead")[1]["_printed"]["issue_date"] for s in range(40)]
    written = [d for d in long_dates if any(m in d for m in months["de"])]
    assert written, "no written-out German date in 40 invoices"
