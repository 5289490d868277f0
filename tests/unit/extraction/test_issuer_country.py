"""The issuer's country from the signs on the page (finders/currency.py), and the red-team
cases that once crashed extraction with a KeyError on common phone numbers."""
from __future__ import annotations

import pytest

from ledgerline.extraction import extract_pdf
from ledgerline.extraction.finders.currency import (COUNTRY_CODES, PHONE_COUNTRIES, _PHONE,
                                                    issuer_country)
from tests.unit.extraction.cell_pages import page_of

H = "blake3:" + "0" * 64


@pytest.mark.parametrize("form", ["+{} 1", "00{} 1", "(+{}) 1"])
def test_every_calling_code_the_pattern_reads_names_a_country(form):
    for number in range(1, 1000):
        for code in (str(number), f"{number:03d}"):
            for m in _PHONE.finditer(form.format(code)):
                assert PHONE_COUNTRIES[m.group(1)] in COUNTRY_CODES


@pytest.mark.parametrize("phone, country", [("+358 40 123 4567", "FI"), ("+351 21 123 4567", "PT"),
                                            ("+420 212 345 678", "CZ"), ("+421 2 1234 5678", "SK"),
                                            ("+370 5 212 3456", "LT"), ("+49 30 1234567", "DE")])
def test_a_calling_code_is_read_whole(phone, country):
    assert issuer_country(page_of((50, 800, f"Tel {phone}"))) == country


@pytest.mark.parametrize("total", ["Total: 120.00 kr", "Total: $120.00"])
@pytest.mark.parametrize("sign", ["Tel +370 5 212 3456", "Tel +386 1 234 5678",
                                  "Tel +380 44 123 4567", "Tel 00380 44 123 4567",
                                  "IBAN DE89 3704 0044 0038 0130 00"])
def test_phone_numbers_of_any_country_never_crash_extraction(make_pdf, total, sign):
    path = make_pdf([[(50, 800, "Invoice No: 4711"), (50, 780, "Date: 2026-11-02"),
                      (50, 760, sign), (50, 700, total)]])
    document = extract_pdf(path, content_hash=H)
    assert document["fields"]["gross_total"]["value"] == "120.00"
