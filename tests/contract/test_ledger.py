"""The call ledger: every call recorded before it starts, what a provider may bill written as
it goes, retried writes adding nothing."""
from __future__ import annotations

from decimal import Decimal

from ledgerline.domain.ids import new_id
from ledgerline.domain.jobs import CallOutcome
from ledgerline.domain.providers import Agreement
from ledgerline.ports.extractor import USAGE, Progress
from ledgerline.ports.jobs import Call
from tests.contract.steps import GONE, claim, publish, upload


def calls(store) -> dict[str, dict]:
    return {call["call_id"]: call for call in store.rows("calls")}


def test_a_started_call_is_written_once_and_its_end_costs_nothing_unbilled(store):
    upload(store, store.tenant("acme")["customer"], "ledger")
    job, opened = claim(store, "w1")
    call = opened.of(job)
    with store.db.transaction(write=True) as tx:
        tx.ledger.start_call(call)  # the claim wrote it already: a retry adds nothing
    with store.db.transaction(write=True) as tx:
        tx.ledger.finish_call(call.call_id, CallOutcome.REFUSED)
    [row] = store.rows("calls")
    assert (row["outcome"], Decimal(row["cost"]), row["finished_at"] is not None) == (
        "refused", 0, True)


def test_progress_is_recorded_and_a_reused_token_is_not_billed_twice(store):
    upload(store, store.tenant("acme")["customer"], "tokens")
    first, first_call = claim(store, "w1", lease=GONE)
    progress = Progress(provider="textract", model="textract-analyze-expense",
                        client_token="tok-1", provider_job_id="J1", request_id="r" * 300,
                        requests=1, pages=3, cost=Decimal("0.03"), cost_basis=USAGE)
    with store.db.transaction(write=True) as tx:
        tx.ledger.record_progress(first_call.of(first), progress)
    second, second_call = claim(store, "w2")  # the same job again: the same token reaches
    assert publish(store, second, second_call, progress=progress)  # the provider's same job
    rows = calls(store)
    one, two = rows[first_call.call_id], rows[second_call.call_id]
    assert (one["client_token"], one["pages"], Decimal(one["cost"])) == ("tok-1", 3,
                                                                         Decimal("0.03"))
    assert len(one["provider_request_id"]) == 200 and one["cost_basis"] == USAGE
    assert (two["outcome"], two["client_token"], Decimal(two["cost"])) == ("published", "tok-1",
                                                                           0)


def test_a_shadow_comparison_is_one_row_per_field_written_once(store):
    upload(store, store.tenant("acme")["customer"], "shadow")
    job, _ = claim(store, "w1")
    shadow = Call(new_id("call"), "shadow_extract_invoice", job, "key", 0, "openai", "gpt-test")
    verdicts = {"invoice_number": Agreement.AGREE, "gross_total": Agreement.DIFFER}
    for _ in range(2):
        with store.db.transaction(write=True) as tx:
            tx.ledger.start_call(shadow)
            tx.ledger.record_agreement(shadow, serving_provider="rules",
                                       candidate_provider="openai", candidate_model="m" * 200,
                                       verdicts=verdicts)
    rows = sorted((r["field"], r["agreement"], len(r["candidate_model"]))
                  for r in store.rows("agreements"))
    assert rows == [("gross_total", "differ", 120), ("invoice_number", "agree", 120)]
    assert [c["operation"] for c in store.rows("calls")] == ["extract_invoice",
                                                              "shadow_extract_invoice"]
