"""What one generated invoice says, and its arithmetic (EN 16931's order of operations).

Net-priced invoices: line amount = quantity × unit price less the line discount, rounded to the
cent; per VAT rate, base = lines − the document discount's share, tax = base × rate rounded once
per rate; gross = net + tax. VAT-inclusive invoices price lines gross; per rate the tax is
gross × rate / (100 + rate), rounded once, and net = gross − tax. The amount due is
gross − paid (prepayment, vouchers) + the cash-rounding line.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
HUNDRED = Decimal(100)


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclasses.dataclass(frozen=True)
class Party:
    name: str
    address: tuple[str, ...]           # printed address lines
    country: str                       # ISO code
    vat_printed: str | None = None     # as printed; its compact form is the truth
    vat_compact: str | None = None
    ids: dict = dataclasses.field(default_factory=dict)    # company numbers for the footer
    contact: str | None = None         # a person's name
    phone: str | None = None
    email: str | None = None
    web: str | None = None


@dataclasses.dataclass(frozen=True)
class Bank:
    name: str
    iban: str | None = None            # compact
    iban_printed: str | None = None
    bic: str | None = None
    account: str | None = None         # a national account line (US routing/account, Bankgiro)


@dataclasses.dataclass(frozen=True)
class Line:
    name: str
    quantity: Decimal
    unit: str
    unit_price: Decimal                # net, or gross on VAT-inclusive invoices
    vat_rate: Decimal
    discount_pct: Decimal = Decimal(0)

    @property
    def amount(self) -> Decimal:
        """The printed line amount (net, or gross on VAT-inclusive invoices)."""
        return money(self.quantity * self.unit_price * (HUNDRED - self.discount_pct) / HUNDRED)


@dataclasses.dataclass(frozen=True)
class TaxRow:
    rate: Decimal
    base: Decimal                      # net
    tax: Decimal

    @property
    def gross(self) -> Decimal:
        return self.base + self.tax


@dataclasses.dataclass(frozen=True)
class Totals:
    lines: Decimal                     # sum of printed line amounts
    discount: Decimal                  # document-level discount (net, or gross if inclusive)
    tax_rows: tuple[TaxRow, ...]
    net: Decimal
    tax: Decimal
    gross: Decimal
    prepaid: Decimal                   # payments already received
    voucher: Decimal                   # vouchers redeemed against the amount due
    rounding: Decimal
    due: Decimal


def compute_totals(lines, *, prices_include_vat: bool, discount_pct: Decimal = Decimal(0),
                   prepaid: Decimal = Decimal(0), voucher: Decimal = Decimal(0),
                   cash_step: Decimal | None = None) -> Totals:
    by_rate: dict[Decimal, Decimal] = {}
    for line in lines:
        by_rate[line.vat_rate] = by_rate.get(line.vat_rate, Decimal(0)) + line.amount
    rows, discount = [], Decimal(0)
    for rate in sorted(by_rate, reverse=True):
        share = money(by_rate[rate] * discount_pct / HUNDRED)
        discount += share
        amount = by_rate[rate] - share
        if prices_include_vat:
            tax = money(amount * rate / (HUNDRED + rate))
            rows.append(TaxRow(rate, amount - tax, tax))
        else:
            rows.append(TaxRow(rate, amount, money(amount * rate / HUNDRED)))
    net = sum((r.base for r in rows), Decimal(0))
    tax = sum((r.tax for r in rows), Decimal(0))
    gross = net + tax
    before_rounding = gross - prepaid - voucher
    rounding = Decimal(0)
    if cash_step:
        rounded = (before_rounding / cash_step).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        rounding = money(rounded * cash_step - before_rounding)
    return Totals(lines=sum((ln.amount for ln in lines), Decimal(0)), discount=discount,
                  tax_rows=tuple(rows), net=net, tax=tax, gross=gross, prepaid=prepaid,
                  voucher=voucher, rounding=rounding, due=before_rounding + rounding)


@dataclasses.dataclass(frozen=True)
class Invoice:
    lang: str
    country: str                       # the seller's country
    locale: str
    currency: str
    number: str
    issue_date: dt.date
    due_date: dt.date | None           # None: only payment terms are printed
    delivery_date: dt.date | None
    seller: Party
    buyer: Party
    ship_to: Party | None
    bank: Bank | None
    lines: tuple[Line, ...]
    totals: Totals
    prices_include_vat: bool
    discount_pct: Decimal
    prepaid_date: dt.date | None
    payment_days: int
    order_number: str | None = None
    customer_number: str | None = None
    delivery_note: str | None = None
    reference: str | None = None       # payment reference (OCR, KID, RF, variable symbol)
    reverse_charge: bool = False
    has_vat: bool = True
    features: tuple[str, ...] = ()
    credit_note: bool = False          # money owed to the buyer (build.as_credit_note)
    preceding_number: str | None = None  # the invoice a credit note credits
