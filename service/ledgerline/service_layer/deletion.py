"""Deletion that leaves nothing behind: an invoice, an account, and per-account retention.

`delete_invoice` removes the invoice and everything only it used (adapters/db/deletion.py
lists what), in one transaction, with the `invoice.deleted` event in the same transaction; the
original's object (every version of it) is deleted while its row is still locked, so a
concurrent upload of the same file ends either with its own complete invoice or with none.
Afterwards the invoice is 404 for everyone.

`delete_account` revokes the account's keys first (every API process refuses them within a
second), then deletes its rows in batches and every object under its prefix; an interrupted
run is finished by the next one. `purge_expired` applies `accounts set-retention`: it is run
by `ledgerline purge`, deletes each expired invoice like `delete_invoice`, and skips invoices
another purge holds, so several hosts can run it at once.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..domain.errors import Forbidden, NotFound, Unavailable
from ..domain.identity import Caller
from ..ports.database import StoreUnavailable
from ..ports.storage import StorageUnavailable, account_prefix

if TYPE_CHECKING:
    from ..bootstrap import Services

log = logging.getLogger(__name__)
ACCOUNT_BATCH = 500
RETENTION_BATCH = 100
# Rows that arrive while an account is being deleted (an upload authorised just before its
# key was revoked) are caught by another pass; after this many, the run says so.
ACCOUNT_PASSES = 50


def delete_invoice(services: Services, caller: Caller, account: str, invoice_id: str) -> None:
    """DELETE …/invoices/{id}: a customer any invoice of its account, a supplier its own."""
    if not caller.can_enter(account):
        raise NotFound(f"no account {account!r}")
    if not caller.can_upload():
        raise Forbidden(f"the {caller.role.value} role may not delete invoices")
    try:
        with services.db.transaction(write=False) as tx:
            visible = tx.invoices.progress(caller, account, invoice_id) is not None
        if not visible or not _delete_one(services, account, invoice_id):
            raise NotFound("no such invoice")
    except StoreUnavailable as exc:
        raise Unavailable("the database is unavailable; nothing was deleted") from exc


def _delete_one(services: Services, account: str, invoice_id: str, *,
                skip_locked: bool = False) -> bool:
    try:
        with services.db.transaction(write=True) as tx:
            invoice = tx.deletion.lock_invoice(account, invoice_id, skip_locked=skip_locked)
            if invoice is None:
                return False
            done = tx.deletion.delete_invoice(invoice)
            tx.events.invoice_event(account, invoice_id, "invoice.deleted", "")
            if done.storage_key:  # before the commit: the row stays locked meanwhile
                services.store.delete(done.storage_key)
    except StorageUnavailable as exc:
        raise Unavailable("storage is unavailable; nothing was deleted") from exc
    log.info("deleted invoice %s (%s jobs, %s results, original %s)", invoice_id, done.jobs,
             done.results, "deleted" if done.storage_key else "kept")
    return True


# --- retention -------------------------------------------------------------------------------

def purge_expired(services: Services, *, batch: int = RETENTION_BATCH) -> int:
    """Delete every invoice older than its account's retention; how many this run deleted."""
    deleted = 0
    while True:
        with services.db.transaction(write=False) as tx:
            expired = tx.deletion.expired_invoices(batch)
        done = sum(_delete_one(services, account, invoice_id, skip_locked=True)
                   for account, invoice_id in expired)
        deleted += done
        if len(expired) < batch or not done:
            return deleted


def set_retention(services: Services, account: str, days: int | None) -> bool:
    """`accounts set-retention`: keep the account's invoices `days` days (None: for ever)."""
    with services.db.transaction(write=True) as tx:
        return tx.deletion.set_retention_days(account, days)


# --- whole accounts --------------------------------------------------------------------------

@dataclass
class AccountDeleted:
    rows: int = 0
    objects: int = 0

    def as_dict(self) -> dict:
        return {"rows": self.rows, "objects": self.objects}


def delete_account(services: Services, account: str, *,
                   batch: int = ACCOUNT_BATCH) -> AccountDeleted | None:
    """Everything of the account, in the database and the object store; None: no account."""
    with services.db.transaction(write=True) as tx:
        if not tx.deletion.start_account_deletion(account):
            return None
    done = AccountDeleted()
    for _ in range(ACCOUNT_PASSES):
        while True:
            with services.db.transaction(write=True) as tx:
                n = tx.deletion.delete_account_batch(account, batch)
            done.rows += n
            if not n:
                break
        done.objects += services.store.delete_prefix(account_prefix(account))
        with services.db.transaction(write=True) as tx:
            if tx.deletion.finish_account_deletion(account):
                # An upload that stored its object just before its key was refused finds no
                # account to commit to: sweep once more for such late objects.
                done.objects += services.store.delete_prefix(account_prefix(account))
                return done
    raise Unavailable(f"account {account} kept receiving data while it was deleted; run "
                      "`ledgerline accounts delete` again")
