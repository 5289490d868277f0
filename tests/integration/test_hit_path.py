"""What a cache hit costs: one pooled connection, no object write; and what the key cache
may and may not remember."""
from __future__ import annotations

from sqlalchemy import delete, event

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import blobs, invoices

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
    services, tenant, client, body = cached(make_services, "hit")
    post(client, tenant.keys["customer"], pdf_bytes("warm the key"))
    writes = []
    put_file = services.store.put_file
    services.store.put_file = lambda *args: (writes.append(args[0]), put_file(*args))
    checkouts = Checkouts(services.engine)
    hit = post(client, tenant.keys["customer"], body)
    assert hit.status_code == 201 and hit.headers["Ledgerline-Cache"] == "hit"
    assert hit.json["extraction"]["fields"]["invoice_number"]["value"] == "CALL-1"
    # The key came from the key cache; the hit and its answer shared one connection.
    assert checkouts.count == 1
    assert writes == []


class Statements:
    """The statements a block sends (pool pre-pings are not statements: SQLAlchemy sends
    them on the driver's connection directly)."""

    def __init__(self, engine):
        self.engine, self.sent = engine, []

    def _seen(self, _conn, _cursor, statement, *_args):
        self.sent.append(statement)

    def __enter__(self):
        event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *_exc):
        event.remove(self.engine, "before_cursor_execute", self._seen)


def cached(make_services, text: str):
    """An account whose supplier uploaded `text`'s PDF and whose worker extracted it: the next
    upload of those bytes is a cache hit. Returns (services, tenant, client, body)."""
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    body = pdf_bytes(text)
    assert post(client, tenant.keys["supplier"], body).status_code == 202
    assert Worker(services, name="w").run_once()
    return services, tenant, client, body


def get(client, key, invoice_id):
    return client.get(f"/v1/accounts/acme/invoices/{invoice_id}",
                      headers={"Authorization": f"Bearer {key}"})


def test_a_cache_hit_is_one_statement_on_postgresql(make_services, backend):
    services, tenant, client, body = cached(make_services, "one statement")
    post(client, tenant.keys["customer"], pdf_bytes("warm the key"))
    with Statements(services.engine) as statements:
        hit = post(client, tenant.keys["customer"], body)
    assert hit.headers["Ledgerline-Cache"] == "hit"
    if backend.name == "production":
        assert len(statements.sent) == 1, statements.sent
    else:  # SQLite's steps, in one write transaction: no blob check, no read after it
        assert len(statements.sent) <= 7, statements.sent
        assert not any("FROM blobs WHERE" in s and s.lstrip().startswith("SELECT blobs")
                       for s in statements.sent)


def test_a_hit_answers_exactly_what_a_read_of_its_invoice_shows(make_services):
    """Same file, other files of the same seller, a supplier who sees only its own uploads,
    and a correction that moves an invoice out of the seller's bills: the hit's answer is the
    invoice as GET shows it, on both backends."""
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    keys = tenant.keys
    first = post(client, keys["supplier"], pdf_bytes("A")).json
    other_file = post(client, keys["supplier"], pdf_bytes("B")).json
    third_file = post(client, keys["supplier2"], pdf_bytes("C")).json
    while Worker(services, name="w").run_once():
        pass
    corrected = client.patch(f"/v1/accounts/acme/invoices/{third_file['id']}",
                             json={"fields": {"seller_name": "Someone Else AG"}},
                             headers={"Authorization": f"Bearer {keys['supplier2']}"})
    assert corrected.status_code == 200

    hits = {}
    for role in ("customer", "supplier", "supplier2", "customer"):
        hit = post(client, keys[role], pdf_bytes("A"))
        assert hit.status_code == 201 and hit.headers["Ledgerline-Cache"] == "hit"
        assert hit.mimetype == "application/json"
        assert hit.json == get(client, keys[role], hit.json["id"]).json
        hits.setdefault(role, hit.json)
    shown = hit.json["possible_duplicates"]  # the last customer's: every earlier upload of A
    assert shown[0] == {"id": first["id"], "matched_on": ["content_hash"]}
    assert len([d for d in shown if d["matched_on"] == ["content_hash"]]) == 4
    assert shown[-1] == {"id": other_file["id"],
                         "matched_on": ["seller_name", "gross_total", "issue_date"]}
    assert third_file["id"] not in {d["id"] for d in shown}  # corrected to another seller
    # A supplier sees only its own uploads: its earlier hit, nothing of the other supplier's.
    assert hits["supplier2"]["possible_duplicates"] == []
    own = post(client, keys["supplier2"], pdf_bytes("A")).json
    assert own["possible_duplicates"] == [{"id": hits["supplier2"]["id"],
                                           "matched_on": ["content_hash"]}]


def test_a_hit_under_an_idempotency_key_replays_and_refuses_a_reused_key(make_services):
    services, tenant, client, body = cached(make_services, "keyed")

    def keyed(data, **headers):
        return client.post("/v1/accounts/acme/invoices", data=data, headers={
            "Authorization": f"Bearer {tenant.keys['customer']}",
            "Content-Type": "application/pdf", "Idempotency-Key": '"po-1"', **headers})

    hit = keyed(body)
    assert hit.status_code == 201 and hit.headers["Ledgerline-Cache"] == "hit"
    again = keyed(body)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["id"] == hit.json["id"]
    assert keyed(body, **{"Cache-Control": "no-cache"}).status_code == 422
    assert keyed(pdf_bytes("another file")).status_code == 422


def test_a_hit_whose_original_is_gone_stores_the_file_again(make_services):
    """The cache entry outlived every invoice of its file and the original (a purge between
    them): the one statement finds no recorded original and changes nothing, and the general
    path stores the file again before it serves the cached result."""
    services, tenant, client, body = cached(make_services, "gone")
    with transaction(services.engine, write=True) as conn:
        conn.execute(delete(invoices))
        storage_key = conn.execute(delete(blobs).returning(blobs.c.storage_key)).scalar()
    services.store.delete(storage_key)
    writes = []
    put_file = services.store.put_file
    services.store.put_file = lambda *args: (writes.append(args[0]), put_file(*args))
    hit = post(client, tenant.keys["customer"], body)
    assert hit.status_code == 201 and hit.headers["Ledgerline-Cache"] == "hit"
    assert writes == [storage_key]
    original = client.get(f"/v1/accounts/acme/invoices/{hit.json['id']}/file",
                          headers={"Authorization": f"Bearer {tenant.keys['customer']}"})
    assert original.status_code == 200 and original.data == body
