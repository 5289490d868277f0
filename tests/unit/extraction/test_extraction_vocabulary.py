"""The vocabulary loader: language data modules compiled into patterns, CLDR month names and
ISO 4217 currency codes."""

import datetime as dt
import types

import pytest

from ledgerline.extraction import vocabulary
from ledgerline.extraction.languages import CODES
from ledgerline.extraction.finders.labels import match_labels
from ledgerline.extraction.text import fold
from ledgerline.extraction.values.currencies import CURRENCIES
from ledgerline.extraction.values.dates import find_dates


def _fields(vocab, text):
    folded = fold(text)
    return {
        name
        for name, labels in vocab.labels.items()
        for label in labels
        if label.pattern.search(folded)
    }


def test_every_language_module_loads_and_labels_the_key_fields():
    for code in CODES:
        vocab = vocabulary.load((code,))
        for field in ("invoice_number", "issue_date", "gross_total", "net_total", "tax_total"):
            assert any(label.language == code for label in vocab.labels[field]), (code, field)


def test_a_language_left_out_is_not_read():
    german = vocabulary.load(("de",))
    assert "invoice_number" in _fields(german, "Rechnungsnummer")
    assert "invoice_number" not in _fields(german, "Factuurnummer")
    assert "invoice_number" in _fields(vocabulary.VOCABULARY, "Factuurnummer")


def test_label_hits_carry_their_language():
    hits = match_labels(fold("Fecha de vencimiento"), ("due_date",))
    assert {h.language for h in hits} == {"es"}


def test_a_misspelt_name_in_a_language_module_is_refused(monkeypatch):
    broken = types.ModuleType(f"{vocabulary.__name__}.xx")
    broken.LABLES = {}
    monkeypatch.setitem(__import__("sys").modules, broken.__name__, broken)
    with pytest.raises(ValueError, match="LABLES"):
        vocabulary.load(("xx",))


def test_an_unknown_label_condition_is_refused(monkeypatch):
    broken = types.ModuleType(f"{vocabulary.__name__}.xx")
    broken.LABELS = {"due_date": [(r"\bdue\b", 1.0, {"not_before": "elsewhere"})]}
    monkeypatch.setitem(__import__("sys").modules, broken.__name__, broken)
    with pytest.raises(ValueError, match="elsewhere"):
        vocabulary.load(("xx",))


@pytest.mark.parametrize(
    "text,expected",
    [
        ("3. März 2018", dt.date(2018, 3, 3)),
        ("3. Jänner 2018", dt.date(2018, 1, 3)),  # de_AT
        ("3 Sept 2018", dt.date(2018, 9, 3)),  # en_GB
        ("15 setiembre 2019", dt.date(2019, 9, 15)),  # es_PE
        ("1er février 2020", dt.date(2020, 2, 1)),
        ("1er fevrier 2020", dt.date(2020, 2, 1)),  # accents dropped
        ("2 mrt 2021", dt.date(2021, 3, 2)),
        ("9 giugno 2022", dt.date(2022, 6, 9)),
        ("5 marca 2024", dt.date(2024, 3, 5)),  # Polish genitive
        ("5. března 2024", dt.date(2024, 3, 5)),
        ("20 de outubro de 2024", dt.date(2024, 10, 20)),
        ("5 mars 2024", dt.date(2024, 3, 5)),
        ("5. marts 2024", dt.date(2024, 3, 5)),
        ("21. september 2025", dt.date(2025, 9, 21)),
        ("5. maaliskuuta 2024", dt.date(2024, 3, 5)),  # Finnish partitive
    ],
)
def test_month_names_come_from_cldr(text, expected):
    assert find_dates(text)[0][0] == expected


def test_currency_codes_are_iso_4217_in_use():
    assert {"EUR", "USD", "CHF", "PLN", "HRK", "BGN", "KZT"} <= CURRENCIES
    assert not {"XAU", "XTS", "XXX"} & CURRENCIES  # metals and test codes
    assert not {"ALL", "TOP", "PEN"} & CURRENCIES  # words printed in capitals


@pytest.mark.parametrize(
    "text,code",
    [
        ("Att betala 1 250,00 kr\nBankgiro 123-4567", "SEK"),
        ("CVR-nr. 12345678\nI alt 1.250,00 kr.", "DKK"),
        ("Sum inkl. mva 1 250,00 kr", "NOK"),
        ("Celkem 1 250,00 Kč", "CZK"),
        ("Total R$ 1.250,00", "BRL"),
        ("Razem 1 250,00 zl", "PLN"),
    ],
)
def test_currency_words_of_the_later_languages(text, code):
    folded = fold(text)
    named = {c for rx, c in vocabulary.VOCABULARY.currency_words if rx.search(folded)}
    assert named == {code}


def test_a_bare_crown_names_no_currency():
    folded = fold("Summa 1 250,00 kr")
    assert not [c for rx, c in vocabulary.VOCABULARY.currency_words if rx.search(folded)]
