"""The webhook outbox in memory: every event a change wrote, once each (the in-memory store has
no endpoints to match an event with, so it keeps them all)."""
from __future__ import annotations

from datetime import datetime

from ...domain.webhooks import event_id
from .tables import EventRow, Now, Tables



def record_event(tables: Tables, account: str, invoice_id: str, event_type: str, event: str,
                 detail: str | None, now: datetime) -> None:
    if event not in tables.events:
        tables.events[event] = EventRow(event, account, event_type, invoice_id, detail, now)


def job_event(tables: Tables, job_id: str, event_type: str, detail: str | None,
              now: datetime) -> None:
    """An event for every invoice that shows the job's status (its own, joined uploads, an
    invoice whose retry it is)."""
    shown_by = {job.id for job in tables.jobs.values()
                if job.id == job_id or job.leader_id == job_id}
    for invoice in list(tables.invoices.values()):
        if invoice.job_id in shown_by:
            record_event(tables, invoice.account, invoice.id, event_type,
                         event_id(invoice.id, event_type, job_id), detail, now)


class MemoryEvents:
    def __init__(self, tables: Tables, now: Now):
        self.t, self.now = tables, now

    def invoice_event(self, account: str, invoice_id: str, event_type: str,
                      discriminator: str, detail: str | None = None) -> None:
        record_event(self.t, account, invoice_id, event_type,
                     event_id(invoice_id, event_type, discriminator), detail, self.now())
