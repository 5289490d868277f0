"""VAT ids are checked by python-stdnum's VAT number of every country it knows: one real valid
id per country (the examples of python-stdnum's own documentation), and a wrong one."""

from __future__ import annotations

import pkgutil

import pytest
import stdnum

from ledgerline.extraction.finders.tax_ids import vat_checksum
from ledgerline.extraction.validation import vat_id_check

VALID = {
    "ad": "U-132950-X", "al": "AL J 91402501 L", "ar": "20-05536168-2", "at": "ATU13585627",
    "au": "83 914 571 673", "az": "140 155 5071", "be": "BE403019261", "bg": "BG 175 074 752",
    "br": "16.727.230/0001-97", "by": "200988541", "ca": "12302 6635",
    "ch": "CHE-107.787.577 IVA", "cl": "76086428-5", "cn": "91110000600037341L",
    "co": "213.123.432-1", "cr": "3-101-999999", "cy": "CY-10259033P", "cz": "CZ 25123891",
    "de": "DE 136,695 976", "dk": "DK 13585628", "do": "1-01-85004-3", "dz": "416001000000007",
    "ec": "1792060346-001", "ee": "EE 100 931 558", "eg": "100-531-385", "es": "ES B-58378431",
    "fi": "FI 20774740", "fo": "623857", "fr": "FR 40 303 265 045", "gb": "GB 980 7806 84",
    "gh": "C0000803561", "gn": "693770885", "gr": "EL 094259216", "gt": "576937-K",
    "hr": "HR 33392005961", "hu": "HU-12892312", "id": "01.312.166.0-091.000",
    "ie": "IE 6433435F", "il": "516179157", "it": "IT 00743110157", "jp": "5-8356-7825-6246",
    "ke": "P051365947M", "kr": "116-82-00276", "lt": "LT119511515", "lu": "LU 150 274 42",
    "lv": "LV 4000 3521 600", "ma": "001561191000066", "mc": "53 0000 04605",
    "me": "02655284", "mk": "4030000375897", "mt": "MT 1167-9112", "mx": "GODE 561231 GR8",
    "mz": "400339910", "nl": "NL004495445B01", "no": "NO 995 525 828 MVA", "nz": "4909185-0",
    "pe": "20512333797", "pl": "PL 8567346215", "pt": "PT 501 964 843", "py": "80028061-0",
    "ro": "RO 185 472 90", "rs": "101134702", "ru": "123456789047", "se": "SE 123456789701",
    "sg": "00192200M", "si": "SI 5022 3054", "sk": "SK 202 274 96 19", "sm": "51",
    "sn": "306 7221", "sv": "0614-050707-104-8", "th": "0 10 5 536 11201 4",
    "tn": "1234567/M/A/E/001", "tr": "4540536920", "tw": "00501503", "uy": "21-100342-001-7",
    "ve": "V-11470283-4", "vn": "0100233488",
}


def countries_with_vat_numbers() -> list[str]:
    out = []
    for module in pkgutil.iter_modules(stdnum.__path__):
        if module.ispkg and len(module.name) == 2 and module.name != "eu":
            if stdnum.get_cc_module(module.name, "vat") is not None:
                out.append(module.name)
    return sorted(out)


def test_every_country_python_stdnum_knows_has_a_case_here():
    assert sorted(VALID) == countries_with_vat_numbers()


@pytest.mark.parametrize("country", sorted(VALID))
def test_a_real_id_of_each_country_passes(country):
    assert vat_checksum(VALID[country], country=country) is True
    assert vat_id_check("LL-SELLER-VATID", VALID[country], country)["status"] == "pass"


@pytest.mark.parametrize("value", ["GB980780684", "CHE-107.787.577 MWST", "NO995525828MVA",
                                   "EL094259216", "XI980780684"])
def test_non_eu_and_special_prefixes_are_checked_by_their_country(value):
    assert vat_id_check("LL-SELLER-VATID", value)["status"] == "pass"


@pytest.mark.parametrize("value", ["GB980780685", "CHE-107.787.578", "NO995525829MVA",
                                   "DE136695977"])
def test_a_wrong_check_digit_fails(value):
    assert vat_id_check("LL-SELLER-VATID", value)["status"] == "fail"


def test_an_unknown_prefix_or_bare_number_is_not_judged():
    assert vat_checksum("XX12345678") is None
    assert vat_checksum("5265877635") is None
    assert vat_checksum("5265877635", country="PL") is True
