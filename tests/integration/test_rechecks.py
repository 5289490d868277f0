"""Corrections re-check the invoice: every check runs again on the corrected values, the review
follows them, and a stale If-Match changes nothing. Through the HTTP app, on every backend."""
from __future__ import annotations

import pytest

from ledgerline.extraction.validation import apply_to_confidence, run_all
from tests.fakes import ControlledExtractor, pdf_bytes
from tests.integration.test_corrections import Env

VALID = {"net_total": "1979.00", "tax_total": "375.89", "gross_total": "2354.89",
         "amount_due": "2354.89", "seller_vat_id": "DE136695976", "buyer_vat_id": "ATU13585627",
         "iban": "DE89370400440532013000", "issue_date": "2026-11-02", "due_date": "2026-12-02"}


class CheckedExtractor(ControlledExtractor):
    """A document whose values pass every check, with the checks the pipeline runs."""

    def __init__(self, **overrides):
        super().__init__()
        self.overrides = overrides

    def extract(self, path, content_hash, context=None):
        doc = super().extract(path, content_hash, context)
        values = {**VALID, **self.overrides}
        for line, (name, value) in enumerate(values.items()):
            doc["fields"][name] = {"value": value, "confidence": 0.95, "raw": value, "page": 1,
                                   "bbox": [50.0, 700.0 - 20 * line, 250.0, 712.0 - 20 * line]}
        plain = {name: entry["value"] for name, entry in doc["fields"].items()}
        doc["validations"] = run_all(plain, line_items=None, totals=None, tax_breakdown=None)
        reasons = apply_to_confidence(doc["validations"], {})
        doc["review"] = {"required": bool(reasons), "reasons": reasons}
        return doc


@pytest.fixture
def env(make_services):
    return Env(make_services(extractor=CheckedExtractor()))


def _check(invoice, rule):
    [found] = [v for v in invoice["extraction"]["validations"] if v["rule"] == rule]
    return found


def _queue(env):
    return [i["id"] for i in env.get("customer", "/v1/accounts/acme/invoices?review=required")
            .json["items"]]


def test_a_corrected_total_is_checked_again_and_sends_the_invoice_to_review(env):
    invoice_id = env.completed("customer", pdf_bytes("totals"))
    read = env.invoice("customer", invoice_id)
    assert read.headers["ETag"] == '"0"'
    assert _check(read.json, "BR-CO-15")["status"] == "pass"
    assert read.json["review"]["state"] == "not_required" and _queue(env) == []

    resp = env.patch("customer", invoice_id, {"fields": {"gross_total": "9999.00"}})
    assert resp.status_code == 200 and resp.headers["ETag"] == '"1"'
    shown = resp.json
    br_co_15 = _check(shown, "BR-CO-15")
    assert br_co_15["status"] == "fail" and "9999.00 != 2354.89" in br_co_15["detail"]
    assert shown["review"]["state"] == "required"
    assert any("BR-CO-15 failed" in r for r in shown["extraction"]["review"]["reasons"])
    assert _check(shown, "BR-CO-16")["status"] == "skipped"  # due no longer equals gross
    assert _queue(env) == [invoice_id]

    # Put right: the check passes again and the invoice leaves the queue.
    fixed = env.patch("customer", invoice_id, {"fields": {"gross_total": "2354.89"}}).json
    assert _check(fixed, "BR-CO-15")["status"] == "pass"
    assert fixed["review"]["state"] == "not_required" and fixed["extraction"]["review"] == {
        "required": False, "reasons": []}
    assert _queue(env) == []


def test_checksums_are_flagged_not_refused_and_types_are_refused(env):
    invoice_id = env.completed("customer", pdf_bytes("ids"))
    resp = env.patch("customer", invoice_id, {"fields": {
        "buyer_vat_id": "DE123", "iban": "DE00370400440532013000"}})
    assert resp.status_code == 200
    assert _check(resp.json, "LL-BUYER-VATID")["status"] == "fail"
    assert _check(resp.json, "LL-IBAN")["status"] == "fail"
    assert resp.json["extraction"]["fields"]["iban"]["value"] == "DE00370400440532013000"
    reasons = resp.json["extraction"]["review"]["reasons"]
    assert any("LL-BUYER-VATID failed" in r for r in reasons)
    assert any("LL-IBAN failed" in r for r in reasons)
    assert resp.json["review"]["state"] == "required"
    refused = env.patch("customer", invoice_id, {"fields": {"iban": "not an iban"}})
    assert refused.status_code == 422 and "iban" in refused.json["detail"]
    refused = env.patch("customer", invoice_id, {"fields": {"due_date": "2026-13-01"}})
    assert refused.status_code == 422 and "due_date" in refused.json["detail"]
    assert env.invoice("customer", invoice_id).json["version"] == 1


def test_a_resolved_invoice_goes_back_to_review_when_a_correction_breaks_a_rule(env):
    invoice_id = env.completed("customer", pdf_bytes("resolved"))
    env.patch("customer", invoice_id, {"fields": {"due_date": "2026-10-01"}})  # before issue
    assert _check(env.invoice("customer", invoice_id).json, "LL-DATES")["status"] == "fail"
    resolved = env.client.post(f"/v1/accounts/acme/invoices/{invoice_id}/review",
                               headers=env.headers("customer"))
    assert resolved.json["review"]["state"] == "resolved" and _queue(env) == []
    # A correction that breaks nothing new keeps the resolution...
    kept = env.patch("customer", invoice_id, {"fields": {"purchase_order": "PO-7"}}).json
    assert kept["review"]["state"] == "resolved"
    # ...one that breaks a rule sends it back, naming the rule.
    back = env.patch("customer", invoice_id, {"fields": {"tax_total": "1.00"}}).json
    assert back["review"]["state"] == "required" and back["review"]["resolved_at"] is None
    assert any("BR-CO-15 failed" in r for r in back["extraction"]["review"]["reasons"])
    assert _queue(env) == [invoice_id]


def test_if_match_guards_against_a_lost_update(env):
    invoice_id = env.completed("customer", pdf_bytes("if-match"))
    first = env.client.patch(f"/v1/accounts/acme/invoices/{invoice_id}",
                             json={"fields": {"purchase_order": "PO-A"}},
                             headers={**env.headers("customer"), "If-Match": '"0"'})
    assert first.status_code == 200 and first.headers["ETag"] == '"1"'
    for stale in ('"0"', 'W/"1"', '"0", "7"'):
        late = env.client.patch(f"/v1/accounts/acme/invoices/{invoice_id}",
                                json={"fields": {"purchase_order": "PO-B"}},
                                headers={**env.headers("customer"), "If-Match": stale})
        assert late.status_code == 412 and late.json["code"] == "precondition_failed"
    shown = env.invoice("customer", invoice_id).json
    assert shown["version"] == 1
    assert shown["extraction"]["fields"]["purchase_order"]["value"] == "PO-A"
    for n, current in enumerate(('"1"', '"5", "2"', "*")):
        ok = env.client.patch(f"/v1/accounts/acme/invoices/{invoice_id}",
                              json={"fields": {"purchase_order": f"PO-{n}"}},
                              headers={**env.headers("customer"), "If-Match": current})
        assert ok.status_code == 200, (current, ok.json)
    # Without If-Match it applies to whatever is current, as before.
    assert env.patch("customer", invoice_id, {"fields": {"purchase_order": "PO-Z"}}).json[
        "version"] == 5
    review = env.client.post(f"/v1/accounts/acme/invoices/{invoice_id}/review",
                             headers={**env.headers("customer"), "If-Match": '"4"'})
    assert review.status_code == 412


def test_the_history_keeps_the_machines_and_each_persons_values(env):
    invoice_id = env.completed("customer", pdf_bytes("history"))
    env.patch("customer", invoice_id, {"fields": {"gross_total": "2000.00"}})
    env.patch("supplier", invoice_id, {"fields": {"gross_total": "2100.00"}})  # not its upload
    env.patch("customer", invoice_id, {"fields": {"gross_total": "2200.00"}})
    items = env.get("customer", f"/v1/accounts/acme/invoices/{invoice_id}/history").json["items"]
    assert [(e["author"]["role"], e["changes"][0]["previous"], e["changes"][0]["value"],
             e["changes"][0]["machine"]) for e in items] == [
        ("customer", "2354.89", "2000.00", "2354.89"),
        ("customer", "2000.00", "2200.00", "2354.89")]


def test_a_correction_that_makes_a_duplicate_names_the_duplicate_check(env):
    first = env.completed("customer", pdf_bytes("dup-first"))
    second = env.completed("supplier", pdf_bytes("dup-second"))
    # Same seller, gross and date as extracted: the second is flagged in the list already.
    [item] = [i for i in env.get("customer", "/v1/accounts/acme/invoices").json["items"]
              if i["id"] == second]
    assert item["possible_duplicate"] is True and item["duplicate_of"] == first
    resp = env.patch("customer", second, {"fields": {"purchase_order": "PO-1"}})
    dup = _check(resp.json, "LL-DUPLICATE")
    assert dup["status"] == "fail" and first in dup["detail"]
    assert resp.json["review"]["state"] == "required"
    assert any("LL-DUPLICATE failed" in r
               for r in resp.json["extraction"]["review"]["reasons"])
    # The older one is no duplicate of an earlier invoice: its check passes.
    older = env.patch("customer", first, {"fields": {"purchase_order": "PO-0"}}).json
    assert _check(older, "LL-DUPLICATE")["status"] == "pass"
    assert older["review"]["state"] == "not_required"
    # Another number, date and gross: no longer the same bill.
    apart = env.patch("customer", second, {"fields": {
        "invoice_number": "OTHER-9", "issue_date": "2026-11-03"}}).json
    assert _check(apart, "LL-DUPLICATE")["status"] == "pass"
    assert apart["possible_duplicate"] is False and apart["duplicate_of"] is None
