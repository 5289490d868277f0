"""The shapes of a language's vocabulary and of a country's invoicing conventions."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

# Every language module defines every one of these keys (a test checks it).
WORD_KEYS = (
    "invoice", "invoice_number", "issue_date", "due_date", "delivery_date", "order_number",
    "customer_number", "delivery_note", "seller", "buyer", "ship_to", "vat_id", "phone", "email",
    "pos", "description", "quantity", "unit", "unit_price", "unit_price_gross", "discount",
    "vat_rate", "vat_amount", "net_amount", "gross_amount", "subtotal", "net_total", "vat",
    "gross_total", "paid", "prepayment", "voucher", "rounding", "amount_due", "bank", "iban", "bic",
    "account_number", "tax_summary", "rate", "base", "vat_included", "payment_terms", "pay_by",
    "page", "carry_out", "carry_in", "thanks", "paid_stamp", "reference", "currency_note",
    "reverse_charge", "signatures", "total_row",
)
# The words of a credit note, which every language module defines too: drawn only for the
# credit notes, from a generator of their own (the invoices of a seed stay what they were).
CREDIT_NOTE_KEYS = ("credit_note", "credit_note_number", "preceding_invoice")
# Phrases with these placeholders: {days}, {date}, {rate}, {page}/{pages}, {currency}.
PLACEHOLDERS = {
    "payment_terms": ("{days}",), "pay_by": ("{date}",), "vat_included": ("{rate}",),
    "page": ("{page}", "{pages}"), "currency_note": (),
}


@dataclasses.dataclass(frozen=True)
class Item:
    name: str
    unit: str                 # a key of Language.units
    low: int                  # plausible unit price range (net, in the country's currency)
    high: int
    reduced: bool = False     # taxed at the country's first reduced rate


@dataclasses.dataclass(frozen=True)
class Country:
    code: str                              # ISO 3166 alpha-2
    locale: str                            # babel locale
    faker: str                             # Faker locale for names, streets and cities
    currency: str                          # ISO 4217
    vat_rates: tuple[Decimal, ...]         # standard rate first; US: sales tax rates
    legal_forms: tuple[str, ...]
    bban: str                              # IBAN BBAN shape, e.g. "8n10n" ("" = no IBAN)
    date_patterns: tuple[str, ...]         # babel patterns; "long" = the locale's written form
    registry: tuple[str, ...] = ()         # footer lines: company register, capital, director
    cash_step: Decimal | None = None       # rounding to this step is printed as a line
    page_size: str = "A4"
    address_style: str = "street_no"       # street_no | no_street | us | gb
    has_vat: bool = True
    words: dict = dataclasses.field(default_factory=dict)   # overrides of Language.words
    weight: int = 1                        # how often the country is drawn for its language


@dataclasses.dataclass(frozen=True)
class Language:
    code: str
    countries: tuple[Country, ...]
    words: dict
    units: dict
    items: tuple[Item, ...]
    business: tuple[str, ...]              # words for company names
    name_patterns: tuple[str, ...]         # {surname} {surname2} {business} {form} {acronym}
    invoice_numbers: tuple[str, ...] = ("{seq5}",)   # {y} {yy} {m} {seqN}
    colon: str = ":"
    percent_space: bool = False

    def country(self, code: str) -> Country:
        return next(c for c in self.countries if c.code == code)


def rates(*values: str) -> tuple[Decimal, ...]:
    return tuple(Decimal(v) for v in values)
