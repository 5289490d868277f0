"""What a cache hit costs: one pooled connection, no object write; and what the key cache
may and may not remember."""
from __future__ import annotations

import time

from sqlalchemy import event, update

from ledgerline.adapters.db.accounts import hash_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import api_keys
from ledgerline.domain.key_cache import MAX_AGE_SECONDS
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes


class Checkouts:
    def __init__(self, engine):
        self.count = 0
        event.listen(engine, "checkout", self._seen)

    def _seen(self, *_args):
        self.count += 1


def post(client, key, body):
    return client.post("/v1/accounts/acme/invoices", data=body,
                       headers={"Authorization": f"Bearer {key}",
                                "Content-Type": "application/pdf"})


def test_a_cache_hit_takes_one_pooled_connection_and_writes_no_object(make_services):
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    body = pdf_bytes("hit")
    assert post(client, tenant.keys["supplier"], body).status_code == 202
    assert Worker(services, name="w").run_once()
    post(client, tenant.keys["customer"], pdf_bytes("warm the key"))
    writes = []
    put_file = services.store.put_file
    services.store.put_file = lambda *args: (writes.append(args[0]), put_file(*args))
    checkouts = Checkouts(services.engine)
    hit = post(client, tenant.keys["customer"], body)
    assert hit.status_code == 201 and hit.headers["Ledgerline-Cache"] == "hit"
    assert hit.json["extraction"]["fields"]["invoice_number"]["value"] == "CALL-1"
    # The key came from the key cache, the blob check, the create-or-get and the answer
    # shared one connection.
    assert checkouts.count == 1
    assert writes == []


def test_a_forgotten_key_is_refused_at_once_and_any_key_within_a_second(make_services):
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    customer, supplier = tenant.keys["customer"], tenant.keys["supplier"]
    assert post(client, customer, pdf_bytes("a")).status_code == 202
    assert post(client, supplier, pdf_bytes("b")).status_code == 202
    with transaction(services.engine, write=True) as conn:  # as a revocation would leave it
        conn.execute(update(api_keys).where(api_keys.c.key_hash.in_(
            [hash_key(customer), hash_key(supplier)])).values(key_hash="revoked-" + api_keys.c.id))
    # Revoked in this process: whatever revokes tells the cache, and the next request fails.
    services.key_cache.forget(hash_key(customer))
    assert post(client, customer, pdf_bytes("c")).status_code == 401
    # Revoked elsewhere: honoured within the cache's second.
    time.sleep(MAX_AGE_SECONDS)
    assert post(client, supplier, pdf_bytes("d")).status_code == 401
