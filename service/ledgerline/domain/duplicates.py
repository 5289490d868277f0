"""Business duplicates: the same invoice sent twice as different files.

Identical bytes are the cache's business and never reach this rule; here two different
files describe the same bill: same seller and invoice number, or same seller, gross total
and issue date (a reprint with a new number is still the same bill to pay).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


@dataclass(frozen=True)
class Summary:
    seller_name: str | None
    invoice_number: str | None
    gross_total: str | None
    issue_date: str | None


def _ident(value: str | None) -> str | None:
    return re.sub(r"\s+", "", value).casefold() if value else None


def _amount(value: str | None) -> Decimal | None:
    try:
        return Decimal(value) if value else None
    except InvalidOperation:
        return None


def matched_on(a: Summary, b: Summary) -> list[str]:
    """The rules by which `b` duplicates `a`; empty when it does not."""
    if not a.seller_name or _ident(a.seller_name) != _ident(b.seller_name):
        return []
    if a.invoice_number and _ident(a.invoice_number) == _ident(b.invoice_number):
        return ["seller_name", "invoice_number"]
    gross = _amount(a.gross_total)
    if gross is not None and gross == _amount(b.gross_total) and a.issue_date and \
            a.issue_date == b.issue_date:
        return ["seller_name", "gross_total", "issue_date"]
    return []
