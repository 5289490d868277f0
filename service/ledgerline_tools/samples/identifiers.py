"""Identifiers an invoice prints: VAT ids, national company numbers, IBAN/BIC, references.

Every identifier with a checksum is found by drawing a random body and searching its check
characters until python-stdnum accepts the whole, so validity is stdnum's definition and no
checksum algorithm is written out here.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import string

import stdnum
from stdnum import iban as std_iban
from stdnum import iso11649, luhn
from stdnum.fr import siret as std_siret
from stdnum.us import rtn

DIGITS = string.digits
MAX_DRAWS = 500   # bodies tried before giving up; a shape that fails this often is a bug
# Spanish BBANs carry two national check digits (1 in 100 random BBANs pass): draw more.
IBAN_DRAWS = 5000


class NoValidNumber(RuntimeError):
    pass


@dataclasses.dataclass(frozen=True)
class VatShape:
    prefix: str              # country prefix of the compact form ("DE", "ATU", "CHE", "" for PL)
    leads: str               # first digit of the body is one of these
    digits: int              # random digits after the lead digit
    check: str = DIGITS      # alphabet of the check character(s)
    check_len: int = 1
    suffix: str = ""         # "B01", "MVA", "01", "MWST"
    check_first: bool = False    # FR: the key comes before the SIREN
    luhn_body: bool = False      # FR: the SIREN is itself Luhn-valid


VAT_SHAPES = {
    "DE": VatShape("DE", "123456789", 7),
    "AT": VatShape("ATU", "123456789", 6),
    "CH": VatShape("CHE", "123456789", 7, suffix="MWST"),
    "GB": VatShape("GB", "123456789", 6, check_len=2),
    "IE": VatShape("IE", "123456789", 6, check="ABCDEFGHIJKLMNOPQRSTUVW"),
    "FR": VatShape("FR", "345789", 7, check_len=2, check_first=True, luhn_body=True),
    "ES": VatShape("ESB", "0123456789", 6),
    "IT": VatShape("IT", "0123", 9),
    "NL": VatShape("NL", "123456789", 7, suffix="B01"),
    "PL": VatShape("PL", "123456789", 8),
    "CZ": VatShape("CZ", "2345678", 6),
    "PT": VatShape("PT", "5", 7),
    "SE": VatShape("SE", "5", 8, suffix="01"),
    "DK": VatShape("DK", "123456789", 6),
    "NO": VatShape("NO", "89", 7, suffix="MVA"),
    "FI": VatShape("FI", "0123456789", 6),
}


def _valid_vat(cc: str, number: str) -> bool:
    module = stdnum.get_cc_module(cc.lower(), "vat")
    return module.is_valid(number)


def vat_number(rng: random.Random, cc: str) -> str:
    """A compact VAT id of country ``cc`` that python-stdnum accepts (with country prefix)."""
    shape = VAT_SHAPES[cc]
    for _ in range(MAX_DRAWS):
        body = rng.choice(shape.leads) + "".join(rng.choice(DIGITS) for _ in range(shape.digits))
        if shape.luhn_body:
            body += luhn.calc_check_digit(body)
        for check in itertools.product(shape.check, repeat=shape.check_len):
            check = "".join(check)
            middle = check + body if shape.check_first else body + check
            number = shape.prefix + middle + shape.suffix
            if _valid_vat(cc, number):
                return number
    raise NoValidNumber(f"no valid VAT id for {cc}")


def printed_vat(rng: random.Random, cc: str, compact: str) -> str:
    """One of the ways issuers of ``cc`` print the VAT id ``compact``."""
    p = VAT_SHAPES[cc].prefix
    core = compact[len(p):]
    forms = {
        "DE": [compact, f"DE {core[:3]} {core[3:6]} {core[6:]}"],
        "AT": [compact, f"ATU {core}"],
        "CH": [f"CHE-{core[:3]}.{core[3:6]}.{core[6:9]} MWST"],
        "GB": [compact, f"GB {core[:3]} {core[3:7]} {core[7:]}"],
        "IE": [compact],
        "FR": [compact, f"FR {core[:2]} {core[2:]}", f"FR{core[:2]} {core[2:5]} {core[5:8]} {core[8:]}"],
        "ES": ["B" + core, compact, f"B-{core}"],
        "IT": [compact, core],
        "NL": [compact],
        "PL": [core, f"{core[:3]}-{core[3:6]}-{core[6:8]}-{core[8:]}", compact,
               f"{core[:3]}-{core[3:5]}-{core[5:7]}-{core[7:]}"],
        "CZ": [compact],
        "PT": [compact, core, f"{core[:3]} {core[3:6]} {core[6:]}"],
        "SE": [compact],
        "DK": [core, compact, f"DK {core[:2]} {core[2:4]} {core[4:6]} {core[6:]}"],
        "NO": [f"NO {core[:3]} {core[3:6]} {core[6:9]} MVA", f"{core[:3]} {core[3:6]} {core[6:9]} MVA",
               compact],
        "FI": [compact],
    }[cc]
    return rng.choice(forms)


def compact_id(printed: str) -> str:
    """The truth form of a printed identifier: no spaces, dots or hyphens, upper case."""
    return "".join(ch for ch in printed if ch not in " .-\u00a0").upper()


def company_ids(rng: random.Random, cc: str, vat_compact: str | None) -> dict[str, str]:
    """National company numbers printed near the VAT id (often the same digits)."""
    if vat_compact is None:
        return {}
    core = vat_compact[len(VAT_SHAPES[cc].prefix):]
    if VAT_SHAPES[cc].suffix:
        core = core[: -len(VAT_SHAPES[cc].suffix)]
    ids = {"company_id": core}
    if cc == "FR":
        siren = core[2:]
        ids["company_id"] = f"{siren[:3]} {siren[3:6]} {siren[6:]}"
        ids["siret"] = _siret(rng, siren)
    elif cc == "SE":
        ids["company_id"] = f"{core[:6]}-{core[6:10]}"
    elif cc == "NO":
        ids["company_id"] = f"{core[:3]} {core[3:6]} {core[6:]}"
    elif cc == "FI":
        ids["company_id"] = f"{core[:7]}-{core[7:]}"
    elif cc == "CH":
        ids["company_id"] = f"CHE-{core[:3]}.{core[3:6]}.{core[6:]}"
    return ids


def _siret(rng: random.Random, siren: str) -> str:
    for _ in range(MAX_DRAWS):
        nic = "".join(rng.choice(DIGITS) for _ in range(4))
        for check in DIGITS:
            if std_siret.is_valid(siren + nic + check):
                return f"{siren[:3]} {siren[3:6]} {siren[6:]} {nic}{check}"
    raise NoValidNumber("no valid SIRET")


# Four-letter bank codes for countries whose BBAN starts with letters (GB, IE, NL, IT's CIN).
LETTER_BANKS = {"GB": ("NWBK", "BARC", "LOYD", "HBUK", "MIDL"), "IE": ("AIBK", "BOFI", "IPBS"),
                "NL": ("INGB", "RABO", "ABNA", "SNSB", "TRIO")}


def iban_number(rng: random.Random, cc: str, bban_shape: str) -> str:
    """A compact IBAN of ``cc`` whose BBAN follows ``bban_shape`` ("8n10n", "4a6n8n")."""
    for _ in range(IBAN_DRAWS):
        bban = ""
        for count, kind in _shape_parts(bban_shape):
            if kind == "a" and count == 4 and cc in LETTER_BANKS:
                bban += rng.choice(LETTER_BANKS[cc])
            else:
                alphabet = string.ascii_uppercase if kind == "a" else DIGITS
                bban += "".join(rng.choice(alphabet) for _ in range(count))
        number = cc + std_iban.calc_check_digits(cc + "00" + bban) + bban
        if std_iban.is_valid(number):   # also the national checks stdnum knows (ES, NO, BE …)
            return number
    raise NoValidNumber(f"no valid IBAN for {cc}")


def _shape_parts(shape: str):
    count = ""
    for ch in shape:
        if ch.isdigit():
            count += ch
        else:
            yield int(count), ch
            count = ""


def printed_iban(rng: random.Random, compact: str) -> str:
    if rng.random() < 0.75:
        return " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))
    return compact


def bic_code(rng: random.Random, cc: str, iban: str | None) -> str:
    if iban and cc in LETTER_BANKS:
        bank = iban[4:8]
    else:
        bank = "".join(rng.choice(string.ascii_uppercase) for _ in range(4))
    location = rng.choice(("2X", "MM", "FF", "HH", "PP", "22", "BB"))
    return bank + cc + location + rng.choice(("", "", "XXX"))


def us_bank_account(rng: random.Random) -> tuple[str, str]:
    """(ABA routing number, account number); the routing number is checksum-valid."""
    body = rng.choice("0123") + "".join(rng.choice(DIGITS) for _ in range(7))
    routing = body + rtn.calc_check_digit(body)
    account = "".join(rng.choice(DIGITS) for _ in range(rng.choice((9, 10, 12))))
    return routing, account


def luhn_reference(rng: random.Random, length: int) -> str:
    """Swedish OCR and Norwegian KID numbers: digits with a Luhn check digit."""
    body = rng.choice("123456789") + "".join(rng.choice(DIGITS) for _ in range(length - 2))
    return body + luhn.calc_check_digit(body)


def creditor_reference(rng: random.Random) -> str:
    """An ISO 11649 RF creditor reference, printed in groups of four."""
    ref = "".join(rng.choice(DIGITS) for _ in range(rng.choice((8, 10, 12))))
    for a, b in itertools.product(DIGITS, repeat=2):
        number = f"RF{a}{b}{ref}"
        if iso11649.is_valid(number):
            return " ".join(number[i:i + 4] for i in range(0, len(number), 4))
    raise NoValidNumber("no valid creditor reference")


def fill_digits(rng: random.Random, pattern: str, values: dict[str, str]) -> str:
    """Fill {n5}, {seq4}, {letter}, {alnum7} and named {placeholders} of ``pattern``."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] != "{":
            out.append(pattern[i])
            i += 1
            continue
        end = pattern.index("}", i)
        key = pattern[i + 1:end]
        out.append(_placeholder(rng, key, values))
        i = end + 1
    return "".join(out)


def _placeholder(rng: random.Random, key: str, values: dict[str, str]) -> str:
    if key in values:
        return values[key]
    if key.startswith("seq"):
        width = int(key[3:])
        return str(rng.randrange(1, 10 ** min(width, 4))).zfill(width)
    if key.startswith("n") and key[1:].isdigit():
        return "".join(rng.choice(DIGITS) for _ in range(int(key[1:])))
    if key == "letter":
        return rng.choice(string.ascii_uppercase)
    if key.startswith("alnum"):
        return "".join(rng.choice(string.ascii_uppercase + DIGITS) for _ in range(int(key[5:])))
    raise KeyError(f"unknown placeholder {{{key}}}")
