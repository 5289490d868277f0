"""How one invoice prints numbers, money, percentages and dates, from its locale (babel).

Each invoice draws one style and keeps it: the locale's decimal and grouping symbols (or no
grouping), its currency symbol or ISO code before or after the amount (or bare amounts with the
currency named once), and one of the country's date patterns — "long" is babel's written-out
form, with the locale's month names.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from decimal import Decimal

from babel.dates import format_date
from babel.numbers import format_currency, get_currency_symbol, get_decimal_symbol, get_group_symbol

NARROW_NBSP = "\u202f"
NBSP = "\u00a0"
P_NO_GROUPING = 0.25
P_NBSP = 0.3


@dataclasses.dataclass(frozen=True)
class Style:
    locale: str
    decimal: str
    group: str               # "" prints 1234,56
    mark: str | None         # "€", "EUR", "zł"; None: bare amounts, the currency named elsewhere
    mark_before: bool
    gap: str                 # between mark and number
    date_pattern: str        # babel pattern or "long"
    percent_gap: str         # "" (20%) or " " (20 %)
    colon: str
    code: str                # ISO currency code


def draw_style(rng: random.Random, *, locale: str, currency: str, date_patterns, colon: str,
               percent_space: bool) -> Style:
    group = get_group_symbol(locale)
    if group in (NARROW_NBSP, NBSP):
        group = NBSP if rng.random() < P_NBSP else " "
    if rng.random() < P_NO_GROUPING:
        group = ""
    symbol = get_currency_symbol(currency, locale=locale)
    sample = format_currency(1, currency, locale=locale)
    before = sample.lstrip("-").startswith(symbol)
    gap = "" if (symbol in sample and _touches(sample, symbol)) else " "
    kind = rng.choices(("symbol", "code", "bare"), weights=(5, 3, 2))[0]
    if kind == "code":
        mark, before, gap = currency, rng.random() < 0.4, " "
    elif kind == "bare":
        mark = None
    else:
        mark = symbol
    if gap == " " and rng.random() < P_NBSP:
        gap = NBSP
    return Style(locale=locale, decimal=get_decimal_symbol(locale), group=group, mark=mark,
                 mark_before=before, gap=gap, date_pattern=rng.choice(date_patterns),
                 percent_gap=" " if percent_space else "", colon=colon, code=currency)


def _touches(sample: str, symbol: str) -> bool:
    """True where the locale writes the symbol against the digits (€1.00, $1.00)."""
    i = sample.index(symbol)
    neighbours = sample[i - 1:i] + sample[i + len(symbol):i + len(symbol) + 1]
    return any(ch.isdigit() for ch in neighbours)


class Formatter:
    def __init__(self, style: Style):
        self.style = style

    def number(self, value: Decimal, places: int = 2) -> str:
        text = f"{abs(value):,.{places}f}"
        whole, _, frac = text.partition(".")
        whole = whole.replace(",", self.style.group)
        out = whole + (self.style.decimal + frac if places else "")
        return "-" + out if value < 0 else out

    def money(self, value: Decimal) -> str:
        """An amount with the invoice's currency mark (bare when the style has none)."""
        number = self.number(value)
        s = self.style
        if s.mark is None:
            return number
        if s.mark_before:
            if number.startswith("-"):
                return "-" + s.mark + s.gap + number[1:]
            return s.mark + s.gap + number
        return number + s.gap + s.mark

    def quantity(self, value: Decimal) -> str:
        if value == value.to_integral_value():
            return self.number(value, 0)
        places = 1 if (value * 10) == (value * 10).to_integral_value() else 2
        return self.number(value, places)

    def percent(self, rate: Decimal) -> str:
        places = 0 if rate == rate.to_integral_value() else 1
        if rate * 10 != (rate * 10).to_integral_value():
            places = 3 if rate * 100 != (rate * 100).to_integral_value() else 2
        return self.number(rate, places) + self.style.percent_gap + "%"

    def date(self, value: dt.date) -> str:
        if self.style.date_pattern == "long":
            return format_date(value, "long", locale=self.style.locale)
        return format_date(value, self.style.date_pattern, locale=self.style.locale)

    def label(self, text: str) -> str:
        return text + self.style.colon

    @property
    def currency_mark(self) -> str:
        """How the currency appears on the page (symbol or code)."""
        return self.style.mark or self.style.code
