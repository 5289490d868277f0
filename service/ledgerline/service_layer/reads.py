"""What a caller may read of an account's invoices, and waiting for one to finish
(`Prefer: wait`): the use cases behind the read views and the upload's answer."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, BinaryIO

from ..domain.errors import NotFound, Unavailable
from ..domain.identity import Caller
from ..domain.jobs import JobStatus
from ..ports.invoices import REVIEW_STATES, InvoiceProgress, ListFilter
from ..ports.storage import ObjectNotFound, StorageUnavailable

if TYPE_CHECKING:
    from ..adapters.job_endings import Watching
    from ..bootstrap import Services

__all__ = ["REVIEW_STATES", "ListFilter", "export", "invoice", "invoices",
           "one_connection_per_request", "original", "review_queue", "wait_for_result"]


def one_connection_per_request(services: Services) -> AbstractContextManager[None]:
    """Every transaction of the block on one pooled connection (an upload runs several),
    given back while the block waits (see `wait_for_result`)."""
    return services.db.one_connection()


def invoice(services: Services, caller: Caller, account: str, invoice_id: str) -> dict:
    with services.db.transaction(write=False) as tx:
        found = tx.invoices.get(caller, account, invoice_id)
    if found is None:
        raise NotFound("no such invoice")
    return found


def invoices(services: Services, caller: Caller, account: str, flt: ListFilter, *,
             with_document: bool = False) -> list[dict]:
    """A page of the invoices the caller may see, newest first (404 for another account)."""
    if not caller.can_enter(account):
        raise NotFound(f"no account {account!r}")
    with services.db.transaction(write=False) as tx:
        return tx.invoices.page(caller, account, flt, with_document=with_document)


def export(services: Services, caller: Caller, account: str,
           flt: ListFilter) -> Iterator[dict]:
    """Every invoice the filter matches, with its extraction, as a stream the caller consumes
    (404 for another account before anything is read). One snapshot for the whole stream."""
    if not caller.can_enter(account):
        raise NotFound(f"no account {account!r}")

    def stream() -> Iterator[dict]:
        with services.db.snapshot() as tx:
            yield from tx.invoices.export(caller, account, flt)

    return stream()


def original(services: Services, caller: Caller, account: str, invoice_id: str) -> BinaryIO:
    """The uploaded bytes, as a stream the caller closes."""
    with services.db.transaction(write=False) as tx:
        key = tx.invoices.file_location(caller, account, invoice_id)
    if key is None:
        raise NotFound("no such invoice")
    try:
        return services.store.open_stream(key)
    except ObjectNotFound:
        raise NotFound("the original is missing") from None
    except StorageUnavailable as exc:
        raise Unavailable("storage is unavailable") from exc


def review_queue(services: Services) -> list[tuple[str, int, int]]:
    with services.db.transaction(write=False) as tx:
        return tx.invoices.review_queue()


def wait_for_result(services: Services, caller: Caller, account: str, invoice_id: str,
                    seconds: int, *, work_job_id: str | None = None,
                    watching: Watching | None = None) -> dict:
    """The invoice, once finished or after `seconds`. Wait for the job doing its work to end
    (adapters/job_endings.py: a worker in this process, NOTIFY on PostgreSQL, the doorbell on
    SQLite), looking only when told to, never on a timer. Nothing but the status is read before
    the wait: on the embedded default the worker that claims a new upload's job runs in this
    process, after this request's reads. A look after being told reads the whole invoice,
    whose status says whether it is the answer. `work_job_id`: that job, when the caller knows
    it (an upload that just decided it); else the status read first names it. `watching`:
    that job's end, watched since before it could end (an upload that watched it before its
    commit): then nothing is read before the wait, and a waiting miss reads its invoice once."""
    if seconds <= 0:
        return invoice(services, caller, account, invoice_id)
    deadline = services.clock.monotonic() + seconds
    if watching is not None:
        return _wait(services, caller, account, invoice_id, watching.ended, deadline)
    if work_job_id is None:
        progress = _progress(services, caller, account, invoice_id)
        if JobStatus(progress.status).finished:
            return invoice(services, caller, account, invoice_id)
        work_job_id = progress.work_job_id
    return _wait_for_job(services, caller, account, invoice_id, work_job_id, deadline)


def _progress(services: Services, caller: Caller, account: str,
              invoice_id: str) -> InvoiceProgress:
    """The invoice's status and the job doing its work (NotFound for an invoice `caller`
    may not see)."""
    with services.db.transaction(write=False) as tx:
        progress = tx.invoices.progress(caller, account, invoice_id)
    if progress is None:
        raise NotFound("no such invoice")
    return progress


def _wait_for_job(services: Services, caller: Caller, account: str, invoice_id: str,
                  job_id: str, deadline: float) -> dict:
    with services.job_endings.watch(job_id) as ended:
        ended.clear()  # before each look: an end announced after it wakes the next wait
        if JobStatus(_progress(services, caller, account, invoice_id).status).finished:
            return invoice(services, caller, account, invoice_id)
        return _wait(services, caller, account, invoice_id, ended, deadline)


def _wait(services: Services, caller: Caller, account: str, invoice_id: str,
          ended: threading.Event, deadline: float) -> dict:
    """Until `ended` is set and a look finds the invoice finished, or the deadline."""
    db, clock = services.db, services.clock
    while True:
        db.let_go()  # a wait holds no pooled connection
        remaining = deadline - clock.monotonic()
        if remaining <= 0 or not clock.wait(ended, remaining):
            return invoice(services, caller, account, invoice_id)
        ended.clear()
        found = invoice(services, caller, account, invoice_id)
        if JobStatus(found["status"]).finished:
            return found
