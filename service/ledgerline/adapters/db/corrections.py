"""SQL of corrections and review resolutions: the invoice's overlay and its history.

The result row (the model's document, shared through the cache) is only read here, never
written: everything a person changes is stored on the invoice and in invoice_corrections.
"""
from __future__ import annotations

import json

from sqlalchemy import Connection, select, update

from ...domain.identity import Caller
from ...domain.ids import new_id
from ...ports.invoices import Entry
from .clock import db_now
from .tables import invoice_corrections, invoices


class SqlCorrections:
    def __init__(self, conn: Connection):
        self.conn = conn

    def record(self, invoice_id: str, account: str, version: int, author: Caller,
               entry: Entry, *, overlay: dict | None = None, summary: dict | None = None,
               resolves_review: bool = False, reopens_review: bool = False) -> bool:
        """The invoice's update is conditional on the version before: a writer that lost the
        race to that version changes nothing."""
        values: dict = {"version": version}
        if overlay is not None:
            values.update(corrections=json.dumps(overlay, separators=(",", ":")),
                          corrected_at=db_now(), **(summary or {}))
        if resolves_review:
            values.update(review_resolved_at=db_now(), review_resolved_by=author.key_id)
        if reopens_review:
            values.update(review_resolved_at=None, review_resolved_by=None)
        moved = self.conn.execute(
            update(invoices)
            .where(invoices.c.id == invoice_id, invoices.c.version == version - 1)
            .values(**values)).rowcount
        if not moved:
            return False
        self.conn.execute(invoice_corrections.insert().values(
            id=new_id("cor"), account=account, invoice_id=invoice_id, version=version,
            kind=entry.kind, author_key_id=author.key_id, author_role=author.role.value,
            author_name=author.name, reason=entry.reason,
            changes=json.dumps(entry.changes, separators=(",", ":")), created_at=db_now()))
        return True

    def history(self, invoice_id: str) -> list[dict]:
        rows = self.conn.execute(select(invoice_corrections)
                                 .where(invoice_corrections.c.invoice_id == invoice_id)
                                 .order_by(invoice_corrections.c.version)).all()
        return [{"version": r.version, "kind": r.kind,
                 "author": {"key_id": r.author_key_id, "role": r.author_role,
                            "name": r.author_name},
                 "created_at": r.created_at.isoformat().replace("+00:00", "Z"),
                 "reason": r.reason, "changes": json.loads(r.changes)} for r in rows]
