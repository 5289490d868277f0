"""Draw one invoice's content from a seeded random generator: parties, lines, options, totals.

The probabilities below shape the mix a ranker trains on: most invoices are plain, a fair share
carry the cases rules get wrong (several VAT rates, VAT-inclusive prices, discounts, vouchers,
partial or full prepayment, cash rounding, reverse charge, a delivery address, order and
customer numbers beside the invoice number).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from decimal import Decimal

from . import identifiers as ids
from . import parties
from .languages import LANGUAGES, Country, Language
from .model import Invoice, Line, compute_totals, money

P_MULTI_RATE = 0.35
P_INCLUSIVE = 0.12
P_LINE_DISCOUNT = 0.12
P_DOC_DISCOUNT = 0.12
P_VOUCHER = 0.06
P_PARTIAL_PAYMENT = 0.10
P_PREPAID = 0.06
P_CASH_ROUNDING = 0.5          # where the country rounds cash amounts
P_REVERSE_CHARGE = 0.06
P_SHIP_TO = 0.25
P_DUE_DATE_PRINTED = 0.8
P_ORDER_NUMBER = 0.5
P_CUSTOMER_NUMBER = 0.6
P_DELIVERY_NOTE = 0.2
P_BUYER_VAT = 0.6
P_CREDIT_NOTE = 0.08  # a credit note: a title of its own, the invoice it credits, no payment
EU = {"DE", "AT", "FR", "ES", "IT", "NL", "PL", "CZ", "PT", "SE", "DK", "FI", "IE"}
DELIVERY_DATE_LANGS = {"pl": 0.95, "cs": 0.9}   # sale date / DUZP are printed nearly always
FIRST_ISSUE_DATE = dt.date(2023, 1, 2)
ISSUE_DATE_SPAN_DAYS = 1400
PAYMENT_DAYS = (7, 10, 14, 14, 21, 30, 30, 30, 45, 60)
ORDER_PATTERNS = ("PO-{seq5}", "{seq6}", "4500{seq6}", "B{seq6}", "{y}-{seq4}", "ORD{seq5}")
CUSTOMER_PATTERNS = ("{seq5}", "K{seq5}", "D{seq4}", "{seq4}-{seq2}", "C{seq6}")
NOTE_PATTERNS = ("LS{seq6}", "{seq6}", "DN-{seq5}")
QUANTITIES = {"pc": (1, 1, 1, 2, 2, 3, 4, 5, 6, 10, 12, 20, 25), "month": (1, 1, 3, 6, 12),
              "day": (1, 1, 2, 3, 5), "flat": (1,)}
CENT_ENDINGS = ("00", "00", "50", "90", "95", "99", None)


@dataclasses.dataclass(frozen=True)
class Needs:
    """What a template asks of the content (it lays out at most ``max_lines`` rows)."""
    min_lines: int = 1
    max_lines: int = 7
    p_inclusive: float = P_INCLUSIVE
    p_multi_rate: float = P_MULTI_RATE
    p_ship_to: float = P_SHIP_TO


def draw_country(rng: random.Random, lang: Language) -> Country:
    return rng.choices(lang.countries, weights=[c.weight for c in lang.countries])[0]


def build_invoice(rng: random.Random, lang: Language, country: Country, needs: Needs) -> Invoice:
    features: list[str] = []
    fake = parties.faker_for(rng, country)
    issue = FIRST_ISSUE_DATE + dt.timedelta(days=rng.randrange(ISSUE_DATE_SPAN_DAYS))
    payment_days = rng.choice(PAYMENT_DAYS)
    reverse = country.code in EU and rng.random() < P_REVERSE_CHARGE

    seller = parties.party(rng, lang, country, with_vat=True, seller=True)
    buyer_lang, buyer_country = lang, country
    if reverse:
        buyer_lang = LANGUAGES[rng.choice([c for c in LANGUAGES if c != lang.code and c != "no"])]
        buyer_country = next(c for c in buyer_lang.countries if c.code in EU)
        features.append("reverse_charge")
    buyer_vat = reverse or rng.random() < (0.9 if lang.code in ("pl", "cs") else P_BUYER_VAT)
    buyer = parties.party(rng, buyer_lang, buyer_country, with_vat=buyer_vat, seller=False,
                          foreign_of=lang if reverse else None)
    ship_to = None
    if rng.random() < needs.p_ship_to:
        ship_to = parties.party(rng, buyer_lang, buyer_country, with_vat=False, seller=False)
        ship_to = dataclasses.replace(ship_to, name=rng.choice((buyer.name, ship_to.name)))
        features.append("ship_to")

    inclusive = country.has_vat and not reverse and rng.random() < needs.p_inclusive
    multi = (country.has_vat and not reverse and len(country.vat_rates) > 1
             and rng.random() < needs.p_multi_rate)
    lines = draw_lines(rng, lang, country, needs, inclusive=inclusive, multi=multi,
                       reverse=reverse, features=features)
    if inclusive:
        features.append("vat_inclusive")
    if len({ln.vat_rate for ln in lines}) > 1:
        features.append("multi_rate")

    discount_pct = Decimal(0)
    if rng.random() < P_DOC_DISCOUNT:
        discount_pct = Decimal(rng.choice((2, 3, 5, 10, 15)))
        features.append("doc_discount")
    draft = compute_totals(lines, prices_include_vat=inclusive, discount_pct=discount_pct)
    prepaid, prepaid_date, voucher = Decimal(0), None, Decimal(0)
    draw = rng.random()
    if draw < P_PREPAID:
        prepaid, prepaid_date = draft.gross, issue
        features.append("prepaid")
    elif draw < P_PREPAID + P_PARTIAL_PAYMENT:
        prepaid = money(draft.gross * Decimal(rng.choice((20, 25, 30, 40, 50))) / 100)
        prepaid_date = issue - dt.timedelta(days=rng.randint(3, 40))
        features.append("partial_payment")
    if not prepaid and rng.random() < P_VOUCHER:
        voucher = min(Decimal(rng.choice((10, 20, 25, 50, 100))), money(draft.gross / 2))
        features.append("voucher")
    cash_step = None
    if country.cash_step and not draw < P_PREPAID and rng.random() < P_CASH_ROUNDING:
        cash_step = country.cash_step
    totals = compute_totals(lines, prices_include_vat=inclusive, discount_pct=discount_pct,
                            prepaid=prepaid, voucher=voucher, cash_step=cash_step)
    if totals.rounding:
        features.append("rounding")

    number = _invoice_number(rng, lang, issue)
    due = issue + dt.timedelta(days=payment_days)
    delivery_p = DELIVERY_DATE_LANGS.get(lang.code, 0.5)
    bank = parties.bank(rng, country, fake) if (country.bban or rng.random() < 0.6) else None
    return Invoice(
        lang=lang.code, country=country.code, locale=country.locale, currency=country.currency,
        number=number, issue_date=issue,
        due_date=due if rng.random() < P_DUE_DATE_PRINTED else None,
        delivery_date=issue - dt.timedelta(days=rng.randint(0, 20))
        if rng.random() < delivery_p else None,
        seller=seller, buyer=buyer, ship_to=ship_to, bank=bank, lines=tuple(lines),
        totals=totals, prices_include_vat=inclusive, discount_pct=discount_pct,
        prepaid_date=prepaid_date, payment_days=payment_days,
        order_number=_maybe(rng, P_ORDER_NUMBER, ORDER_PATTERNS, issue),
        customer_number=_maybe(rng, P_CUSTOMER_NUMBER, CUSTOMER_PATTERNS, issue),
        delivery_note=_maybe(rng, P_DELIVERY_NOTE, NOTE_PATTERNS, issue),
        reference=_reference(rng, country.code, number),
        reverse_charge=reverse, has_vat=country.has_vat, features=tuple(features),
    )


def draw_lines(rng, lang, country, needs, *, inclusive, multi, reverse, features) -> list[Line]:
    count = rng.randint(needs.min_lines, needs.max_lines)
    pool = list(lang.items)
    chosen = [pool[i % len(pool)] for i in rng.sample(range(max(count, len(pool))), count)]
    standard = country.vat_rates[0]
    if not country.has_vat:          # one sales tax rate for the whole invoice
        standard = rng.choice(country.vat_rates)
    lines, seen = [], {}
    for item in chosen:
        rate = standard
        if multi and item.reduced:
            rate = country.vat_rates[1]
        if reverse:
            rate = Decimal(0)
        quantity = _quantity(rng, item.unit)
        price = _price(rng, item.low, item.high)
        if inclusive:
            price = _price_ending(rng, price * (100 + rate) / 100)
        discount = Decimal(0)
        if rng.random() < P_LINE_DISCOUNT:
            discount = Decimal(rng.choice((5, 10, 15, 20, 25)))
        seen[item.name] = seen.get(item.name, 0) + 1   # long invoices repeat items
        name = item.name if seen[item.name] == 1 else f"{item.name} ({seen[item.name]})"
        lines.append(Line(name=name, quantity=quantity, unit=rng.choice(lang.units[item.unit]),
                          unit_price=price, vat_rate=rate, discount_pct=discount))
    if multi and len(lines) > 1 and len({ln.vat_rate for ln in lines}) == 1:
        i = rng.randrange(len(lines))
        lines[i] = dataclasses.replace(lines[i], vat_rate=rng.choice(country.vat_rates[1:]))
    if any(ln.discount_pct for ln in lines):
        features.append("line_discount")
    return lines


def _quantity(rng: random.Random, unit: str) -> Decimal:
    if unit in QUANTITIES:
        return Decimal(rng.choice(QUANTITIES[unit]))
    if unit == "h":
        return Decimal(rng.randint(1, 80)) / 2
    return Decimal(rng.randint(100, 5000)) / (100 if rng.random() < 0.5 else 10)


def _price(rng: random.Random, low: int, high: int) -> Decimal:
    return _price_ending(rng, Decimal(rng.randint(low * 100, high * 100)) / 100)


def _price_ending(rng: random.Random, value: Decimal) -> Decimal:
    ending = rng.choice(CENT_ENDINGS)
    if ending is None:
        return money(value)
    return Decimal(int(value)) + Decimal(ending) / 100


def _invoice_number(rng: random.Random, lang: Language, issue: dt.date) -> str:
    pattern = rng.choice(lang.invoice_numbers)
    return ids.fill_digits(rng, pattern, _date_values(issue))


def _maybe(rng, probability, patterns, issue) -> str | None:
    if rng.random() >= probability:
        return None
    return ids.fill_digits(rng, rng.choice(patterns), _date_values(issue))


def _date_values(issue: dt.date) -> dict[str, str]:
    return {"y": str(issue.year), "yy": f"{issue.year % 100:02d}", "m": f"{issue.month:02d}"}


def _reference(rng: random.Random, cc: str, number: str) -> str | None:
    """The payment reference a bank transfer should carry, where the country has one."""
    draw = rng.random()
    if cc in ("SE", "NO") and draw < 0.6:
        return ids.luhn_reference(rng, rng.choice((8, 10, 12)))
    if cc == "CZ" and draw < 0.8:
        digits = "".join(ch for ch in number if ch.isdigit())[-10:]
        return digits or None
    if cc in ("FI", "BE", "NL", "DE", "AT", "IT", "ES", "PT", "FR", "SE") and draw < 0.25:
        return ids.creditor_reference(rng)
    return None


def as_credit_note(rng: random.Random, inv: Invoice, lang: Language) -> Invoice:
    """The invoice as a credit note of an earlier one: the same lines and totals printed as
    they are (positive, as most credit notes print them), nothing paid, no due date."""
    totals = compute_totals(list(inv.lines), prices_include_vat=inv.prices_include_vat,
                            discount_pct=inv.discount_pct)
    earlier = inv.issue_date - dt.timedelta(days=rng.randint(5, 120))
    return dataclasses.replace(
        inv, credit_note=True, preceding_number=_invoice_number(rng, lang, earlier),
        totals=totals, due_date=None, prepaid_date=None,
        features=(*(f for f in inv.features
                    if f not in ("prepaid", "partial_payment", "voucher", "rounding")),
                  "credit_note"),
    )
