"""Where the page names a currency (the labelled "Currency: EUR" comes with the header fields)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from ..candidates import Candidate, Evidence
from ..geometry import DocText
from ..values.currencies import AMOUNT_SYMBOLS, CONTEXT_SYMBOLS, CURRENCIES, ISO_CODE, SYMBOLS
from ..vocabulary import VOCABULARY as V

# An ISO code counts on a line that carries an amount or is this short (a "Currency: EUR" cell).
SHORT_LINE_CHARS = 40
CODE_VOTES = 2  # a printed code says more than a symbol or a word


def currency_mentions(dt: DocText) -> list[Candidate]:
    """Every printed sign of a currency, in reading order: ISO codes, unambiguous symbols,
    currency words; last, the first '$' (which alone says USD only by assumption).

    ``evidence.facts["votes"]`` is what the mention counts for: 2 for a code, the number of times
    a symbol occurs on its line, 1 for a word anywhere in the document."""
    out = []
    for i, ln in enumerate(dt.lines):
        t = ln.text
        for m in ISO_CODE.finditer(t):
            code = m.group(0)
            if _LEGAL_FORM_BEFORE.search(t, 0, m.start()):
                continue  # "IKANO HANDEL SDN BHD": a company's legal form, not Bahrain's dinar
            if code in CURRENCIES and (dt.amounts(i) or len(t) < SHORT_LINE_CHARS):
                out.append(_mention(dt, i, code, m.start(), m.end(), "iso_code", CODE_VOTES))
        for sym, code in SYMBOLS.items():
            found = _symbol(sym).findall(t)
            if found:
                k = _symbol(sym).search(t).start()
                out.append(_mention(dt, i, code, k, k + len(sym), "symbol", len(found)))
        if dt.amounts(i):
            out.extend(_beside_amounts(dt, i))
    for rx, code in V.currency_words:
        if rx.search(dt.full_folded):
            out.append(
                Candidate(
                    "currency",
                    code,
                    None,
                    None,
                    None,
                    None,
                    Evidence("currency_word", facts={"votes": 1}),
                )
            )
    for i, ln in enumerate(dt.lines):
        s = ln.text.find("$")
        if s >= 0:
            out.append(_mention(dt, i, "USD", s, s + 1, "dollar_sign", 0))
            break
    return out


# Malaysia's "Sdn Bhd" (Sendirian Berhad): the code after it is the company's legal form.
_LEGAL_FORM_BEFORE = re.compile(r"\bsdn\.?\s*$", re.IGNORECASE)


@cache
def _symbol(sym: str) -> re.Pattern:
    """A symbol not glued to a letter before it ("US$" is not "S$") nor, when it is a word,
    after it."""
    tail = r"(?![A-Za-z])" if sym[-1].isalpha() else ""
    return re.compile(rf"(?<![A-Za-z]){re.escape(sym)}{tail}")


_NUMBER = r"\d[\d.,' \u00a0]*"


@cache
def _beside_amount(sym: str) -> re.Pattern:
    s = _symbol(sym).pattern
    return re.compile(rf"{_NUMBER}(?:,-)?\s?{s}|{s}\s?-?\d")


def _beside_amounts(dt: DocText, i: int) -> list[Candidate]:
    """Word-like symbols right before or after an amount ("1 200 Ft", "Rs. 450"), and shared
    symbols ("kr", "$", "¥") resolved by the issuer's country where the page tells it."""
    t = dt.lines[i].text
    out = []
    for sym, code in AMOUNT_SYMBOLS.items():
        m = _beside_amount(sym).search(t)
        if m and not (sym.startswith("Rs") and _country(dt) not in (None, "IN")):
            k = t.find(sym, m.start())
            out.append(_mention(dt, i, code, k, k + len(sym), "symbol", 1))
    for sym, by_country in CONTEXT_SYMBOLS.items():
        m = _beside_amount(sym).search(t)
        code = by_country.get(_country(dt)) if m else None
        if code is not None:
            k = t.find(sym, m.start())
            out.append(_mention(dt, i, code, k, k + len(sym), "context_symbol", 1))
    return out


# Where the page tells the issuer's country: the country part of VAT ids and IBANs, web and mail
# domains, international phone prefixes, a Canadian postcode, the language of the labels. A VAT
# id or IBAN is read within its line: across line ends, "BONE-IN" over a column of figures, or
# an order number "IN000008" over the next label, would read as India's.
_VAT_OR_IBAN = re.compile(r"\b([A-Z]{2})(?=[ .-]?\d{2}[\dA-Z .-]{6,})")
_DOMAIN = re.compile(r"(?:www\.|@)[a-z0-9.-]+\.([a-z]{2})\b")
_CA_POSTCODE = re.compile(r"\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b")
# Addresses: a US state and its ZIP code ("Huntington, WV 25701"), a Canadian province and its
# postcode ("Toronto, ON M5V 2T6"), an Australian state and its postcode ("Sydney NSW 2000"), and
# the country's name printed (in an address or in a sentence: "in Canadian currency").
_US_ADDRESS = re.compile(
    r"\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV"
    r"|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC)\.?\s+\d{5}"
    r"(?:-\d{4})?\b"
)
_CA_ADDRESS = re.compile(
    r"\b(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT)\.?\s+[A-Z]\d[A-Z]\s?\d[A-Z]\d\b"
)
_AU_ADDRESS = re.compile(r"\b(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\s+\d{4}\b")
# An Australian Business Number ("ABN 51 824 753 556"; a template's "ABN xx xxx xxx xxx"), never
# the Dutch bank ABN AMRO.
_AU_BUSINESS_NUMBER = re.compile(r"\bABN\b[:.]?\s*(?:\d{2}|[xX]{2})\b")
COUNTRY_NAMES = (
    (re.compile(r"\b(?:usa|u\.s\.a\.?|united states(?: of america)?)\b"), "US"),
    (re.compile(r"\bcanad(?:a|ian)\b"), "CA"),
    (re.compile(r"\baustralia(?:n)?\b"), "AU"),
    (re.compile(r"\bnew zealand\b"), "NZ"),
    (re.compile(r"\bsingapore\b"), "SG"),
    (re.compile(r"\bhong kong\b"), "HK"),
    (re.compile(r"\bmexico\b|\bmexicanos?\b"), "MX"),
    (re.compile(r"\bindia\b"), "IN"),
)
ADDRESS_VOTES = 2  # an address or a country's name says as much as a VAT id
# International calling codes of the countries in COUNTRY_CODES. A code is read whole: +358
# is Finland, never "+35" and an 8, and a code missing here (+370, +380) is no sign at all.
PHONE_COUNTRIES = {
    "1": "US", "30": "GR", "31": "NL", "32": "BE", "33": "FR", "34": "ES", "351": "PT",
    "352": "LU", "353": "IE", "354": "IS", "356": "MT", "357": "CY", "358": "FI", "359": "BG",
    "36": "HU", "370": "LT", "371": "LV", "372": "EE", "385": "HR", "386": "SI", "39": "IT",
    "40": "RO", "41": "CH", "420": "CZ", "421": "SK", "43": "AT", "44": "GB", "45": "DK",
    "46": "SE", "47": "NO", "48": "PL", "49": "DE", "52": "MX", "55": "BR", "61": "AU",
    "64": "NZ", "65": "SG", "81": "JP", "852": "HK", "86": "CN", "91": "IN", "92": "PK",
    "94": "LK", "977": "NP", "298": "FO", "299": "GL",
}
# The pattern is made from the table, so the two can never disagree; longer codes first.
_PHONE = re.compile(r"(?:\+|\b00)("
                    + "|".join(sorted(PHONE_COUNTRIES, key=lambda c: (-len(c), c)))
                    + r")[\s().-]*\d")
DOMAIN_COUNTRIES = {"uk": "GB"}
LANGUAGE_COUNTRIES = {
    "sv": "SE", "da": "DK", "no": "NO", "nb": "NO", "pl": "PL", "cs": "CZ", "hu": "HU",
    "ro": "RO", "ja": "JP", "zh": "CN",
}
COUNTRY_SHARE = 0.5  # a country is the issuer's when it has at least this share of the signs
COUNTRY_CODES = frozenset(
    "AT BE BG CH CY CZ DE DK EE ES FI FR GB GR HR HU IE IS IT LT LU LV MT NL NO PL PT RO SE SI SK "
    "US CA AU NZ SG HK MX JP CN IN PK LK NP BR FO GL".split()
)


def _country(dt: DocText) -> str | None:
    got = getattr(dt, "_issuer_country", False)
    if got is False:
        got = dt._issuer_country = issuer_country(dt)
    return got


def issuer_country(dt: DocText) -> str | None:
    """The country the page points at most (None when the signs disagree or there are none)."""
    votes: Counter = Counter()
    text = dt.full_text
    for m in _VAT_OR_IBAN.finditer(text):
        if m.group(1) in COUNTRY_CODES:
            votes[m.group(1)] += 2
    for m in _DOMAIN.finditer(dt.full_folded):
        cc = DOMAIN_COUNTRIES.get(m.group(1), m.group(1).upper())
        if cc in COUNTRY_CODES:
            votes[cc] += 1
    for m in _PHONE.finditer(text):
        votes[PHONE_COUNTRIES[m.group(1)]] += 1
    if _CA_POSTCODE.search(text):
        votes["CA"] += 1
    for rx, cc in ((_US_ADDRESS, "US"), (_CA_ADDRESS, "CA"), (_AU_ADDRESS, "AU"),
                   (_AU_BUSINESS_NUMBER, "AU")):
        if rx.search(text):
            votes[cc] += ADDRESS_VOTES
    for rx, cc in COUNTRY_NAMES:
        if rx.search(dt.full_folded):
            votes[cc] += ADDRESS_VOTES
    for language, n in _label_languages(dt).items():
        cc = LANGUAGE_COUNTRIES.get(language)
        if cc:
            votes[cc] += min(n, 3)
    if not votes:
        return None
    country, n = votes.most_common(1)[0]
    if country == "US" and votes["CA"] and not votes_of_us_addresses(dt):
        return "CA"  # +1 is both; a Canadian postcode or domain settles it
    return country if n >= COUNTRY_SHARE * sum(votes.values()) else None


def votes_of_us_addresses(dt: DocText) -> bool:
    """Does the page print a US address or name the US (which outweighs a +1 phone prefix's
    or a stray postcode-like code's hint at Canada)?"""
    return bool(_US_ADDRESS.search(dt.full_text) or COUNTRY_NAMES[0][0].search(dt.full_folded))


def _label_languages(dt: DocText) -> Counter:
    from .header_fields import LABEL_FIELDS, _plain_hits

    langs: Counter = Counter()
    for i in range(len(dt.lines)):
        for h in dt.labels(i, LABEL_FIELDS, _plain_hits):
            if h.language != "*":
                langs[h.language] += 1
    return langs


def _mention(dt: DocText, i: int, code: str, s: int, e: int, kind: str, votes: int) -> Candidate:
    ln = dt.lines[i]
    evidence = Evidence(kind, relative_y=dt.relative_y(i), facts={"votes": votes})
    return Candidate("currency", code, ln.text[s:e], ln.page, ln.span_bbox(s, e), i, evidence)
