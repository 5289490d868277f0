"""Invoices: reads within each caller's grants, corrections as versions, deletion that leaves
nothing only the deleted invoice used."""
from __future__ import annotations

from datetime import datetime

from ledgerline.domain import corrections as rules
from ledgerline.domain.ids import pseudonym
from ledgerline.domain.jobs import CacheOutcome
from ledgerline.ports.invoices import Entry, ListFilter
from tests.contract.steps import (arrive, claim, completed, content_hash, new_job, publish,
                                  read, upload)


def test_a_caller_reads_only_inside_its_grants(store):
    acme, globex = store.tenant("acme"), store.tenant("globex")
    _, mine = upload(store, acme["supplier"], "mine")
    _, theirs = upload(store, acme["customer"], "theirs")
    assert read(store, acme["supplier"], mine)["uploaded_by"] == {
        "key_id": acme["supplier"].key_id, "role": "supplier", "name": "supplier of acme"}
    assert read(store, acme["supplier"], theirs) is None  # another uploader's
    assert read(store, acme["supplier2"], mine) is None
    assert read(store, acme["dashboard"], mine)["id"] == mine
    assert read(store, globex["customer"], mine) is None
    with store.db.transaction(write=False) as tx:
        assert tx.invoices.get(globex["customer"], "acme", mine) is None
        assert tx.invoices.progress(acme["supplier2"], "acme", mine) is None
        assert tx.invoices.for_update(acme["supplier2"], "acme", mine) is None


def test_a_rotated_key_is_its_predecessors_caller(store):
    """Uploads belong to the principal (a rotated key's first predecessor): each of the two
    keys sees the other's, as its own, and another supplier sees neither."""
    acme = store.tenant("acme")
    supplier, rotated = acme["supplier"], acme["supplier_rotated"]
    assert rotated.key_id != supplier.key_id and rotated.principal == supplier.key_id
    _, before = completed(store, supplier, "before", "R-1")
    _, after = completed(store, rotated, "after", "R-1")  # the same bill again
    for caller in (supplier, rotated):
        assert read(store, caller, before)["uploaded_by"]["key_id"] == supplier.key_id
        assert read(store, caller, after)["uploaded_by"]["key_id"] == supplier.key_id
        assert page(store, caller) == [after, before]
        assert read(store, caller, after)["possible_duplicates"] == [
            {"id": before, "matched_on": ["seller_name", "invoice_number"]}]
    assert read(store, acme["supplier2"], after) is None
    assert page(store, acme["supplier2"]) == []


def test_an_invoice_shows_its_jobs_state_or_the_one_it_follows(store):
    callers = store.tenant("acme")
    leader, first = upload(store, callers["customer"], "shared")
    _, joined = arrive(store, new_job(callers["supplier"], "shared"), joinable=False,
                       leader_id=leader, outcome=CacheOutcome.JOINED)
    pending = read(store, callers["supplier"], joined)
    assert (pending["status"], pending["extraction"], pending["review"]) == ("pending", None, None)
    job, _ = claim(store, "w")
    with store.db.transaction(write=True) as tx:
        tx.claims.fail(job.claim, "pdf_encrypted", "a password")
    for caller, invoice in ((callers["customer"], first), (callers["supplier"], joined)):
        shown = read(store, caller, invoice)
        assert shown["status"] == "failed"
        assert shown["error"] == {"code": "pdf_encrypted", "message": "a password"}


def test_a_completed_invoice_shows_its_extraction_review_and_duplicates(store):
    callers = store.tenant("acme")
    _, first = completed(store, callers["customer"], "bill-a", "INV-7")
    _, second = completed(store, callers["customer"], "bill-b", "INV-7")  # same seller, number
    shown = read(store, callers["customer"], second)
    assert shown["status"] == "completed" and shown["version"] == 0
    assert shown["review"] == {"state": "not_required", "resolved_at": None, "resolved_by": None}
    assert shown["extraction"]["fields"]["invoice_number"]["value"] == "INV-7"
    assert shown["possible_duplicates"] == [
        {"id": first, "matched_on": ["seller_name", "invoice_number"]}]
    assert shown["created_at"].endswith("Z")


def page(store, caller, account: str | None = None, **flt) -> list[str]:
    with store.db.transaction(write=False) as tx:
        found = tx.invoices.page(caller, account or caller.account, ListFilter(**flt))
    return [invoice["id"] for invoice in found]


def test_a_page_lists_what_the_caller_may_see_newest_first_from_its_cursor(store):
    callers = store.tenant("acme")
    store.tenant("globex")
    customer, supplier = callers["customer"], callers["supplier"]
    ids = [upload(store, customer, f"doc-{i}")[1] for i in range(3)]
    _, supplied = upload(store, supplier, "supplied")
    assert page(store, customer) == [supplied, *reversed(ids)]
    assert page(store, supplier) == [supplied]
    assert page(store, callers["supplier2"]) == []
    assert page(store, customer, "globex") == []
    assert page(store, customer, limit=2) == [supplied, ids[2]]
    with store.db.transaction(write=False) as tx:
        [last] = tx.invoices.page(customer, "acme", ListFilter(limit=1, status="pending"))
        after = (datetime.fromisoformat(last["created_at"]), last["id"])
        rest = tx.invoices.page(customer, "acme", ListFilter(after=after))
    assert last["summary"]["invoice_number"] is None and "extraction" not in last
    assert [invoice["id"] for invoice in rest] == list(reversed(ids))


def test_a_page_is_filtered_by_status_dates_seller_and_review(store):
    callers = store.tenant("acme")
    customer = callers["customer"]
    _, plain = completed(store, customer, "plain", "P-1")
    _, asks = completed(store, customer, "asks", "A-1", review=True)
    _, waiting = upload(store, customer, "waiting")
    assert page(store, customer, status="pending") == [waiting]
    assert page(store, customer, status="completed") == [asks, plain]
    assert page(store, customer, issued_from="2026-11-02", issued_to="2026-11-02") == [
        asks, plain]  # a pending invoice has no date: no bound matches it
    assert page(store, customer, issued_from="2026-11-03") == []
    assert page(store, customer, seller="test  SELLER") == [asks, plain]
    assert page(store, customer, seller="Other") == []
    assert page(store, customer, review="required") == [asks]
    assert page(store, customer, review="resolved") == []
    with store.db.transaction(write=False) as tx:
        [shown] = tx.invoices.page(customer, "acme", ListFilter(review="required"),
                                   with_document=True)
    assert shown["extraction"]["fields"]["invoice_number"]["value"] == "A-1"
    assert "summary" not in shown


def test_the_review_queue_counts_what_waits_and_the_copies_in_each_account(store):
    acme, globex = store.tenant("acme")["customer"], store.tenant("globex")["customer"]
    completed(store, acme, "fine", "F-1")
    _, first = completed(store, acme, "asks-1", "A-1", review=True)
    completed(store, acme, "asks-2", "A-2", review=True)
    completed(store, globex, "asks-3", "G-1", review=True)
    with store.db.transaction(write=True) as tx:
        assert tx.invoices.review_queue() == [("acme", 2, 0), ("globex", 1, 0)]
        version = tx.invoices.for_update(acme, "acme", first).version
        assert tx.corrections.record(first, "acme", version + 1, acme,
                                     Entry("review", [{"field": "review"}], None),
                                     resolves_review=True)
    for caller in (acme, acme, store.tenant("initech")["customer"]):  # twice, and elsewhere
        arrive(store, new_job(caller, "fine"), joinable=False)
    with store.db.transaction(write=False) as tx:
        assert tx.invoices.review_queue() == [("acme", 1, 2), ("globex", 1, 0)]
    assert page(store, acme, review="resolved") == [first]


def test_the_originals_location_is_read_within_the_callers_grants(store):
    callers = store.tenant("acme")
    _, invoice = upload(store, callers["customer"], "kept")
    with store.db.transaction(write=False) as tx:
        assert tx.invoices.file_location(callers["customer"], "acme", invoice) == (
            f"objects/{content_hash('kept')}")
        assert tx.invoices.file_location(callers["supplier"], "acme", invoice) is None
        assert tx.invoices.file_location(callers["customer"], "globex", invoice) is None
        assert tx.invoices.file_location(callers["customer"], "acme", "inv_missing") is None


def test_a_correction_is_a_version_the_reads_show_and_its_history_keeps(store):
    callers = store.tenant("acme")
    customer = callers["customer"]
    _, invoice = completed(store, customer, "fix", "WRONG-1")
    with store.db.transaction(write=True) as tx:
        editable = tx.invoices.for_update(customer, "acme", invoice)
        applied = rules.changes(editable.shown, {"invoice_number": "RIGHT-1"}, None)
        overlay = rules.merged(editable.overlay, applied)
        after = rules.corrected_document(editable.shown, overlay)
        assert tx.corrections.record(invoice, "acme", 1, customer,
                                     Entry("correction", applied, "typo"), overlay=overlay,
                                     summary=rules.summary(after))
        assert not tx.corrections.record(invoice, "acme", 1, customer,
                                         Entry("correction", applied, "again"),
                                         overlay=overlay, summary=rules.summary(after))
    with store.db.transaction(write=True) as tx:
        assert tx.corrections.record(invoice, "acme", 2, customer,
                                     Entry("review", [{"field": "review"}], None),
                                     resolves_review=True)
    shown = read(store, customer, invoice)
    assert shown["version"] == 2 and shown["review"]["state"] == "resolved"
    assert shown["review"]["resolved_by"] == customer.key_id
    assert shown["extraction"]["fields"]["invoice_number"] == rules.corrected_field("RIGHT-1")
    with store.db.transaction(write=False) as tx:
        editable = tx.invoices.for_update(customer, "acme", invoice)
        history = tx.corrections.history(invoice)
    assert editable.overlay == {"fields": {"invoice_number": "RIGHT-1"}}
    assert [(h["version"], h["kind"], h["reason"]) for h in history] == [
        (1, "correction", "typo"), (2, "review", None)]
    assert history[0]["changes"] == [{"field": "invoice_number", "previous": "WRONG-1",
                                      "value": "RIGHT-1"}]
    assert history[0]["author"] == {"key_id": customer.key_id, "role": "customer",
                                    "name": "customer of acme"}


def delete(store, account: str, invoice: str):
    with store.db.transaction(write=True) as tx:
        locked = tx.deletion.lock_invoice(account, invoice)
        return tx.deletion.delete_invoice(locked)


def test_deleting_the_only_invoice_of_a_file_deletes_everything_it_used(store):
    customer = store.tenant("acme")["customer"]
    _, invoice = completed(store, customer, "alone")
    done = delete(store, "acme", invoice)
    assert (done.jobs, done.results, done.cache_entries) == (1, 1, 1)
    assert done.storage_key == f"objects/{content_hash('alone')}"
    assert read(store, customer, invoice) is None
    for table in ("jobs", "results", "cache_entries", "blobs"):
        assert store.rows(table) == [], table
    assert [c["outcome"] for c in store.rows("calls")] == ["published"]  # the ledger stays
    with store.db.transaction(write=True) as tx:
        assert tx.deletion.lock_invoice("acme", invoice) is None


def test_a_file_and_work_others_use_stay_with_them(store):
    callers = store.tenant("acme")
    leader, first = upload(store, callers["customer"], "shared", key="k")
    _, joined = arrive(store, new_job(callers["supplier"], "shared"), joinable=False,
                       leader_id=leader, outcome=CacheOutcome.JOINED)
    done = delete(store, "acme", first)
    assert (done.jobs, done.released, done.storage_key) == (0, [leader], None)
    with store.db.transaction(write=False) as tx:  # its key names nothing now
        assert tx.arrival.job_by_idempotency_key("acme", callers["customer"].key_id, "k",
                                                 3600) is None
    job, opened = claim(store, "w")
    assert job.claim.job_id == leader and publish(store, job, opened, "KEPT")
    assert read(store, callers["supplier"], joined)["status"] == "completed"
    done = delete(store, "acme", joined)
    assert (done.jobs, done.results) == (2, 1) and done.storage_key is not None


def test_invoices_past_their_accounts_retention_are_listed_oldest_first(store):
    callers = store.tenant("acme")
    store.tenant("globex")
    _, older = upload(store, callers["customer"], "older")
    _, newer = upload(store, callers["customer"], "newer")
    with store.db.transaction(write=True) as tx:
        assert tx.deletion.expired_invoices(10) == []
        assert tx.deletion.set_retention_days("acme", 0)
        assert not tx.deletion.set_retention_days("nobody", 3)
    with store.db.transaction(write=False) as tx:
        assert tx.deletion.expired_invoices(10) == [("acme", older), ("acme", newer)]
        assert tx.deletion.expired_invoices(1) == [("acme", older)]


def test_an_account_is_deleted_in_batches_and_its_costs_kept_under_a_pseudonym(store):
    callers = store.tenant("acme")
    for i in range(3):
        completed(store, callers["customer"], f"doc-{i}")
    with store.db.transaction(write=True) as tx:
        assert tx.deletion.start_account_deletion("acme")
        assert not tx.deletion.start_account_deletion("nobody")
        assert not tx.deletion.set_retention_days("acme", 5)  # being deleted
    batches = []
    while True:
        with store.db.transaction(write=True) as tx:
            batches.append(tx.deletion.delete_account_batch("acme", 2))
        if not batches[-1]:
            break
    assert len(batches) > 2 and sum(batches) >= 3 * 4  # invoices, jobs, results, blobs
    with store.db.transaction(write=True) as tx:
        assert tx.deletion.finish_account_deletion("acme")
    assert store.rows("accounts") == []
    assert {c["account"] for c in store.rows("calls")} == {pseudonym("acme")}
    for table in ("jobs", "results", "cache_entries", "blobs"):
        assert store.rows(table) == [], table
