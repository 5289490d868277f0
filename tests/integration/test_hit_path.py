"""What a cache hit costs: one pooled connection, no object write; and what the key cache
may and may not remember."""
from __future__ import annotations


from sqlalchemy import event

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
