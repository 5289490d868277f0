"""Invoices as the in-memory store reads them: the row a SQL read would return
(adapters/db/invoices.py), built from the tables, and what is shown of it
(adapters/invoice_views.py, shared with SQL)."""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from types import SimpleNamespace

from ...domain.corrections import SUMMARY_FIELDS
from ...domain.duplicates import SAME_FILE_SHOWN, Summary
from ...domain.identity import Caller
from ...ports.jobs import NewJob
from ..invoice_views import DUPLICATE_FIELDS, invoice_view, possible_duplicates
from .tables import InvoiceRow, JobRow, ResultRow, Tables


def invoice_row(invoice_id: str, job: NewJob, job_id: str, created_at: datetime) -> InvoiceRow:
    """The caller's invoice, created at its job's time."""
    return InvoiceRow(id=invoice_id, account=job.account, uploaded_by=job.caller_id,
                      job_id=job_id, content_hash=job.content_hash, created_at=created_at)


def work_job(tables: Tables, invoice: InvoiceRow) -> JobRow:
    """The job whose status and result the invoice shows: its own, or the one it follows."""
    job = tables.jobs[invoice.job_id]
    return tables.jobs.get(job.leader_id, job) if job.leader_id else job


def shown_result(tables: Tables, invoice: InvoiceRow) -> ResultRow | None:
    result_id = work_job(tables, invoice).result_id
    return tables.results.get(result_id) if result_id else None


class InvoiceView:
    """Reads as `caller` sees them: only inside its account, a supplier only its uploads."""

    def __init__(self, tables: Tables, caller: Caller):
        self.t, self.caller = tables, caller

    def visible(self, invoice: InvoiceRow, account: str) -> bool:
        return (self.caller.can_enter(account) and invoice.account == account
                and (not self.caller.sees_only_own_uploads()
                     or invoice.uploaded_by == self.caller.principal)
                and invoice.uploaded_by in self.t.keys)

    def find(self, account: str, invoice_id: str) -> InvoiceRow | None:
        invoice = self.t.invoices.get(invoice_id)
        return invoice if invoice is not None and self.visible(invoice, account) else None

    def row(self, invoice: InvoiceRow) -> SimpleNamespace:
        job = work_job(self.t, invoice)
        result = shown_result(self.t, invoice)
        key = self.t.keys[invoice.uploaded_by]
        own = shown_values(self.t, invoice)
        return SimpleNamespace(
            id=invoice.id, account=invoice.account, content_hash=invoice.content_hash,
            created_at=invoice.created_at, uploaded_by=invoice.uploaded_by,
            uploader_role=key.role, uploader_name=key.name, status=job.status,
            error_code=job.error_code, error_message=job.error_message, version=invoice.version,
            review_resolved_at=invoice.review_resolved_at,
            review_resolved_by=invoice.review_resolved_by,
            document=result.document if result else None, corrections=invoice.corrections,
            duplicate_of=self.duplicate_of(invoice, own), **own)

    def duplicate_of(self, invoice: InvoiceRow, own: dict) -> str | None:
        """The oldest other copy of the file, else the oldest invoice of another file that
        bills the same thing, as each shows it (adapters/db/duplicates.py): among the
        invoices of the account the caller may see."""
        others = sorted((i for i in self.t.invoices.values()
                         if i.account == invoice.account and i.id != invoice.id
                         and (not self.caller.sees_only_own_uploads()
                              or i.uploaded_by == self.caller.principal)),
                        key=lambda i: (i.created_at, i.id))
        for other in others:
            if other.content_hash == invoice.content_hash:
                return other.id
        for other in others:
            if _same_bill(own, shown_values(self.t, other)):
                return other.id
        return None

    def invoice(self, row: SimpleNamespace) -> dict:
        return invoice_view(row)

    def possible_duplicates(self, row: SimpleNamespace) -> list[dict]:
        """The same file (its oldest copies), then other files that bill the same thing."""
        mine = [i for i in self.t.invoices.values() if self.visible(i, row.account)]
        oldest_first = sorted(mine, key=lambda i: (i.created_at, i.id))
        same_file = [i.id for i in oldest_first
                     if i.content_hash == row.content_hash and i.id != row.id][:SAME_FILE_SHOWN]
        if not row.seller_key:
            return possible_duplicates(same_file, _summary(row), ())
        candidates = [self.row(i) for i in oldest_first
                      if i.content_hash != row.content_hash and self._same_seller(i, row)]
        return possible_duplicates(same_file, _summary(row),
                                   ((other.id, _summary(other)) for other in candidates))

    def _same_seller(self, invoice: InvoiceRow, row: SimpleNamespace) -> bool:
        """Through the result it shows, or its own corrected seller (invoices.same_seller_query)."""
        result = shown_result(self.t, invoice)
        if result is not None and result.seller_key == row.seller_key:
            return True
        return invoice.corrected_at is not None and invoice.seller_key == row.seller_key


def shown_values(tables: Tables, invoice: InvoiceRow) -> dict:
    """The invoice's summary columns, its keys and whether its checks ask for review: its own
    once corrected, else its result's (None for each while it has none)."""
    corrected = invoice.corrected_at is not None
    source = invoice if corrected else shown_result(tables, invoice)
    return {name: getattr(source, name, None)
            for name in (*SUMMARY_FIELDS, "seller_key", "number_key", "review_required")}


def _same_bill(mine: dict, other: dict) -> bool:
    """The same seller, and the same number or the same issue date and gross total: the keys
    as stored, compared as SQL compares them (NULL matches nothing, amounts as numbers)."""
    if mine["seller_key"] is None or mine["seller_key"] != other["seller_key"]:
        return False
    if mine["number_key"] is not None and mine["number_key"] == other["number_key"]:
        return True
    gross = _amount(mine["gross_total"])
    return (mine["issue_date"] is not None and mine["issue_date"] == other["issue_date"]
            and gross is not None and gross == _amount(other["gross_total"]))


def _amount(value: str | None) -> Decimal | None:
    try:
        return Decimal(value) if value is not None else None
    except InvalidOperation:
        return None


def _summary(row: SimpleNamespace) -> Summary:
    return Summary(**{name: getattr(row, name) for name in DUPLICATE_FIELDS})
