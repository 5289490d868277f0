"""Extraction gives a document or a specific refusal (ExtractionError), never an internal
error: a KeyError in a finder is a failed, billed job in the service.

Two searches for that class of bug, on purpose:

- every generated sample invoice of every language and layout (ledgerline_tools.samples.sweep):
  each pair once here, LEDGERLINE_FUZZ_SCALE times as many seeds for a longer run, and
  `python -m ledgerline_tools.samples.sweep --per-pair 100` for thousands;
- pages of invoice-like text (hypothesis) mixing the labels of every language with what the
  samples never print: letterheads of every locale Faker knows (phone numbers, IBANs, mail
  addresses as people there write them) and of any calling code, VAT ids of any country,
  every currency sign the finders know, dates and amounts in every form. The red team's
  crash (a `Tel +370 …` beside "120.00 kr") is its first example.
"""
from __future__ import annotations

import functools
import logging
import string
import warnings

import faker.config
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ledgerline.extraction.values.currencies import AMOUNT_SYMBOLS, CONTEXT_SYMBOLS, SYMBOLS
from ledgerline_tools.samples import LANGUAGE_CODES, TEMPLATE_NAMES
from ledgerline_tools.samples.languages import LANGUAGES
from ledgerline_tools.samples.sweep import CRASHED, cases, run
from tests.fuzz.expect import read_or_refused
from tests.property.support import examples, fuzz_scale
from tests.unit.extraction.conftest import build_pdf


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGE_CODES)
def test_every_generated_layout_of_a_language_is_read_or_refused(lang, tmp_path):
    """Every layout of `lang`, fuzz-scale seeds each (seeds differ per scale, so a longer run
    looks at new invoices)."""
    mine = [c for c in cases(fuzz_scale(), first_seed=10_000 * (fuzz_scale() - 1))
            if c.lang == lang]
    assert {c.template for c in mine} == set(TEMPLATE_NAMES)
    crashed = [o for o in (run(c, str(tmp_path)) for c in mine) if o.kind == CRASHED]
    assert not crashed, "\n".join(f"{o.case}: {o.detail}" for o in crashed)


def _encodable(text: str) -> bool:
    try:
        text.encode("cp1252")  # what the test PDF's font encoding carries
    except UnicodeEncodeError:
        return False
    return True


LABELS = sorted({word for code in LANGUAGE_CODES for choices in LANGUAGES[code].words.values()
                 for word in choices if _encodable(word)})
CURRENCY_SIGNS = sorted(s for s in {*SYMBOLS, *AMOUNT_SYMBOLS, *CONTEXT_SYMBOLS, "EUR", "USD",
                                    "SEK", "NOK", "DKK", "CHF", "PLN", "CZK", "GBP", "JPY"}
                        if _encodable(s))
digits = st.text(string.digits, min_size=1, max_size=12)
phones = st.tuples(st.sampled_from(["+", "00", "(+", "Tel. +", "Phone: 00"]),
                   st.integers(1, 999), st.lists(digits, min_size=1, max_size=4)).map(
    lambda t: f"{t[0]}{t[1]}{')' if t[0] == '(+' else ''} {' '.join(t[2])}")
ibans = st.tuples(st.text(string.ascii_uppercase, min_size=2, max_size=2), digits,
                  st.lists(st.text(string.digits + string.ascii_uppercase, min_size=4,
                                   max_size=4), min_size=2, max_size=7)).map(
    lambda t: f"IBAN {t[0]}{t[1][:2]} {' '.join(t[2])}")
vat_ids = st.tuples(st.text(string.ascii_uppercase, min_size=2, max_size=3),
                    st.text(string.digits + "ABX", min_size=6, max_size=14)).map("".join)
amounts = st.tuples(st.sampled_from(["", "-", "("]), st.integers(0, 10**9),
                    st.sampled_from([".", ",", ""]), st.integers(0, 99),
                    st.sampled_from([" ", ".", ",", "'", "\u00a0", ""])).map(
    lambda t: t[0] + f"{t[1]:,}".replace(",", t[4]) + (f"{t[2]}{t[3]:02d}" if t[2] else ""))
priced = st.tuples(amounts, st.sampled_from(CURRENCY_SIGNS), st.booleans()).map(
    lambda t: f"{t[1]} {t[0]}" if t[2] else f"{t[0]} {t[1]}")
dates = st.tuples(st.integers(1, 31), st.integers(1, 12), st.integers(1890, 2250),
                  st.sampled_from(["{d:02d}.{m:02d}.{y}", "{y}-{m:02d}-{d:02d}",
                                   "{m}/{d}/{y}", "{d}/{m}/{yy:02d}", "{d}. {m}. {y}"])).map(
    lambda t: t[3].format(d=t[0], m=t[1], y=t[2], yy=t[2] % 100))
domains = st.tuples(st.text(string.ascii_lowercase, min_size=1, max_size=10),
                    st.text(string.ascii_lowercase, min_size=2, max_size=3)).map(
    lambda t: f"www.{t[0]}.{t[1]}")
words = st.text(st.characters(codec="cp1252", exclude_categories=("Cc", "Cs")), max_size=30)
tokens = st.one_of(st.sampled_from(LABELS), phones, ibans, vat_ids, amounts, priced, dates,
                   domains, words, st.sampled_from(["%", "19 %", ":", "x", "kr", "$", "Total"]))
lines = st.lists(tokens, min_size=1, max_size=4).map(" ".join).filter(str.strip)
shared_signs = st.sampled_from(sorted(s for s in CONTEXT_SYMBOLS if _encodable(s)))
# Every page is an invoice's skeleton (a number, a date, a total whose sign is often one that
# only the issuer's country resolves: kr, $, ¥, Rs) with contact lines and anything else around
# it, so that the code reading the page's country runs on every example.
skeleton = st.tuples(st.sampled_from(LABELS), digits, dates, amounts,
                     st.one_of(shared_signs, shared_signs, st.sampled_from(CURRENCY_SIGNS))).map(
    lambda t: [(50, f"{t[0]} {t[1]}"), (50, t[2]), (300, f"Total {t[3]} {t[4]}")])


@functools.cache
def _faker(locale: str):
    from faker import Faker

    logging.getLogger("faker").setLevel(logging.ERROR)  # "purely hypothetical numbers"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a deprecated locale still writes its lines
        return Faker(locale)


def _contact(locale: str, seed: int, kind: str) -> str:
    """A line of a letterhead as people in `locale` write it (Faker): its phone numbers in
    their national and international forms, an IBAN, a mail address, a street (a name where
    the locale lacks the kind)."""
    fake = _faker(locale)
    fake.seed_instance(seed)
    make = {"phone": lambda: f"Tel {fake.phone_number()}", "iban": lambda: f"IBAN {fake.iban()}",
            "mail": lambda: fake.email(), "street": lambda: fake.street_address()}[kind]
    try:
        line = make()
    except AttributeError:
        line = fake.name()
    return line.encode("cp1252", "replace").decode("cp1252")


locales = st.sampled_from(sorted(faker.config.AVAILABLE_LOCALES))
local_phones = st.builds(_contact, locales, st.integers(0, 2**16), st.just("phone"))
local_contacts = st.builds(_contact, locales, st.integers(0, 2**16),
                           st.sampled_from(["iban", "mail", "street"]))
# A letterhead's numbers (telephone, fax, mobile, branches: several), then its other lines.
contacts = st.tuples(st.lists(st.one_of(local_phones, phones), min_size=1, max_size=8),
                     st.lists(st.one_of(local_contacts, ibans, vat_ids, domains),
                              max_size=4)).map(lambda t: t[0] + t[1])
pages = st.tuples(skeleton, contacts.map(lambda c: [(50, line) for line in c]),
                  st.lists(st.tuples(st.integers(20, 450), lines), max_size=25)).map(
    lambda t: t[0] + t[1] + t[2])

RED_TEAM = [(50, "Invoice No: 4711"), (50, "Date: 2026-11-02"), (50, "Tel +370 5 212 3456"),
            (50, "Total: 120.00 kr"), (300, "Total: $120.00")]


@pytest.mark.slow
@given(page=pages)
@example(page=RED_TEAM)
@example(page=[(50, "IBAN DE89 3704 0044 0038 0130 00"), (50, "$120.00")])
@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_invoice_like_text_is_read_or_refused(tmp_path, page):
    placed = [(x, 800 - 25 * (i % 32), text) for i, (x, text) in enumerate(page)]
    path = tmp_path / "page.pdf"
    path.write_bytes(build_pdf([placed]))
    read_or_refused(path)
