"""Invoice reads, corrections, deletion and webhook events in memory, after the SQL of
adapters/db/invoices.py, corrections.py and deletion.py (whose docstrings say why each step
is there)."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

from ...domain.duplicates import search_key
from ...domain.identity import Caller
from ...domain.ids import new_id, pseudonym
from ...domain.jobs import CallOutcome
from ...ports.invoices import (Deleted, EditableInvoice, Entry, InvoiceProgress, ListFilter,
                               LockedInvoice)
from ..invoice_views import (DUPLICATE_FIELDS, editable, listed, shown_document,
                             waits_for_review)
from .arrival import in_flight
from .reads import InvoiceView, shown_values, work_job
from .tables import CorrectionRow, Now, Tables



def _listed(row, flt: ListFilter) -> bool:
    """Whether a page filtered by `flt` lists the invoice (adapters/db/invoices.list_invoices);
    a missing value matches no bound, as SQL's NULL."""
    issued = row.issue_date
    return ((not flt.status or row.status == flt.status)
            and (not flt.issued_from or (issued is not None and issued >= flt.issued_from))
            and (not flt.issued_to or (issued is not None and issued <= flt.issued_to))
            and (not flt.seller or (row.seller_key is not None
                                    and search_key(flt.seller) in row.seller_key))
            and (flt.review != "required" or waits_for_review(row))
            and (flt.review != "resolved" or row.review_resolved_at is not None)
            and (flt.duplicates != "only" or row.duplicate_of is not None)
            and (flt.duplicates != "exclude" or row.duplicate_of is None)
            and (not flt.after or (row.created_at, row.id) < flt.after))


class MemoryInvoiceReads:
    def __init__(self, tables: Tables):
        self.t = tables

    def get(self, caller: Caller, account: str, invoice_id: str) -> dict | None:
        view = InvoiceView(self.t, caller)
        invoice = view.find(account, invoice_id)
        if invoice is None:
            return None
        row = view.row(invoice)
        shown = view.invoice(row)
        shown["extraction"] = shown_document(row)
        shown["possible_duplicates"] = view.possible_duplicates(row)
        return shown

    def page(self, caller: Caller, account: str, flt: ListFilter, *,
             with_document: bool = False) -> list[dict]:
        return [listed(row, with_document=with_document)
                for row in self._matching(caller, account, flt)[:flt.limit]]

    def export(self, caller: Caller, account: str, flt: ListFilter) -> Iterator[dict]:
        for row in self._matching(caller, account, flt):
            yield listed(row, with_document=True)

    def _matching(self, caller: Caller, account: str, flt: ListFilter) -> list:
        view = InvoiceView(self.t, caller)
        rows = [view.row(i) for i in self.t.invoices.values() if view.visible(i, account)]
        return sorted((row for row in rows if _listed(row, flt)),
                      key=lambda row: (row.created_at, row.id), reverse=True)

    def earlier_duplicate(self, caller: Caller, account: str, invoice: EditableInvoice,
                          summary: dict) -> dict | None:
        mine = SimpleNamespace(id=invoice.id, account=account,
                               content_hash=invoice.content_hash,
                               seller_key=summary.get("seller_key"),
                               **{name: summary.get(name) for name in DUPLICATE_FIELDS})
        found = InvoiceView(self.t, caller).possible_duplicates(mine)
        order = {d["id"]: (other.created_at, other.id)
                 for d in found for other in [self.t.invoices[d["id"]]]}
        before = [d for d in found if order[d["id"]] < (invoice.created_at, invoice.id)]
        return min(before, key=lambda d: order[d["id"]]) if before else None

    def file_location(self, caller: Caller, account: str, invoice_id: str) -> str | None:
        invoice = InvoiceView(self.t, caller).find(account, invoice_id)
        blob = invoice and self.t.blobs.get((invoice.account, invoice.content_hash))
        return blob.storage_key if blob else None

    def review_queue(self) -> list[tuple[str, int, int]]:
        counts: dict[str, list[int]] = {}
        files: dict[str, set[str]] = {}
        for invoice in self.t.invoices.values():
            count = counts.setdefault(invoice.account, [0, 0])
            if (work_job(self.t, invoice).status == "completed"
                    and shown_values(self.t, invoice)["review_required"]
                    and invoice.review_resolved_at is None):
                count[0] += 1
            seen = files.setdefault(invoice.account, set())
            count[1] += invoice.content_hash in seen
            seen.add(invoice.content_hash)
        return [(account, waiting, copies)
                for account, (waiting, copies) in sorted(counts.items()) if waiting or copies]

    def progress(self, caller: Caller, account: str,
                 invoice_id: str) -> InvoiceProgress | None:
        invoice = InvoiceView(self.t, caller).find(account, invoice_id)
        if invoice is None:
            return None
        job = self.t.jobs[invoice.job_id]
        work = job.leader_id or job.id
        return InvoiceProgress(self.t.jobs[work].status, work)

    def for_update(self, caller: Caller, account: str,
                   invoice_id: str) -> EditableInvoice | None:
        view = InvoiceView(self.t, caller)
        invoice = view.find(account, invoice_id)
        if invoice is None:
            return None
        row = view.row(invoice)
        return editable(row)


class MemoryCorrections:
    def __init__(self, tables: Tables, now: Now):
        self.t, self.now = tables, now

    def record(self, invoice_id: str, account: str, version: int, author: Caller,
               entry: Entry, *, overlay: dict | None = None, summary: dict | None = None,
               resolves_review: bool = False, reopens_review: bool = False) -> bool:
        invoice = self.t.invoices.get(invoice_id)
        if invoice is None or invoice.version != version - 1:
            return False
        now = self.now()
        changed = replace(invoice, version=version)
        if overlay is not None:
            changed = replace(changed, corrections=json.dumps(overlay, separators=(",", ":")),
                              corrected_at=now, **(summary or {}))
        if resolves_review:
            changed = replace(changed, review_resolved_at=now, review_resolved_by=author.key_id)
        if reopens_review:
            changed = replace(changed, review_resolved_at=None, review_resolved_by=None)
        self.t.invoices[invoice_id] = changed
        row_id = new_id("cor")
        self.t.corrections[row_id] = CorrectionRow(
            id=row_id, account=account, invoice_id=invoice_id, version=version, kind=entry.kind,
            author_key_id=author.key_id, author_role=author.role.value, author_name=author.name,
            reason=entry.reason, changes=json.dumps(entry.changes, separators=(",", ":")),
            created_at=now)
        return True

    def history(self, invoice_id: str) -> list[dict]:
        rows = sorted((r for r in self.t.corrections.values() if r.invoice_id == invoice_id),
                      key=lambda r: r.version)
        return [{"version": r.version, "kind": r.kind,
                 "author": {"key_id": r.author_key_id, "role": r.author_role,
                            "name": r.author_name},
                 "created_at": r.created_at.isoformat().replace("+00:00", "Z"),
                 "reason": r.reason, "changes": json.loads(r.changes)} for r in rows]


class MemoryDeletion:
    def __init__(self, tables: Tables, now: Now):
        self.t, self.now = tables, now

    def lock_invoice(self, account: str, invoice_id: str, *,
                     skip_locked: bool = False) -> LockedInvoice | None:
        """One lock holds every transaction apart: nothing is ever held by another here."""
        invoice = self.t.invoices.get(invoice_id)
        if invoice is None or invoice.account != account:
            return None
        return LockedInvoice(invoice.id, invoice.account, invoice.job_id, invoice.content_hash)

    def delete_invoice(self, invoice: LockedInvoice) -> Deleted:
        t, done = self.t, Deleted()
        for row in [r for r in t.corrections.values() if r.invoice_id == invoice.id]:
            del t.corrections[row.id]
        retries = [j.id for j in t.jobs.values() if j.retry_of == invoice.id]
        del t.invoices[invoice.id]
        results_used: set[str] = set()
        pending = [invoice.job_id, *retries]
        while pending:
            job = t.jobs.get(pending.pop(0))
            if job is None:
                continue
            if job.result_id:
                results_used.add(job.result_id)
            if self._still_needed(job.id):
                if job.idempotency_key is not None:
                    t.jobs[job.id] = replace(job, idempotency_key=None, updated_at=self.now())
                done.released.append(job.id)
                continue
            self._end_calls_of(job.id)
            del t.jobs[job.id]
            done.jobs += 1
            if job.leader_id:
                pending.append(job.leader_id)
        for result_id in results_used:
            self._delete_result_if_unused(invoice.account, result_id, done)
        done.storage_key = self._forget_original(invoice.account, invoice.content_hash)
        return done

    def _still_needed(self, job_id: str) -> bool:
        return (any(i.job_id == job_id for i in self.t.invoices.values())
                or any(j.leader_id == job_id for j in self.t.jobs.values()))

    def _end_calls_of(self, job_id: str) -> None:
        for row in list(self.t.calls.values()):
            if row.job_id == job_id and row.outcome == CallOutcome.RUNNING.value:
                self.t.calls[row.call_id] = replace(row, outcome=CallOutcome.ABANDONED.value)

    def _delete_result_if_unused(self, account: str, result_id: str, done: Deleted) -> None:
        t = self.t
        if any(j.result_id == result_id for j in t.jobs.values()):
            return
        entries = [k for k, e in t.cache_entries.items()
                   if e.account == account and e.result_id == result_id]
        for key in entries:
            del t.cache_entries[key]
        done.cache_entries += len(entries)
        if t.results.pop(result_id, None) is not None:
            done.results += 1

    def _forget_original(self, account: str, content_hash: str) -> str | None:
        t = self.t
        in_use = (any(i.account == account and i.content_hash == content_hash
                      for i in t.invoices.values())
                  or any(j.account == account and j.content_hash == content_hash
                         and in_flight(j) for j in t.jobs.values()))
        if in_use:
            return None
        blob = t.blobs.pop((account, content_hash), None)
        return blob.storage_key if blob else None

    def expired_invoices(self, batch: int) -> list[tuple[str, str]]:
        now, t = self.now(), self.t
        expired = []
        for invoice in t.invoices.values():
            account = t.accounts.get(invoice.account)
            if (account is not None and account.retention_days is not None
                    and invoice.created_at < now - timedelta(days=account.retention_days)):
                expired.append(invoice)
        expired.sort(key=lambda i: (i.created_at, i.id))
        return [(i.account, i.id) for i in expired[:batch]]

    def set_retention_days(self, account: str, days: int | None) -> bool:
        row = self.t.accounts.get(account)
        if row is None or row.deleted_at is not None:
            return False
        self.t.accounts[account] = replace(row, retention_days=days)
        return True

    def start_account_deletion(self, account: str) -> bool:
        row = self.t.accounts.get(account)
        if row is None:
            return False
        now = self.now()
        self.t.accounts[account] = replace(row, deleted_at=row.deleted_at or now)
        for key in list(self.t.keys.values()):
            if key.account == account and key.revoked_at is None:
                self.t.keys[key.id] = replace(key, revoked_at=now)
        return True

    def delete_account_batch(self, account: str, batch: int) -> int:
        t = self.t

        def of_account(row) -> bool:
            return row.account == account

        n = _drop(t.events, of_account)
        ids = {i.id for i in t.invoices.values() if of_account(i)}
        if ids:
            ids = set(sorted(ids)[:batch])
            _drop(t.corrections, lambda row: row.invoice_id in ids)
            return n + _drop(t.invoices, lambda row: row.id in ids)
        for job in [j for j in t.jobs.values() if of_account(j)]:
            if job.leader_id is not None or job.result_id is not None:
                t.jobs[job.id] = replace(job, leader_id=None, result_id=None)
        n += _drop(t.jobs, of_account, batch) + _drop(t.cache_entries, of_account)
        if n:
            return n
        return _drop(t.results, of_account, batch) + _drop(t.blobs, of_account)

    def finish_account_deletion(self, account: str) -> bool:
        t = self.t
        for row in list(t.calls.values()):
            if row.account == account:
                t.calls[row.call_id] = replace(row, account=pseudonym(account))
        if (any(j.account == account for j in t.jobs.values())
                or any(b.account == account for b in t.blobs.values())
                or any(r.account == account for r in t.results.values())
                or any(i.account == account for i in t.invoices.values())):
            return False  # rows arrived meanwhile: they still refer to the account
        for key in [k for k in t.keys.values() if k.account == account]:
            del t.keys[key.id]
        t.accounts.pop(account, None)
        return True


def _drop(table: dict, which: Callable[[Any], bool], limit: int | None = None) -> int:
    """Delete (up to `limit` of) the rows of `table` `which` selects; how many."""
    keys = [key for key, row in table.items() if which(row)][:limit]
    for key in keys:
        del table[key]
    return len(keys)
