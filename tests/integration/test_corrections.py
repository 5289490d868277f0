"""Corrections, the review queue, the history and the CSV export, through the HTTP app, on
every backend."""
from __future__ import annotations

import csv
import io
import json
import threading
from pathlib import Path

import jsonschema
import pytest
from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import results
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant, operator_key
from tests.fakes import ControlledExtractor, pdf_bytes

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas"
                     / "invoice-v2.schema.json").read_text())
REASONS = ["BR-CO-15 failed: net 100.00 + tax 19.00 is not gross 120.00",
           "iban: not an IBAN; dropped"]


class ReviewingExtractor(ControlledExtractor):
    """Asks for review on every document, with two reasons, and reads two line items."""

    def extract(self, path, content_hash, context=None):
        doc = super().extract(path, content_hash)
        doc["review"] = {"required": True, "reasons": list(REASONS)}
        doc["line_items"] = [{"description": "Widget", "quantity": "2", "unit_price": "50.00",
                              "net_amount": "100.00", "vat_rate": "19"},
                             {"description": "Shipping", "quantity": "1", "unit_price": "0.00",
                              "net_amount": "0.00", "vat_rate": "19"}]
        return doc


class CreditNoteExtractor(ControlledExtractor):
    """Reads every document as a credit note of an earlier invoice (invoice-v2)."""

    def extract(self, path, content_hash, context=None):
        doc = super().extract(path, content_hash, context)
        field = dict(doc["fields"]["gross_total"])
        doc["fields"].update(
            document_type={**field, "value": "credit_note", "raw": "Gutschrift"},
            preceding_invoice_number={**field, "value": "RE-2026-001", "raw": "RE-2026-001"},
            gross_total={**field, "value": "-119.00", "raw": "119,00"})
        return doc


class Env:
    def __init__(self, services):
        self.services = services
        self.acme = make_tenant(services, "acme")
        self.client = create_app(services).test_client()

    def headers(self, role):
        return {"Authorization": f"Bearer {self.acme.keys[role]}"}

    def upload(self, role, body, **headers):
        return self.client.post("/v1/accounts/acme/invoices", data=body, headers={
            **self.headers(role), "Content-Type": "application/pdf", **headers}).json

    def completed(self, role, body):
        invoice = self.upload(role, body)
        self.work()
        return invoice["id"]

    def work(self):
        while Worker(self.services, name="test-worker").run_once():
            pass

    def patch(self, role, invoice_id, body):
        return self.client.patch(f"/v1/accounts/acme/invoices/{invoice_id}", json=body,
                                 headers=self.headers(role))

    def get(self, role, path, **kw):
        return self.client.get(path, headers=self.headers(role), **kw)

    def invoice(self, role, invoice_id):
        return self.get(role, f"/v1/accounts/acme/invoices/{invoice_id}")


@pytest.fixture
def env(make_services):
    return Env(make_services(extractor=ControlledExtractor()))


@pytest.fixture
def reviewing(make_services):
    return Env(make_services(extractor=ReviewingExtractor()))


def test_a_correction_is_a_new_version_with_its_author_and_previous_values(env):
    invoice_id = env.completed("customer", pdf_bytes("fix-me"))
    resp = env.patch("customer", invoice_id, {
        "fields": {"invoice_number": "RE-2026-17", "due_date": "2026-12-02", "currency": None},
        "reason": "  typed from the paper  copy "})
    assert resp.status_code == 200, resp.json
    shown = resp.json
    assert shown["version"] == 1
    fields = shown["extraction"]["fields"]
    assert fields["invoice_number"] == {"value": "RE-2026-17", "confidence": 1.0, "raw": None,
                                        "page": None, "bbox": None, "source": "correction"}
    assert fields["currency"]["value"] is None and fields["currency"]["source"] == "correction"
    assert "source" not in fields["seller_name"]  # untouched: still the model's
    jsonschema.validate(shown["extraction"], SCHEMA)
    history = env.get("customer", f"/v1/accounts/acme/invoices/{invoice_id}/history").json
    [entry] = history["items"]
    assert entry["version"] == 1 and entry["kind"] == "correction"
    assert entry["author"]["role"] == "customer" and entry["author"]["name"] == "customer of acme"
    assert entry["reason"] == "typed from the paper copy"
    assert entry["changes"] == [
        {"field": "invoice_number", "previous": "CALL-1", "value": "RE-2026-17",
         "machine": "CALL-1"},
        {"field": "due_date", "previous": None, "value": "2026-12-02", "machine": None},
        {"field": "currency", "previous": "EUR", "value": None, "machine": "EUR"}]
    # The same values again change nothing: no new version.
    again = env.patch("customer", invoice_id, {"fields": {"invoice_number": "RE-2026-17"}})
    assert again.status_code == 200 and again.json["version"] == 1
    later = env.patch("supplier2", invoice_id, {"fields": {"invoice_number": "X"}})
    assert later.status_code == 404  # another supplier's upload does not exist for it


def test_the_cached_model_result_never_changes_and_other_callers_see_the_model(env):
    body = pdf_bytes("shared-file")
    invoice_id = env.completed("customer", body)
    with transaction(env.services.engine, write=False) as conn:
        stored_before = conn.execute(select(results.c.document, results.c.seller_name)).all()
    env.patch("customer", invoice_id, {"fields": {"invoice_number": "CORRECTED-1",
                                                  "seller_name": "Someone Else AG"}})
    hit = env.client.post("/v1/accounts/acme/invoices", data=body, headers={
        **env.headers("supplier"), "Content-Type": "application/pdf"})
    assert hit.status_code == 201 and hit.headers["Ledgerline-Cache"] == "hit"
    model = hit.json["extraction"]["fields"]
    assert model["invoice_number"]["value"] == "CALL-1" and "source" not in model["invoice_number"]
    assert model["seller_name"]["value"] == "Test Seller GmbH"
    assert hit.json["version"] == 0
    with transaction(env.services.engine, write=False) as conn:
        assert conn.execute(select(results.c.document, results.c.seller_name)).all() == stored_before
    corrected = env.invoice("customer", invoice_id).json["extraction"]["fields"]
    assert corrected["invoice_number"]["value"] == "CORRECTED-1"
    assert len(env.services.extractor.calls) == 1


@pytest.mark.parametrize("fields, names", [
    ({"issue_date": "2026-02-30"}, "issue_date"),
    ({"gross_total": "1,234.00"}, "gross_total"),
    ({"currency": "EURO"}, "currency"),
    ({"iban": "DE00 nope"}, "iban"),
    ({"invoice_number": "x" * 201}, "invoice_number"),
    ({"invoice_number": 17}, "invoice_number"),
    ({"not_a_field": "1"}, "not_a_field"),
])
def test_values_outside_invoice_v2_are_refused_and_change_nothing(env, fields, names):
    invoice_id = env.completed("customer", pdf_bytes("strict"))
    resp = env.patch("customer", invoice_id, {"fields": fields})
    assert resp.status_code == 422 and resp.json["code"] == "invalid_correction"
    assert names in resp.json["detail"]
    assert env.invoice("customer", invoice_id).json["version"] == 0


def test_malformed_bodies_and_unfinished_invoices_are_refused(env):
    invoice_id = env.upload("customer", pdf_bytes("pending"))["id"]
    path = f"/v1/accounts/acme/invoices/{invoice_id}"
    assert env.patch("customer", invoice_id, {"fields": {"invoice_number": "A"}}).json["code"] \
        == "invoice_not_completed"
    env.work()
    assert env.patch("customer", invoice_id, {}).status_code == 422
    assert env.patch("customer", invoice_id, {"fields": {}, "extra": 1}).status_code == 422
    assert env.patch("customer", invoice_id, {"line_items": [{"quantity": "two"}]}).status_code == 422
    not_json = env.client.patch(path, data="fields=1", headers={
        **env.headers("customer"), "Content-Type": "application/x-www-form-urlencoded"})
    assert not_json.status_code == 415
    broken = env.client.patch(path, data="{", headers={**env.headers("customer"),
                                                       "Content-Type": "application/json"})
    assert broken.status_code == 400
    assert env.patch("dashboard", invoice_id, {"fields": {"invoice_number": "A"}}).status_code == 403


def test_a_supplier_corrects_its_own_uploads_only(env):
    own = env.completed("supplier", pdf_bytes("supplier-own"))
    customers = env.completed("customer", pdf_bytes("customer-own"))
    assert env.patch("supplier", own, {"fields": {"purchase_order": "PO-1"}}).status_code == 200
    assert env.patch("supplier", customers, {"fields": {"purchase_order": "PO-1"}}).status_code == 404
    # The customer sees the supplier's correction, and may correct on top of it.
    assert env.patch("customer", own, {"fields": {"purchase_order": "PO-2"}}).json["version"] == 2


def test_filters_csv_and_duplicates_use_the_corrected_values(env):
    first = env.completed("customer", pdf_bytes("dup-a"))
    second = env.completed("customer", pdf_bytes("dup-b"))
    # Same seller, gross and date as read: the same bill, until a person says otherwise.
    assert env.invoice("customer", second).json["possible_duplicates"] == [
        {"id": first, "matched_on": ["seller_name", "gross_total", "issue_date"]}]
    env.patch("customer", second, {"fields": {"issue_date": "2026-10-01"}})
    assert env.invoice("customer", second).json["possible_duplicates"] == []
    env.patch("customer", second, {"fields": {"invoice_number": "call-1 "}})
    flagged = env.invoice("customer", second).json["possible_duplicates"]
    assert flagged == [{"id": first, "matched_on": ["seller_name", "invoice_number"]}]
    env.patch("customer", first, {"fields": {"seller_name": "Ärger & Söhne KG"}})
    assert env.invoice("customer", second).json["possible_duplicates"] == []
    listed = env.get("customer", "/v1/accounts/acme/invoices",
                     query_string={"seller": "ÄRGER & SÖHNE"}).json["items"]
    assert [i["id"] for i in listed] == [first]
    assert listed[0]["summary"]["seller_name"] == "Ärger & Söhne KG"
    october = env.get("customer", "/v1/accounts/acme/invoices",
                      query_string={"issued_to": "2026-10-31"}).json["items"]
    assert [i["id"] for i in october] == [second]
    table = list(csv.DictReader(io.StringIO(env.get(
        "customer", "/v1/accounts/acme/invoices?format=csv").data.decode())))
    by_id = {row["id"]: row for row in table}
    assert by_id[second]["invoice_number"] == "call-1" and by_id[second]["version"] == "2"
    assert by_id[first]["seller_name"] == "Ärger & Söhne KG"
    assert by_id[first]["uploaded_by"] == "customer of acme"  # the key's name
    assert by_id[first]["gross_total"] == "119.00" and by_id[first]["due_date"] == ""


def test_a_credit_note_says_so_in_the_document_and_the_csv_and_can_be_corrected(make_services):
    env = Env(make_services(extractor=CreditNoteExtractor()))
    invoice_id = env.completed("customer", pdf_bytes("credit-note"))
    fields = env.invoice("customer", invoice_id).json["extraction"]["fields"]
    assert fields["document_type"]["value"] == "credit_note"
    assert fields["gross_total"]["value"] == "-119.00"  # owed to the recipient
    [row] = csv.DictReader(io.StringIO(env.get(
        "customer", "/v1/accounts/acme/invoices?format=csv").data.decode()))
    assert (row["document_type"], row["preceding_invoice_number"], row["gross_total"]) == (
        "credit_note", "RE-2026-001", "-119.00")
    bad = env.patch("customer", invoice_id, {"fields": {"document_type": "refund"}})
    assert bad.status_code == 422 and "document_type" in bad.json["detail"]
    resp = env.patch("customer", invoice_id, {"fields": {"document_type": "invoice"}})
    assert resp.status_code == 200
    jsonschema.validate(resp.json["extraction"], SCHEMA)
    assert resp.json["extraction"]["fields"]["document_type"]["source"] == "correction"


def test_line_items_are_replaced_and_exported_one_row_each(reviewing):
    env = reviewing
    invoice_id = env.completed("customer", pdf_bytes("lines"))
    items = [{"description": "Widget, blue", "quantity": "3", "unit_price": "50.00",
              "net_amount": "150.00", "vat_rate": "19"}]
    resp = env.patch("customer", invoice_id, {"line_items": items,
                                              "fields": {"net_total": "150.00"}})
    assert resp.json["extraction"]["line_items"] == items
    change = env.get("customer", f"/v1/accounts/acme/invoices/{invoice_id}/history").json[
        "items"][0]["changes"]
    assert change[1]["field"] == "line_items" and len(change[1]["previous"]) == 2
    other = env.completed("customer", pdf_bytes("lines-2"))
    rows = list(csv.DictReader(io.StringIO(env.get(
        "customer", "/v1/accounts/acme/invoices?format=csv&rows=line_items").data.decode())))
    assert [(r["id"], r["line_number"], r["description"]) for r in rows] == [
        (other, "1", "Widget"), (other, "2", "Shipping"), (invoice_id, "1", "Widget, blue")]
    assert rows[0]["review"] == "required" and rows[0]["review_reasons"] == " | ".join(REASONS)
    assert env.get("customer", "/v1/accounts/acme/invoices?rows=each").status_code == 400


def test_the_review_queue_and_its_resolution(reviewing):
    env = reviewing
    waiting = env.completed("customer", pdf_bytes("review-1"))
    resolved_one = env.completed("supplier", pdf_bytes("review-2"))
    queue = env.get("customer", "/v1/accounts/acme/invoices?review=required").json["items"]
    assert {i["id"] for i in queue} == {waiting, resolved_one}
    assert queue[0]["review"]["state"] == "required"
    resp = env.client.post(f"/v1/accounts/acme/invoices/{resolved_one}/review",
                           json={"reasons": [REASONS[0]], "note": "checked by phone"},
                           headers=env.headers("supplier"))
    assert resp.status_code == 200, resp.json
    review = resp.json["review"]
    assert review["state"] == "resolved" and review["resolved_at"]
    assert review["resolved_by"] == env.acme.caller(env.services, "supplier").key_id
    again = env.client.post(f"/v1/accounts/acme/invoices/{resolved_one}/review",
                            headers=env.headers("customer"))
    assert again.status_code == 200 and again.json["version"] == 1  # resolved once
    assert [i["id"] for i in env.get("customer", "/v1/accounts/acme/invoices?review=required")
            .json["items"]] == [waiting]
    assert [i["id"] for i in env.get("customer", "/v1/accounts/acme/invoices?review=resolved")
            .json["items"]] == [resolved_one]
    [entry] = env.get("customer", f"/v1/accounts/acme/invoices/{resolved_one}/history").json["items"]
    assert entry["kind"] == "review" and entry["reason"] == "checked by phone"
    assert entry["changes"][0]["reasons"] == [REASONS[0]]
    unknown = env.client.post(f"/v1/accounts/acme/invoices/{waiting}/review",
                              json={"reasons": ["made up"]}, headers=env.headers("customer"))
    assert unknown.status_code == 422
    assert env.get("customer", "/v1/accounts/acme/invoices?review=maybe").status_code == 400


def test_an_invoice_without_review_has_none_to_resolve(env):
    invoice_id = env.completed("customer", pdf_bytes("fine"))
    assert env.invoice("customer", invoice_id).json["review"]["state"] == "not_required"
    resp = env.client.post(f"/v1/accounts/acme/invoices/{invoice_id}/review",
                           headers=env.headers("customer"))
    assert resp.status_code == 409 and resp.json["code"] == "review_not_required"


def test_concurrent_corrections_each_get_their_own_version(env):
    invoice_id = env.completed("customer", pdf_bytes("busy"))
    barrier = threading.Barrier(6)
    answers = []
    # Built here: building apps in threads at once trips a CPython 3.11 bug in ast.
    clients = [create_app(env.services).test_client() for _ in range(6)]

    def correct(n):
        client = clients[n]
        barrier.wait()
        answers.append(client.patch(f"/v1/accounts/acme/invoices/{invoice_id}",
                                    json={"fields": {"purchase_order": f"PO-{n}"}},
                                    headers=env.headers("customer")).status_code)

    threads = [threading.Thread(target=correct, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [200] * 6
    history = env.get("customer", f"/v1/accounts/acme/invoices/{invoice_id}/history").json["items"]
    assert [e["version"] for e in history] == [1, 2, 3, 4, 5, 6]
    # Each change names what the invoice showed just before it: no lost update.
    chain = [e["changes"][0] for e in history]
    assert chain[0]["previous"] is None
    assert all(chain[i]["previous"] == chain[i - 1]["value"] for i in range(1, 6))
    shown = env.invoice("customer", invoice_id).json["extraction"]["fields"]["purchase_order"]
    assert shown["value"] == chain[-1]["value"]



def test_the_dashboard_shows_the_review_queue_per_account(reviewing):
    env = reviewing
    globex = make_tenant(env.services, "globex")
    first = env.completed("customer", pdf_bytes("queue-1"))
    env.completed("customer", pdf_bytes("queue-2"))
    env.client.post("/v1/accounts/globex/invoices", data=pdf_bytes("queue-3"), headers={
        "Authorization": f"Bearer {globex.keys['customer']}", "Content-Type": "application/pdf"})
    env.work()
    env.client.post(f"/v1/accounts/acme/invoices/{first}/review", headers=env.headers("customer"))
    page = env.client.get("/dashboard", headers={
        "Authorization": f"Bearer {operator_key(env.services)}"})
    assert page.status_code == 200
    html = page.data.decode()
    table = html[html.index('<table id="review-queue">'):]
    table = table[:table.index("</table>")]
    rows = [row.split("</td>")[:2] for row in table.split("<tr><td>")[1:]]
    assert [(a, n.rsplit(">", 1)[-1]) for a, n in rows] == [("acme", "1"), ("globex", "1")]


def test_duplicates_are_found_among_all_of_a_sellers_invoices_folded_like_the_rule(env):
    ids = [env.upload("customer", pdf_bytes(f"same-seller-{n}"))["id"] for n in range(52)]
    env.work()
    # Same seller, gross and issue date: every earlier one, not only the oldest 50.
    flagged = env.invoice("customer", ids[-1]).json["possible_duplicates"]
    assert [d["id"] for d in flagged] == ids[:-1]
    # Folding beyond ASCII (which SQLite's lower() cannot do): "ß" is "ss", "Ü" is "ü".
    env.patch("customer", ids[0], {"fields": {"seller_name": "Müller Straße GmbH",
                                              "invoice_number": "RE-1"}})
    env.patch("customer", ids[1], {"fields": {"seller_name": "MÜLLER  STRASSE GMBH",
                                              "invoice_number": "re-1",
                                              "issue_date": "2026-01-05"}})
    assert env.invoice("customer", ids[1]).json["possible_duplicates"] == [
        {"id": ids[0], "matched_on": ["seller_name", "invoice_number"]}]
    listed = env.get("customer", "/v1/accounts/acme/invoices",
                     query_string={"seller": "müller strasse"}).json["items"]
    assert {i["id"] for i in listed} == {ids[0], ids[1]}
