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
# ambiguous and are handled apart).
SYMBOLS = {"€": "EUR", "£": "GBP", "₹": "INR", "₺": "TRY", "₽": "RUB", "₩": "KRW", "zł": "PLN"}
