"""Corrections and deletion: versions, their race, their events; what a deletion removes,
what it keeps for others, and that a store outage deletes nothing."""
from __future__ import annotations

import pytest

from ledgerline.domain import corrections as rules
from ledgerline.domain.errors import (Forbidden, InvalidCorrection, InvoiceNotCompleted,
                                      NotFound, PreconditionFailed, Unavailable)
from ledgerline.domain.ids import pseudonym
from ledgerline.ports.storage import StorageUnavailable
from ledgerline.service_layer import corrections, deletion
from tests.faults import Faults


def events(m, event_type: str) -> list[tuple[str, str | None]]:
    return [(invoice, detail) for invoice, kind, detail in m.rows("events")
            if kind == event_type]


def completed(m, caller, tag: str):
    upload = m.upload(caller, tag)
    m.work()
    return upload.invoice_id


def test_a_correction_is_a_new_version_with_its_event(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    invoice = completed(m, customer, "fix")
    patch = corrections.parse_patch({"fields": {"invoice_number": "RIGHT-1"}, "reason": "typo"})
    shown = corrections.correct(m.services, customer, "acme", invoice, patch)
    assert shown["version"] == 1
    assert shown["extraction"]["fields"]["invoice_number"]["value"] == "RIGHT-1"
    again = corrections.correct(m.services, customer, "acme", invoice, patch)
    assert again["version"] == 1  # it shows these values already: no new version
    assert events(m, "invoice.corrected") == [(invoice, "1")]
    [entry] = corrections.history(m.services, customer, "acme", invoice)
    assert (entry["version"], entry["reason"]) == (1, "typo")


def test_a_version_taken_meanwhile_is_read_again_and_applied_on_top(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    invoice = completed(m, customer, "race")
    raced = []

    def another_writer_first(real, *args, **kwargs):
        if not raced:
            raced.append(args[2])
            return False  # the version it read was taken by a concurrent correction
        return real(*args, **kwargs)

    Faults.around(m.services).replace("corrections.record", another_writer_first)
    patch = corrections.parse_patch({"fields": {"currency": "USD"}})
    assert corrections.correct(m.services, customer, "acme", invoice, patch)["version"] == 1
    assert raced == [1]


def check(shown: dict, rule: str) -> dict:
    return next(v for v in shown["extraction"]["validations"] if v["rule"] == rule)


def test_a_correction_checks_again_for_an_earlier_duplicate(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    first, second = completed(m, customer, "dup-first"), completed(m, customer, "dup-second")
    patch = corrections.parse_patch({"fields": {"purchase_order": "PO-1"}})
    shown = corrections.correct(m.services, customer, "acme", second, patch)
    assert (shown["possible_duplicate"], shown["duplicate_of"]) == (True, first)
    duplicate = check(shown, "LL-DUPLICATE")
    assert duplicate["status"] == "fail" and first in duplicate["detail"]
    assert shown["review"]["state"] == "required"
    older = corrections.correct(m.services, customer, "acme", first, patch)
    assert check(older, "LL-DUPLICATE")["status"] == "pass"
    apart = corrections.correct(m.services, customer, "acme", second, corrections.parse_patch(
        {"fields": {"invoice_number": "OTHER-9", "issue_date": "2026-11-03"}}))
    assert check(apart, "LL-DUPLICATE")["status"] == "pass"
    assert (apart["possible_duplicate"], apart["version"]) == (False, 2)


def test_a_stale_if_match_changes_nothing(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    invoice = completed(m, customer, "stale")
    patch = corrections.parse_patch({"fields": {"currency": "USD"}})
    stale = rules.IfMatch(frozenset({"0"}))
    assert corrections.correct(m.services, customer, "acme", invoice, patch, stale)["version"] == 1
    with pytest.raises(PreconditionFailed):
        corrections.correct(m.services, customer, "acme", invoice,
                            corrections.parse_patch({"fields": {"currency": "GBP"}}), stale)
    assert corrections.history(m.services, customer, "acme", invoice)[-1]["version"] == 1


def test_only_a_completed_invoice_is_corrected_and_only_by_its_uploaders(app):
    m = app()
    callers = m.tenant("acme")
    pending = m.upload(callers["customer"], "pending").invoice_id
    patch = corrections.parse_patch({"fields": {"currency": "USD"}})
    with pytest.raises(InvoiceNotCompleted):
        corrections.correct(m.services, callers["customer"], "acme", pending, patch)
    m.work()
    with pytest.raises(Forbidden):
        corrections.correct(m.services, callers["dashboard"], "acme", pending, patch)
    with pytest.raises(NotFound):  # a supplier sees its own uploads only
        corrections.correct(m.services, callers["supplier"], "acme", pending, patch)
    with pytest.raises(InvalidCorrection):
        corrections.parse_patch({"fields": {"issue_date": "2026-02-30"}})


def test_a_deleted_invoice_is_gone_with_its_original_and_says_so(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    invoice = completed(m, customer, "gone")
    [original] = m.originals()
    deletion.delete_invoice(m.services, customer, "acme", invoice)
    with pytest.raises(NotFound):
        deletion.delete_invoice(m.services, customer, "acme", invoice)
    assert not m.services.store.exists(original) and m.originals() == []
    assert events(m, "invoice.deleted") == [(invoice, None)]
    for table in ("invoices", "jobs", "results", "blobs"):
        assert m.rows(table) == [], table
    assert [c.outcome for c in m.rows("calls")] == ["published"]  # the ledger keeps its rows


def test_a_file_another_invoice_uses_stays(app):
    m = app()
    callers = m.tenant("acme")
    first = completed(m, callers["customer"], "shared")
    second = m.upload(callers["supplier"], "shared")  # a cache hit of the same file
    deletion.delete_invoice(m.services, callers["customer"], "acme", first)
    assert len(m.originals()) == 1
    with m.services.db.transaction(write=False) as tx:
        assert tx.invoices.get(callers["supplier"], "acme", second.invoice_id)["status"] == \
            "completed"


def test_a_store_that_is_away_deletes_nothing(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    invoice = completed(m, customer, "kept")
    real = m.services.store

    class Away:
        def delete(self, key):
            raise StorageUnavailable("S3 did not answer")

    m.services.store = Away()
    with pytest.raises(Unavailable):
        deletion.delete_invoice(m.services, customer, "acme", invoice)
    m.services.store = real
    with m.services.db.transaction(write=False) as tx:  # the transaction was rolled back
        assert tx.invoices.get(customer, "acme", invoice)["status"] == "completed"
    assert events(m, "invoice.deleted") == []


def test_the_purge_deletes_invoices_past_their_accounts_retention(memory):
    m = memory()
    acme, globex = m.tenant("acme")["customer"], m.tenant("globex")["customer"]
    completed(m, acme, "old")
    kept = completed(m, globex, "kept")
    assert deletion.set_retention(m.services, "acme", 30)
    m.clock.advance(31 * 86400)
    young = completed(m, acme, "young")
    assert deletion.purge_expired(m.services) == 1
    assert {invoice.id for invoice in m.rows("invoices")} == {kept, young}


def test_an_account_is_deleted_with_every_object_and_its_costs_kept(app):
    m = app()
    customer = m.tenant("acme")["customer"]
    for i in range(3):
        completed(m, customer, f"doc-{i}")
    done = deletion.delete_account(m.services, "acme", batch=2)
    assert done.objects == 3 and done.rows > 0
    assert m.originals() == []
    assert m.rows("accounts") == [] and m.rows("keys") == []
    assert {c.account for c in m.rows("calls")} == {pseudonym("acme")}
    assert deletion.delete_account(m.services, "acme") is None
