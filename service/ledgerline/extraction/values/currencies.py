"""Currency codes and the symbols that name one currency on a printed invoice.

The codes are ISO 4217 as CLDR (through babel) knows them: every currency that was legal tender in
some territory since :data:`IN_USE_SINCE`, so that codes withdrawn recently (HRK in 2023, BGN
in 2026) are still read on the invoices of those years, and funds, metals and test codes
(XAU, XTS, …) are not. A few codes are also words printed in capitals on invoices ("ALL PRICES",
"TOP"), so a bare one is never read as a currency.
"""

from __future__ import annotations

import datetime as _dt
import re

from babel.core import get_global
from babel.numbers import get_territory_currencies

IN_USE_SINCE = _dt.date(2015, 1, 1)
CODES_THAT_ARE_WORDS = frozenset({"ALL", "TOP", "PEN", "CUP", "MOP", "BOB", "GEL", "SOS", "BAM"})


def _codes_in_use() -> frozenset[str]:
    codes: set[str] = set()
    for territory in get_global("territory_currencies"):
        codes.update(get_territory_currencies(territory, start_date=IN_USE_SINCE, tender=True))
    return frozenset(codes - CODES_THAT_ARE_WORDS)


CURRENCIES = _codes_in_use()
ISO_CODE = re.compile(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])")
# Symbols that name one currency wherever they are printed ("$" and "kr" do not: they stay
# ambiguous and are handled apart). Longer symbols first: "R$" is not "$".
SYMBOLS = {
    "R$": "BRL", "US$": "USD", "C$": "CAD", "CA$": "CAD", "A$": "AUD", "AU$": "AUD",
    "NZ$": "NZD", "S$": "SGD", "HK$": "HKD", "€": "EUR", "£": "GBP", "₹": "INR", "₺": "TRY",
    "₽": "RUB", "₩": "KRW", "zł": "PLN", "Kč": "CZK", "₪": "ILS", "₱": "PHP", "₫": "VND",
    "฿": "THB", "₴": "UAH", "₦": "NGN",
}
# Symbols that are also words or abbreviations ("lei" is Italian for "she", "Fr." a title):
# they name their currency only right before or after an amount.
AMOUNT_SYMBOLS = {"Ft": "HUF", "lei": "RON", "Fr.": "CHF", "RM": "MYR", "Rs": "INR", "Rs.": "INR",
                  "円": "JPY", "元": "CNY"}
# Symbols several currencies share: which one they are depends on the issuer's country, read
# from the page (VAT ids, IBANs, web and mail domains, phone prefixes, the labels' language).
# Next to an amount only; a country not listed leaves the symbol unread.
CONTEXT_SYMBOLS = {
    "kr": {"SE": "SEK", "DK": "DKK", "NO": "NOK", "IS": "ISK", "FO": "DKK", "GL": "DKK"},
    "kr.": {"SE": "SEK", "DK": "DKK", "NO": "NOK", "IS": "ISK", "FO": "DKK", "GL": "DKK"},
    "$": {"CA": "CAD", "AU": "AUD", "NZ": "NZD", "SG": "SGD", "HK": "HKD", "MX": "MXN",
          "US": "USD"},
    "¥": {"JP": "JPY", "CN": "CNY"},
    "￥": {"JP": "JPY", "CN": "CNY"},  # the full-width yen sign Chinese and Japanese print
    "Rs": {"PK": "PKR", "LK": "LKR", "NP": "NPR", "IN": "INR"},
    "Rs.": {"PK": "PKR", "LK": "LKR", "NP": "NPR", "IN": "INR"},
}
