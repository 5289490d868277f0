"""The duplicate flag every listed invoice carries, the list's `duplicates` filter, exports
read in a snapshot, and what a correction's checks read: the duplicate before it, the review
its own values ask for, a review reopened."""
from __future__ import annotations

from ledgerline.domain import corrections as rules
from ledgerline.ports.invoices import Entry, ListFilter
from tests.contract.steps import arrive, completed, new_job, read, upload

OTHER = {"seller_name": "Other Seller AG", "gross_total": "5.00"}


def listed(store, caller, **flt) -> dict[str, str | None]:
    """Each listed invoice's id -> its duplicate_of (and the flag agrees with it)."""
    with store.db.transaction(write=False) as tx:
        found = tx.invoices.page(caller, caller.account, ListFilter(**flt))
    assert all(i["possible_duplicate"] == (i["duplicate_of"] is not None) for i in found)
    return {i["id"]: i["duplicate_of"] for i in found}


def test_an_invoice_is_flagged_by_the_oldest_copy_of_its_file_or_else_of_its_bill(store):
    callers = store.tenant("acme")
    customer = callers["customer"]
    _, bill = completed(store, customer, "bill", "N-1")
    _, same_number = completed(store, customer, "same-number", "n - 1",
                               values={"gross_total": "7.00", "issue_date": "2026-10-01"})
    _, same_day = completed(store, customer, "same-day", "N-2",
                            values={"gross_total": "119.0"})  # the same amount
    _, other = completed(store, customer, "other", "N-1", values=OTHER)
    _, copy = arrive(store, new_job(customer, "bill"), joinable=False)
    assert listed(store, customer) == {
        bill: copy,                 # a copy of its file comes first, even a later one
        same_number: bill,          # the same seller and number (as keys: case, spaces)
        same_day: bill,             # the same seller, issue date and gross total
        other: None,                # another seller
        copy: bill}
    assert read(store, customer, same_day)["duplicate_of"] == bill
    assert read(store, customer, other)["possible_duplicate"] is False
    assert listed(store, customer, duplicates="only").keys() == {bill, same_number, same_day,
                                                                  copy}
    assert list(listed(store, customer, duplicates="exclude")) == [other]
    assert list(listed(store, customer, duplicates="only", limit=2)) == [copy, same_day]


def test_a_supplier_sees_duplicates_among_its_own_uploads_only(store):
    callers = store.tenant("acme")
    _, theirs = completed(store, callers["customer"], "theirs", "S-1")
    _, mine = completed(store, callers["supplier"], "mine", "S-1")
    _, again = completed(store, callers["supplier"], "mine-again", "S-1")
    assert listed(store, callers["supplier"]) == {mine: again, again: mine}
    assert listed(store, callers["customer"])[theirs] == mine


def test_a_corrected_invoice_is_judged_by_its_own_values(store):
    customer = store.tenant("acme")["customer"]
    _, first = completed(store, customer, "first", "C-1", values=OTHER)
    _, second = completed(store, customer, "second", "C-2")
    assert listed(store, customer) == {first: None, second: None}
    correct(store, customer, second, {"seller_name": "Other Seller AG", "invoice_number": "C-1"})
    assert listed(store, customer) == {first: second, second: first}


def correct(store, caller, invoice_id: str, fields: dict, *, review_required: bool = False,
            reopens_review: bool = False) -> None:
    with store.db.transaction(write=True) as tx:
        editable = tx.invoices.for_update(caller, caller.account, invoice_id)
        applied = rules.changes(editable.shown, fields, None)
        overlay = rules.merged(editable.overlay, applied)
        summary = rules.summary(rules.corrected_document(editable.model, overlay))
        assert tx.corrections.record(invoice_id, caller.account, editable.version + 1, caller,
                                     Entry("correction", applied, None), overlay=overlay,
                                     summary={**summary, "review_required": review_required},
                                     reopens_review=reopens_review)


def test_the_duplicate_a_correction_would_make_is_one_uploaded_before_it(store):
    callers = store.tenant("acme")
    customer = callers["customer"]
    _, older = completed(store, customer, "older", "D-1", values=OTHER)
    _, corrected = completed(store, customer, "corrected", "D-2")
    _, newer = completed(store, customer, "newer", "D-1", values=OTHER)
    wanted = rules.summary(rules.corrected_document(
        read(store, customer, corrected)["extraction"],
        {"fields": {"seller_name": "Other Seller AG", "invoice_number": "d-1"}}))
    with store.db.transaction(write=False) as tx:
        editable = tx.invoices.for_update(customer, "acme", corrected)
        assert (editable.id, editable.model["fields"]["invoice_number"]["value"]) == (
            corrected, "D-2")
        assert tx.invoices.earlier_duplicate(customer, "acme", editable, wanted) == {
            "id": older, "matched_on": ["seller_name", "invoice_number"]}
        first = tx.invoices.for_update(customer, "acme", older)
        assert tx.invoices.earlier_duplicate(customer, "acme", first, wanted) is None
        assert tx.invoices.earlier_duplicate(callers["supplier"], "acme", editable,
                                             wanted) is None  # sees none of them
    assert newer


def test_a_correction_sets_the_review_its_values_ask_for_and_may_reopen_one(store):
    customer = store.tenant("acme")["customer"]
    _, asks = completed(store, customer, "asks", "R-1", review=True)
    _, fine = completed(store, customer, "fine", "R-2", values=OTHER)
    correct(store, customer, asks, {"due_date": "2026-12-01"}, review_required=False)
    assert read(store, customer, asks)["review"]["state"] == "not_required"
    assert listed(store, customer, review="required") == {}
    with store.db.transaction(write=False) as tx:
        assert tx.invoices.review_queue() == []
    correct(store, customer, fine, {"due_date": "2026-12-01"}, review_required=True)
    assert list(listed(store, customer, review="required")) == [fine]
    with store.db.transaction(write=True) as tx:
        version = tx.invoices.for_update(customer, "acme", fine).version
        assert tx.corrections.record(fine, "acme", version + 1, customer,
                                     Entry("review", [{"field": "review"}], None),
                                     resolves_review=True)
    assert read(store, customer, fine)["review"]["state"] == "resolved"
    correct(store, customer, fine, {"due_date": "2026-12-02"}, review_required=True,
            reopens_review=True)
    shown = read(store, customer, fine)["review"]
    assert (shown["state"], shown["resolved_at"], shown["resolved_by"]) == (
        "required", None, None)
    with store.db.transaction(write=False) as tx:
        assert tx.invoices.review_queue() == [("acme", 1, 0)]


def test_an_export_lists_every_match_with_its_extraction_as_of_its_start(store):
    callers = store.tenant("acme")
    customer = callers["customer"]
    ids = [completed(store, customer, f"doc-{i}", f"E-{i}", values={
        "seller_name": f"Seller {i}"})[1] for i in range(3)]
    _, waiting = upload(store, customer, "waiting")
    with store.db.snapshot() as tx:
        exported = list(tx.invoices.export(customer, "acme", ListFilter(limit=1)))
        assert [i["id"] for i in exported] == [waiting, *reversed(ids)]  # limit aside
        assert exported[1]["extraction"]["fields"]["invoice_number"]["value"] == "E-2"
        assert exported[0]["extraction"] is None
        assert "summary" not in exported[1] and exported[1]["possible_duplicate"] is False
        _, later = upload(store, customer, "later")  # another transaction's, meanwhile
        again = [i["id"] for i in tx.invoices.export(customer, "acme", ListFilter())]
        assert again == [waiting, *reversed(ids)]
    with store.db.snapshot() as tx:
        assert [i["id"] for i in tx.invoices.export(
            customer, "acme", ListFilter(status="completed", seller="seller 1"))] == [ids[1]]
        assert list(tx.invoices.export(callers["supplier"], "acme", ListFilter())) == []
        assert list(tx.invoices.export(customer, "globex", ListFilter())) == []
        assert next(tx.invoices.export(customer, "acme", ListFilter()))["id"] == later
