"""Possible duplicates: the same bill uploaded twice, as the same file or as another one.

- The same bytes twice in an account (a user who uploads one PDF again): `content_hash`. The
  cache makes the second upload free, but accounts payable still needs to hear about it.
- Two different files that bill the same thing: same seller and invoice number, or same
  seller, gross total and issue date (a reprint with a new number is still the same bill).

Names and numbers compare after removing all white space and folding case (`casefold`, so
"STRASSE" and "Straße" are one seller). The database stores `seller_key` (this module's
folding) beside each seller name and compares it as stored: SQL never folds on its own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

CONTENT_HASH = ["content_hash"]
# An invoice lists at most this many copies of its own file, the oldest first: a file sent a
# thousand times over (a client retrying without an Idempotency-Key) is flagged by its first
# copies, which stand for the rest, not by an answer that grows with every copy. Other files
# that bill the same thing are each a document to look at, and are all listed.
SAME_FILE_SHOWN = 20
# The width of the seller_key columns. Folding can lengthen a name ("ß" -> "ss"); a key cut
# at this width only narrows the lookup, and matched_on compares the whole names.
SELLER_KEY_WIDTH = 300
NUMBER_KEY_WIDTH = 200


@dataclass(frozen=True)
class Summary:
    seller_name: str | None
    invoice_number: str | None
    gross_total: str | None
    issue_date: str | None


def _ident(value: str | None) -> str | None:
    return re.sub(r"\s+", "", value).casefold() if value else None


def seller_key(seller_name: str | None) -> str | None:
    """What the database stores to find a seller's invoices (and to filter by seller)."""
    key = _ident(seller_name)
    return key[:SELLER_KEY_WIDTH] if key else None


def number_key(invoice_number: str | None) -> str | None:
    """The invoice number as the database stores it to find the same bill (lists, exports)."""
    key = _ident(invoice_number)
    return key[:NUMBER_KEY_WIDTH] if key else None


def search_key(text: str) -> str:
    """The seller filter's text, folded like seller_key, to find as a part of one."""
    return _ident(text) or ""


def _amount(value: str | None) -> Decimal | None:
    try:
        return Decimal(value) if value else None
    except InvalidOperation:
        return None


def matched_on(a: Summary, b: Summary) -> list[str]:
    """The business rules by which `b` duplicates `a`; empty when it does not."""
    if not a.seller_name or _ident(a.seller_name) != _ident(b.seller_name):
        return []
    if a.invoice_number and _ident(a.invoice_number) == _ident(b.invoice_number):
        return ["seller_name", "invoice_number"]
    gross = _amount(a.gross_total)
    if gross is not None and gross == _amount(b.gross_total) and a.issue_date and \
            a.issue_date == b.issue_date:
        return ["seller_name", "gross_total", "issue_date"]
    return []
