"""The upload path and the reads, through the HTTP app, on every backend."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import model_calls
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes


@pytest.fixture
def env(make_services):
    extractor = ControlledExtractor()
    services = make_services(extractor=extractor)
    acme = make_tenant(services, "acme")
    globex = make_tenant(services, "globex")
    return Env(services, extractor, acme, globex)


class Env:
    def __init__(self, services, extractor, acme, globex):
        self.services, self.extractor, self.acme, self.globex = services, extractor, acme, globex
        self.client = create_app(services).test_client()

    def upload(self, key, body, account="acme", **headers):
        return self.client.post(f"/v1/accounts/{account}/invoices", data=body,
                                headers={"Authorization": f"Bearer {key}",
                                         "Content-Type": "application/pdf", **headers})

    def get(self, key, path):
        return self.client.get(path, headers={"Authorization": f"Bearer {key}"})

    def work(self):
        while Worker(self.services, name="test-worker").run_once():
            pass

    def ledger_count(self):
        with transaction(self.services.engine, write=False) as conn:
            return conn.execute(select(func.count()).select_from(model_calls)).scalar()


def test_same_file_from_two_callers_makes_one_model_call(env):
    body = pdf_bytes("a")
    first = env.upload(env.acme.keys["supplier"], body)
    assert first.status_code == 202 and first.headers["Ledgerline-Cache"] == "miss"
    assert first.headers["Location"] == f"/v1/accounts/acme/invoices/{first.json['id']}"
    env.work()
    second = env.upload(env.acme.keys["customer"], body)
    assert second.status_code == 201 and second.headers["Ledgerline-Cache"] == "hit"
    assert second.json["status"] == "completed"
    assert second.json["id"] != first.json["id"]
    assert second.json["extraction"]["fields"]["invoice_number"]["value"] == "CALL-1"
    assert len(env.extractor.calls) == 1 and env.ledger_count() == 1


def test_uploads_wait_for_the_result_when_asked(env, make_services):
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=Worker(env.services).run, args=(stop,))
    thread.start()
    try:
        resp = env.upload(env.acme.keys["customer"], pdf_bytes("w"), Prefer="wait=10")
    finally:
        stop.set()
        thread.join()
    assert resp.status_code == 201
    assert resp.json["status"] == "completed" and resp.headers["Preference-Applied"] == "wait=10"


def test_replay_returns_the_same_invoice_and_never_a_second_job(env):
    key = env.acme.keys["customer"]
    first = env.upload(key, pdf_bytes("r"), **{"Idempotency-Key": '"order-1"'})
    again = env.upload(key, pdf_bytes("r"), **{"Idempotency-Key": '"order-1"'})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["id"] == first.json["id"]
    env.work()
    assert len(env.extractor.calls) == 1


def test_same_key_with_other_bytes_is_refused(env):
    key = env.acme.keys["customer"]
    env.upload(key, pdf_bytes("one"), **{"Idempotency-Key": "k-1"})
    resp = env.upload(key, pdf_bytes("two"), **{"Idempotency-Key": "k-1"})
    assert resp.status_code == 422
    assert resp.mimetype == "application/problem+json"
    assert resp.json["code"] == "idempotency_key_reused"


def test_same_key_with_other_options_is_refused(env):
    key = env.acme.keys["customer"]
    env.upload(key, pdf_bytes("one"), **{"Idempotency-Key": "k-2"})
    resp = env.upload(key, pdf_bytes("one"), **{"Idempotency-Key": "k-2", "Cache-Control": "no-cache"})
    assert resp.status_code == 422


def test_idempotency_keys_are_scoped_to_the_caller(env):
    body = pdf_bytes("scoped")
    a = env.upload(env.acme.keys["customer"], body, **{"Idempotency-Key": "same"})
    b = env.upload(env.acme.keys["supplier"], pdf_bytes("other"), **{"Idempotency-Key": "same"})
    assert a.status_code == 202 and b.status_code == 202 and a.json["id"] != b.json["id"]


def test_fresh_processing_runs_again_and_becomes_current(env):
    key = env.acme.keys["customer"]
    body = pdf_bytes("fresh")
    env.upload(key, body)
    env.work()
    fresh = env.upload(key, body, **{"Cache-Control": "no-cache"})
    assert fresh.headers["Ledgerline-Cache"] == "bypass" and fresh.status_code == 202
    env.work()
    assert len(env.extractor.calls) == 2 and env.ledger_count() == 2
    refreshed = env.get(key, fresh.headers["Location"]).json
    assert refreshed["extraction"]["fields"]["invoice_number"]["value"] == "CALL-2"
    later = env.upload(env.acme.keys["supplier"], body)
    assert later.headers["Ledgerline-Cache"] == "hit"
    assert later.json["extraction"]["fields"]["invoice_number"]["value"] == "CALL-2"


def test_supplier_sees_only_own_uploads_even_after_a_cache_hit(env):
    body = pdf_bytes("shared")
    by_customer = env.upload(env.acme.keys["customer"], body).json
    env.work()
    by_supplier = env.upload(env.acme.keys["supplier"], body).json
    supplier = env.acme.keys["supplier"]
    assert env.get(supplier, f"/v1/accounts/acme/invoices/{by_customer['id']}").status_code == 404
    assert env.get(supplier, f"/v1/accounts/acme/invoices/{by_customer['id']}/file").status_code == 404
    assert env.get(supplier, f"/v1/accounts/acme/invoices/{by_supplier['id']}").status_code == 200
    listed = env.get(supplier, "/v1/accounts/acme/invoices").json["items"]
    assert [i["id"] for i in listed] == [by_supplier["id"]]
    other = env.acme.keys["supplier2"]
    assert env.get(other, f"/v1/accounts/acme/invoices/{by_supplier['id']}").status_code == 404
    assert env.get(other, "/v1/accounts/acme/invoices").json["items"] == []


@pytest.mark.parametrize("role", ["customer", "dashboard"])
def test_customers_and_dashboards_read_the_whole_account(env, role):
    ids = {env.upload(env.acme.keys[r], pdf_bytes(r)).json["id"] for r in ("customer", "supplier")}
    env.work()
    listed = env.get(env.acme.keys[role], "/v1/accounts/acme/invoices").json["items"]
    assert {i["id"] for i in listed} == ids
    for invoice_id in ids:
        resp = env.get(env.acme.keys[role], f"/v1/accounts/acme/invoices/{invoice_id}/file")
        assert resp.status_code == 200 and resp.data.startswith(b"%PDF-")


def test_another_accounts_key_gets_404_everywhere(env):
    invoice = env.upload(env.acme.keys["customer"], pdf_bytes("private")).json
    for role in ("customer", "supplier", "dashboard"):
        intruder = env.globex.keys[role]
        for path in (f"/v1/accounts/acme/invoices/{invoice['id']}",
                     f"/v1/accounts/acme/invoices/{invoice['id']}/file",
                     "/v1/accounts/acme/invoices", "/v1/accounts/acme/invoices?format=csv"):
            resp = env.get(intruder, path)
            assert resp.status_code == 404, (role, path)
            assert "acme" not in resp.json.get("detail", "") or "no account" in resp.json["detail"]
        assert env.upload(intruder, pdf_bytes("x")).status_code == 404
    # ... and the identical file in another account shares nothing
    same = env.upload(env.globex.keys["customer"], pdf_bytes("private"), account="globex")
    assert same.headers["Ledgerline-Cache"] == "miss"


def test_dashboards_may_not_upload(env):
    resp = env.upload(env.acme.keys["dashboard"], pdf_bytes("d"))
    assert resp.status_code == 403 and resp.json["code"] == "forbidden"


@pytest.mark.parametrize("headers, status, code", [
    ({}, 401, "unauthenticated"),
    ({"Authorization": "Bearer llk_not-a-key"}, 401, "unauthenticated"),
    ({"Authorization": "Basic abc"}, 401, "unauthenticated"),
])
def test_missing_or_bad_keys_are_401(env, headers, status, code):
    resp = env.client.post("/v1/accounts/acme/invoices", data=pdf_bytes("a"), headers=headers)
    assert resp.status_code == status and resp.json["code"] == code


def test_bad_bodies_are_refused_and_nothing_is_recorded(env):
    key = env.acme.keys["customer"]
    assert env.upload(key, b"").status_code == 400
    assert env.upload(key, b"GIF89a not a pdf").status_code == 415
    env.services.settings = env.services.settings.__class__(
        **{**env.services.settings.__dict__, "max_upload_bytes": 5000})
    assert env.upload(key, pdf_bytes("big", 6000)).status_code == 413
    assert env.get(key, "/v1/accounts/acme/invoices").json["items"] == []


def test_multipart_upload(env):
    import io

    resp = env.client.post("/v1/accounts/acme/invoices",
                           data={"file": (io.BytesIO(pdf_bytes("mp")), "scan.pdf")},
                           headers={"Authorization": f"Bearer {env.acme.keys['customer']}"},
                           content_type="multipart/form-data")
    assert resp.status_code == 202
    assert env.upload(env.acme.keys["customer"], pdf_bytes("mp")).headers["Ledgerline-Cache"] == "joined"


def test_list_filters_pagination_and_csv(env):
    key = env.acme.keys["customer"]
    ids = [env.upload(key, pdf_bytes(f"p{i}")).json["id"] for i in range(5)]
    page1 = env.get(key, "/v1/accounts/acme/invoices?limit=2").json
    page2 = env.get(key, f"/v1/accounts/acme/invoices?limit=2&cursor={page1['next_cursor']}").json
    page3 = env.get(key, f"/v1/accounts/acme/invoices?limit=2&cursor={page2['next_cursor']}").json
    seen = [i["id"] for p in (page1, page2, page3) for i in p["items"]]
    assert seen == list(reversed(ids)) and page3["next_cursor"] is None
    assert len(env.get(key, "/v1/accounts/acme/invoices?status=pending").json["items"]) == 5
    env.work()
    assert env.get(key, "/v1/accounts/acme/invoices?status=pending").json["items"] == []
    assert len(env.get(key, "/v1/accounts/acme/invoices?seller=test%20seller").json["items"]) == 5
    assert env.get(key, "/v1/accounts/acme/invoices?seller=nobody").json["items"] == []
    assert len(env.get(key, "/v1/accounts/acme/invoices?issued_from=2026-11-01&issued_to=2026-11-30")
               .json["items"]) == 5
    assert env.get(key, "/v1/accounts/acme/invoices?issued_from=2026-12-01").json["items"] == []
    csv_text = env.get(key, "/v1/accounts/acme/invoices?format=csv").data.decode()
    assert csv_text.splitlines()[0].startswith("id,url,status,document_type,")
    assert len(csv_text.splitlines()) == 6
    for bad in ("status=done", "issued_from=30.11.2026", "cursor=zzz", "limit=0", "format=xml"):
        resp = env.get(key, f"/v1/accounts/acme/invoices?{bad}")
        assert resp.status_code == 400, bad


def test_the_same_bill_in_a_different_file_is_flagged_within_what_the_caller_sees(make_services):
    services = make_services(extractor=ControlledExtractor(invoice_number="RE-2026-001"))
    env = Env(services, services.extractor, make_tenant(services, "acme"),
              make_tenant(services, "globex"))
    first = env.upload(env.acme.keys["customer"], pdf_bytes("scan-1")).json
    second = env.upload(env.acme.keys["customer"], pdf_bytes("scan-2")).json
    by_supplier = env.upload(env.acme.keys["supplier"], pdf_bytes("scan-3")).json
    elsewhere = env.upload(env.globex.keys["customer"], pdf_bytes("scan-4"), account="globex")
    assert elsewhere.status_code == 202
    env.work()
    seen = env.get(env.acme.keys["customer"], f"/v1/accounts/acme/invoices/{second['id']}").json
    assert {d["id"] for d in seen["possible_duplicates"]} == {first["id"], by_supplier["id"]}
    assert seen["possible_duplicates"][0]["matched_on"] == ["seller_name", "invoice_number"]
    # The supplier cannot see the customer's uploads, so it is not told about them either.
    own = env.get(env.acme.keys["supplier"], f"/v1/accounts/acme/invoices/{by_supplier['id']}").json
    assert own["possible_duplicates"] == []
    # Identical bytes are a cache hit, and the same file uploaded again: flagged as such first.
    again = env.upload(env.acme.keys["customer"], pdf_bytes("scan-1")).json
    flagged = env.get(env.acme.keys["customer"], f"/v1/accounts/acme/invoices/{again['id']}").json
    assert flagged["possible_duplicates"][0] == {"id": first["id"], "matched_on": ["content_hash"]}
    assert {d["id"] for d in flagged["possible_duplicates"][1:]} == {second["id"], by_supplier["id"]}
