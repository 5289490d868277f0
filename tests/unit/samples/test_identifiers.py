"""VAT ids and IBANs are valid by python-stdnum, as drawn and as the truth records them."""

from __future__ import annotations

import random

import pytest
import stdnum
from stdnum import iban as std_iban

from ledgerline_tools.samples import identifiers as ids
from ledgerline_tools.samples.languages import LANGUAGES

COUNTRIES = sorted(ids.VAT_SHAPES)
BANK_COUNTRIES = sorted({(c.code, c.bban) for lang in LANGUAGES.values()
                         for c in lang.countries if c.bban})


@pytest.mark.parametrize("cc", COUNTRIES)
def test_vat_ids_are_valid_in_every_printed_form(cc):
    rng = random.Random(cc)
    module = stdnum.get_cc_module(cc.lower(), "vat")
    for _ in range(40):
        number = ids.vat_number(rng, cc)
        printed = ids.printed_vat(rng, cc, number)
        assert module.is_valid(number) and module.is_valid(ids.compact_id(printed)), printed


@pytest.mark.parametrize("cc,shape", BANK_COUNTRIES)
def test_ibans_are_valid_and_printed_in_groups_of_four(cc, shape):
    rng = random.Random(cc)
    for _ in range(20):
        number = ids.iban_number(rng, cc, shape)
        assert number.startswith(cc) and std_iban.is_valid(number)
        assert ids.compact_id(ids.printed_iban(rng, number)) == number


def test_truth_ids_of_generated_invoices_are_valid():
    from ledgerline_tools.samples import LANGUAGE_CODES, generate

    seen = 0
    for seed, lang in enumerate(LANGUAGE_CODES * 3):
        truth = generate(400 + seed, lang=lang, template="two_columns")[1]
        cc = truth["_generator"]["country"]
        if truth["seller_vat_id"]:
            assert stdnum.get_cc_module(cc.lower(), "vat").is_valid(truth["seller_vat_id"])
            seen += 1
        if truth["iban"]:
            assert std_iban.is_valid(truth["iban"])
    assert seen >= 30


def test_checked_references_are_valid():
    from stdnum import iso11649, luhn
    from stdnum.us import rtn

    rng = random.Random(1)
    assert iso11649.is_valid(ids.creditor_reference(rng))
    assert luhn.is_valid(ids.luhn_reference(rng, 10))
    assert rtn.is_valid(ids.us_bank_account(rng)[0])
