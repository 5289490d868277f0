"""The expected field values of a generated invoice, in the corpus truth schema.

Fields follow ``../shared/corpus/README.md`` (ISO dates, numbers, ``null`` where the page does
not print the value), plus ``purchase_order`` and ``iban``. Keys starting with ``_`` are extra:
``_printed`` holds each field exactly as printed (for token labelling and text checks),
``_tax_breakdown`` the per-rate rows, ``_adjustments`` what lies between the lines and the
amount due, ``_generator`` how the invoice was made.
"""

from __future__ import annotations

from decimal import Decimal

GENERATOR_VERSION = "samples-2026.12.4"  # bump whenever the same seed gives other output


def number(value: Decimal | None):
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def truth_of(ctx, *, seed: int, template: str, pages: int) -> dict:
    """A credit note's totals, amount due and line net amounts are negative (money owed to the
    buyer, as invoice-v2 gives them), whatever the page prints."""
    inv, t, printed = ctx.inv, ctx.inv.totals, ctx.printed
    sign = -1 if inv.credit_note else 1
    return {
        "document_type": "credit_note" if inv.credit_note else "invoice",
        "preceding_invoice_number": inv.preceding_number
        if "preceding_invoice_number" in printed else None,
        "invoice_number": inv.number,
        "issue_date": inv.issue_date.isoformat(),
        "due_date": inv.due_date.isoformat() if "due_date" in printed else None,
        "seller_name": inv.seller.name,
        "seller_vat_id": inv.seller.vat_compact if "seller_vat_id" in printed else None,
        "buyer_name": inv.buyer.name,
        "buyer_vat_id": inv.buyer.vat_compact if "buyer_vat_id" in printed else None,
        "currency": inv.currency,
        "net_total": number(sign * t.net),
        "tax_total": number(sign * t.tax),
        "gross_total": number(sign * t.gross),
        "amount_due": number(sign * t.due),
        "line_items": [_line(line, inv.prices_include_vat, sign) for line in inv.lines],
        "purchase_order": inv.order_number if "purchase_order" in printed else None,
        "iban": inv.bank.iban if inv.bank and "iban" in printed else None,
        "_printed": dict(sorted(printed.items())),
        "_tax_breakdown": [{"rate": number(r.rate), "base": number(r.base), "tax": number(r.tax)}
                           for r in t.tax_rows],
        "_adjustments": {"lines_total": number(t.lines), "discount": number(t.discount),
                         "prepaid": number(t.prepaid), "voucher": number(t.voucher),
                         "rounding": number(t.rounding)},
        "_generator": {"version": GENERATOR_VERSION, "seed": seed, "lang": inv.lang,
                       "country": inv.country, "template": template, "pages": pages,
                       "prices_include_vat": inv.prices_include_vat,
                       "features": list(inv.features)},
    }


def _line(line, inclusive: bool, sign: int = 1) -> dict:
    item = {"name": line.name, "quantity": number(line.quantity),
            "unit_price_net": None if inclusive else number(line.unit_price),
            "net_amount": None if inclusive else number(sign * line.amount),
            "vat_rate": number(line.vat_rate)}
    if inclusive:   # net line values are not printed on VAT-inclusive invoices
        item["_unit_price_gross"] = number(line.unit_price)
        item["_gross_amount"] = number(line.amount)
    if line.discount_pct:
        item["_discount_pct"] = number(line.discount_pct)
    return item
