"""Invoices as the use cases read and change them: reads (visibility applied in each), the
corrections a person makes, deletion, and the webhook events a change writes with itself.

Visibility: a caller reads only inside its own account, and a supplier only its own uploads;
an invoice it may not see is absent (None), never refused.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from ..domain.identity import Caller

REVIEW_STATES = ("required", "resolved")
DUPLICATE_FILTERS = ("only", "exclude")


@dataclass(frozen=True)
class ListFilter:
    """Which invoices a page lists, newest first; every condition must hold."""
    status: str | None = None
    issued_from: str | None = None   # ISO dates, inclusive
    issued_to: str | None = None
    seller: str | None = None        # a part of the seller name, case and spacing aside
    review: str | None = None        # required | resolved
    duplicates: str | None = None    # only | exclude: by the invoice's `duplicate_of`
    after: tuple[datetime, str] | None = None  # cursor: (created_at, id) of the last row seen
    limit: int = 50


@dataclass(frozen=True)
class InvoiceProgress:
    status: str
    work_job_id: str  # the job doing the invoice's work: its leader, when it follows one


@dataclass(frozen=True)
class EditableInvoice:
    """An invoice as a correction starts from, held against concurrent corrections."""
    id: str
    content_hash: str
    created_at: datetime
    status: str
    version: int
    model: dict | None      # the model's extraction, as its result holds it
    shown: dict | None      # the extraction as the invoice shows it (its corrections applied)
    overlay: dict | None    # the invoice's own corrections (domain.corrections)
    review_required: bool | None
    review_resolved_at: datetime | None


@dataclass(frozen=True)
class Entry:
    """One entry of an invoice's history, as the author's caller made it."""
    kind: str            # correction | review
    changes: list[dict]
    reason: str | None


@dataclass(frozen=True)
class LockedInvoice:
    id: str
    account: str
    job_id: str
    content_hash: str


@dataclass
class Deleted:
    jobs: int = 0
    results: int = 0
    cache_entries: int = 0
    storage_key: str | None = None   # the original's object, to delete before committing
    released: list[str] = field(default_factory=list)  # jobs kept for others, key released


class InvoiceReads(Protocol):
    def get(self, caller: Caller, account: str, invoice_id: str) -> dict | None:
        """The invoice as a read shows it: its extraction and its possible duplicates."""

    def page(self, caller: Caller, account: str, flt: ListFilter, *,
             with_document: bool = False) -> list[dict]:
        """A page of the invoices the caller may see, newest first (then by id, descending),
        each with its summary, or with its extraction when `with_document`.

        Every listed invoice says whether it is a `possible_duplicate` and of which invoice
        (`duplicate_of`: the oldest other copy of its file, else the oldest invoice of
        another file with the same seller and number, or the same seller, issue date and
        gross total; among those the caller may see)."""

    def export(self, caller: Caller, account: str, flt: ListFilter) -> Iterator[dict]:
        """Every invoice the filter matches (its limit aside), as `page` with documents
        lists them, read a window at a time: for a transaction that is a snapshot."""

    def earlier_duplicate(self, caller: Caller, account: str, invoice: EditableInvoice,
                          summary: dict) -> dict | None:
        """The oldest of the possible duplicates ({id, matched_on}) that the invoice would
        have with the values `summary` (a correction's, domain.corrections.summary) among
        those uploaded before it; None when none was."""

    def file_location(self, caller: Caller, account: str, invoice_id: str) -> str | None:
        """The object store's key of the invoice's original."""

    def review_queue(self) -> list[tuple[str, int, int]]:
        """(account, invoices waiting for review, uploads of a file the account already had)
        of every account that has either, by account. Waiting: completed, their checks (the
        model's, or their own once corrected) ask for review, nobody resolved it yet."""

    def progress(self, caller: Caller, account: str,
                 invoice_id: str) -> InvoiceProgress | None: ...

    def for_update(self, caller: Caller, account: str,
                   invoice_id: str) -> EditableInvoice | None: ...


class Corrections(Protocol):
    def record(self, invoice_id: str, account: str, version: int, author: Caller,
               entry: Entry, *, overlay: dict | None = None, summary: dict | None = None,
               resolves_review: bool = False, reopens_review: bool = False) -> bool:
        """Write the entry as version `version` and update the invoice with it; False when
        another writer got to that version first. `summary`: the corrected invoice's own
        summary columns and review_required; `reopens_review`: a correction broke a rule of a
        resolved invoice, whose review is required again."""

    def history(self, invoice_id: str) -> list[dict]:
        """Every entry, oldest first."""


class Deletion(Protocol):
    """What deletion removes (adapters/db/deletion.py says what, and why in that order)."""

    def lock_invoice(self, account: str, invoice_id: str, *,
                     skip_locked: bool = False) -> LockedInvoice | None:
        """The invoice, held until the transaction ends; None when there is none (or, with
        `skip_locked`, when another transaction holds it)."""

    def delete_invoice(self, invoice: LockedInvoice) -> Deleted:
        """The invoice and everything only it used; the ledger keeps its rows."""

    def expired_invoices(self, batch: int) -> list[tuple[str, str]]:
        """(account, id) of invoices older than their account's retention, oldest first."""

    def set_retention_days(self, account: str, days: int | None) -> bool: ...

    def start_account_deletion(self, account: str) -> bool:
        """Mark the account as being deleted and revoke its keys; False: no such account."""

    def delete_account_batch(self, account: str, batch: int) -> int:
        """Delete up to about `batch` rows of each kind; how many (0: only the account and
        its keys are left)."""

    def finish_account_deletion(self, account: str) -> bool:
        """The ledger keeps the costs under a pseudonym, the rest goes; False when rows
        arrived meanwhile."""


class Events(Protocol):
    """The webhook outbox, written in the transaction whose change it reports."""

    def invoice_event(self, account: str, invoice_id: str, event_type: str,
                      discriminator: str, detail: str | None = None) -> None: ...
