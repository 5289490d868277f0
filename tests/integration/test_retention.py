"""Per-account retention through `purge`, whole-account deletion and expiring idempotency keys,
on every backend (S3: a versioned bucket)."""
from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from ledgerline.adapters.db.clock import db_now_plus
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import invoices, jobs, model_calls
from ledgerline.config import Settings
from ledgerline.domain.ids import pseudonym
from ledgerline.http.app import create_app
from ledgerline.service_layer.deletion import delete_account, set_retention
from ledgerline.service_layer.retention import purge
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.faults import Faults
from tests.fakes import ControlledExtractor, pdf_bytes
from tests.integration.leftovers import in_objects, in_tables, stored_objects, versioned_bucket


@pytest.fixture
def services(backend, make_services, request):
    if backend.name == "production":
        storage = f"s3://{versioned_bucket(request.getfixturevalue('s3_server'))}/" \
                  f"{uuid.uuid4().hex[:12]}"
    else:
        storage = backend.storage_url
    return make_services(settings=Settings(database_url=backend.database_url,
                                           storage_url=storage, rate_limit_per_minute=0,
                                           idempotency_key_ttl=120),
                         extractor=ControlledExtractor(invoice_number="RE-RETAINED"))


class Tenant:
    def __init__(self, services, account):
        self.services, self.account = services, account
        self.keys = make_tenant(services, account).keys
        self.client = create_app(services).test_client()

    def upload(self, tag, **headers):
        return self.client.post(f"/v1/accounts/{self.account}/invoices", data=pdf_bytes(tag),
                                headers={"Authorization": f"Bearer {self.keys['customer']}",
                                         "Content-Type": "application/pdf", **headers})

    def get(self, invoice_id):
        return self.client.get(f"/v1/accounts/{self.account}/invoices/{invoice_id}",
                               headers={"Authorization": f"Bearer {self.keys['customer']}"})


def work(services):
    while Worker(services, name="test-worker").run_once():
        pass


def age_invoice(services, invoice_id, days):
    with transaction(services.engine, write=True) as conn:
        conn.execute(update(invoices).where(invoices.c.id == invoice_id)
                     .values(created_at=db_now_plus(-days * 86400)))


def test_retention_deletes_old_invoices_with_what_only_they_used(services):
    acme, globex = Tenant(services, "acme"), Tenant(services, "globex")
    old = acme.upload("old-one").json["id"]
    recent = acme.upload("recent-one").json["id"]
    elsewhere = globex.upload("old-one").json["id"]  # another account, no retention
    work(services)
    for invoice_id in (old, elsewhere):
        age_invoice(services, invoice_id, days=8)
    assert set_retention(services, "acme", 7)
    outcomes = []
    threads = [threading.Thread(target=lambda: outcomes.append(
        purge(services, timedelta(days=30)).invoices)) for _ in range(2)]  # two hosts at once
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(outcomes) == 1
    assert acme.get(old).status_code == 404 and acme.get(recent).status_code == 200
    assert globex.get(elsewhere).status_code == 200
    assert in_objects(services.store, [b"% old-one"]) != []  # globex's copy stays
    assert [key for key, _ in in_objects(services.store, [b"% old-one"])
            if "/acme/" in key] == []
    assert purge(services, timedelta(days=30)).invoices == 0  # idempotent
    assert not set_retention(services, "nobody", 7)


def test_an_account_deletion_leaves_nothing_of_it(services):
    acme, globex = Tenant(services, "acme"), Tenant(services, "globex")
    acme.client.post("/v1/accounts/acme/webhooks", json={
        "url": "https://hooks.example/a", "events": ["invoice.completed"]},
        headers={"Authorization": f"Bearer {acme.keys['customer']}"})
    mine = [acme.upload(f"acme-{n}").json["id"] for n in range(3)]
    globex.upload("globex-0")
    work(services)
    acme.client.patch(f"/v1/accounts/acme/invoices/{mine[0]}", json={
        "fields": {"buyer_name": "Acme Buyer Ltd"}},
        headers={"Authorization": f"Bearer {acme.keys['customer']}"})
    calls_before = _count(services, model_calls)
    done = delete_account(services, "acme", batch=2)
    assert done.rows > 0 and done.objects >= 3
    assert in_tables(services.engine, ["acme", "Acme Buyer"]) == []
    assert in_objects(services.store, [b"acme-"]) == []
    assert [k for k, _ in stored_objects(services.store) if "/acme/" in k] == []
    # Its costs stay in the ledger, under a pseudonym.
    assert _count(services, model_calls) == calls_before
    with transaction(services.engine, write=False) as conn:
        assert conn.execute(select(func.count()).where(
            model_calls.c.account == pseudonym("acme"))).scalar() == 3
    time.sleep(1.1)  # a cached key is forgotten within a second
    assert acme.get(mine[0]).status_code == 401
    assert globex.upload("globex-1").status_code == 202
    assert delete_account(services, "acme") is None
    # The name can be used again, and starts empty.
    again = Tenant(services, "acme")
    assert again.client.get("/v1/accounts/acme/invoices", headers={
        "Authorization": f"Bearer {again.keys['customer']}"}).json["items"] == []


def test_an_interrupted_account_deletion_is_finished_by_the_next_run(services):
    acme = Tenant(services, "acme")
    for n in range(4):
        acme.upload(f"half-{n}")
    work(services)
    calls = {"n": 0}

    def crash_after_one(real, account, batch):
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("the host went away")
        return real(account, batch)

    faults = Faults.around(services)
    faults.replace("deletion.delete_account_batch", crash_after_one)
    with pytest.raises(RuntimeError):
        delete_account(services, "acme", batch=1)
    time.sleep(1.1)
    assert acme.upload("after").status_code == 401  # its keys stopped at the first run
    faults.restore("deletion.delete_account_batch")
    assert delete_account(services, "acme", batch=1) is not None
    assert in_tables(services.engine, ["acme"]) == []
    assert stored_objects(services.store) == []


def test_an_idempotency_key_expires_and_then_starts_a_new_operation(services):
    acme = Tenant(services, "acme")
    first = acme.upload("po-9", **{"Idempotency-Key": '"po-9"'})
    replay = acme.upload("po-9", **{"Idempotency-Key": '"po-9"'})
    assert replay.status_code == 200 and replay.json["id"] == first.json["id"]
    with transaction(services.engine, write=True) as conn:  # three minutes later
        conn.execute(update(jobs).values(created_at=db_now_plus(-180)))
    later = acme.upload("po-9", **{"Idempotency-Key": '"po-9"'})
    assert later.status_code == 202 and later.json["id"] != first.json["id"]
    assert later.headers["Ledgerline-Cache"] == "joined"  # new operation, same work in flight
    assert acme.get(first.json["id"]).status_code == 200  # the old invoice stays


def _count(services, table):
    with transaction(services.engine, write=False) as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar()
