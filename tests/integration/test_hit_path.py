"""What a cache hit costs: one pooled connection, no object write; and what the key cache
may and may not remember."""
from __future__ import annotations

import time

import psycopg
import pytest
from sqlalchemy import delete, event, select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import blobs, invoices
from ledgerline.domain.duplicates import SAME_FILE_SHOWN
from ledgerline.service_layer import authentication
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


def test_a_cache_hit_takes_one_pooled_connection_and_writes_no_object(make_services,
                                                                      monkeypatch):
    # The revocation generation is read once a second, on a connection of its own; on a busy
    # machine a second can pass between the warm-up and the hit.
    monkeypatch.setattr(authentication, "GENERATION_CHECK_SECONDS", 3600.0)
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
    """The statements a block sends and, on PostgreSQL, its round trips to the server: libpq's
    own trace of the protocol, where each round trip ends with the client's Query or Sync (a
    pre-ping is one too, which no SQLAlchemy event sees). Connections are traced from their
    start, so make it before the engine connects."""

    def __init__(self, engine, trace_path):
        self.engine, self.sent, self.trace_path = engine, [], trace_path
        self.round_trips = 0
        if engine.dialect.name == "postgresql":
            self._trace, self._traced_conns = open(trace_path, "w"), []  # noqa: SIM115
            event.listen(engine, "connect", self._traced)

    def _seen(self, _conn, _cursor, statement, *_args):
        self.sent.append(statement)

    def _traced(self, dbapi_conn, _record):
        dbapi_conn.pgconn.trace(self._trace.fileno())
        self._traced_conns.append(dbapi_conn)

    def __enter__(self):
        event.listen(self.engine, "before_cursor_execute", self._seen)
        self._start = self.trace_path.stat().st_size if self.engine.dialect.name == \
            "postgresql" else 0
        return self

    def __exit__(self, *_exc):
        event.remove(self.engine, "before_cursor_execute", self._seen)
        if self.engine.dialect.name == "postgresql":
            # libpq writes to the file's descriptor: no connection may keep it once it is closed
            event.remove(self.engine, "connect", self._traced)
            for conn in self._traced_conns:
                if not conn.closed:
                    conn.pgconn.untrace()
            self._trace.close()
            with open(self.trace_path, encoding="utf-8", errors="replace") as trace:
                trace.seek(self._start)
                self.block_trace = trace.read()
            messages = [line.split("\t") for line in self.block_trace.splitlines()]
            self.round_trips = sum(1 for m in messages if len(m) > 3 and m[1] == "F"
                                   and m[3] in ("Query", "Sync"))


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


def test_a_cache_hit_is_one_statement_on_postgresql(make_services, backend, tmp_path,
                                                   monkeypatch):
    # As above: the revocation generation, read once a second, is not the hit's statement.
    monkeypatch.setattr(authentication, "GENERATION_CHECK_SECONDS", 3600.0)
    services, tenant, client, body = cached(make_services, "one statement")
    services.engine.dispose()  # connections made from here on are traced
    statements = Statements(services.engine, tmp_path / "trace")
    post(client, tenant.keys["customer"], pdf_bytes("warm the key"))
    with statements:
        hit = post(client, tenant.keys["customer"], body)
    assert hit.headers["Ledgerline-Cache"] == "hit"
    if backend.name == "production":
        assert len(statements.sent) == 1, statements.sent
        assert statements.round_trips == 1, statements.block_trace  # no pre-ping either
        # short enough for psycopg to cache its placeholder conversion (answering.py)
        assert len(statements.sent[0]) <= psycopg._queries.MAX_CACHED_STATEMENT_LENGTH
    else:  # SQLite's steps, in one write transaction: no blob check, no read after it
        assert len(statements.sent) <= 7, statements.sent
        assert not any("FROM blobs WHERE" in s and s.lstrip().startswith("SELECT blobs")
                       for s in statements.sent)


def test_a_pooled_connection_the_server_closed_is_replaced_before_use(make_services, backend):
    if backend.name != "production":
        pytest.skip("SQLite has no server to hang up")
    services, tenant, client, body = cached(make_services, "hung up")
    with transaction(services.engine, write=False) as conn:
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    # The server ends every pooled connection (as a restart does) while they sit idle.
    with psycopg.connect(backend.database_url.replace("+psycopg", ""), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        deadline = time.monotonic() + 10
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
            assert time.monotonic() < deadline, "the backend did not end"
            time.sleep(0.05)
    hit = post(client, tenant.keys["customer"], body)
    assert hit.status_code == 201 and hit.headers["Ledgerline-Cache"] == "hit", hit.json
    with transaction(services.engine, write=False) as conn:
        assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid


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
    _services, tenant, client, body = cached(make_services, "keyed")

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


def test_a_file_sent_many_times_lists_its_oldest_copies_only(make_services):
    """The answer does not grow with every copy: the file's SAME_FILE_SHOWN oldest copies, in
    order, then every other file of the same seller; a read shows the same."""
    services, tenant, client, body = cached(make_services, "many")
    key = tenant.keys["customer"]
    other = post(client, key, pdf_bytes("other file")).json  # the same seller, another file
    while Worker(services, name="w").run_once():
        pass
    copies = [post(client, key, body) for _ in range(SAME_FILE_SHOWN + 3)]
    assert {c.headers["Ledgerline-Cache"] for c in copies} == {"hit"}
    with transaction(services.engine, write=False) as conn:
        oldest = conn.execute(select(invoices.c.id)
                              .where(invoices.c.content_hash != other["content_hash"])
                              .order_by(invoices.c.created_at, invoices.c.id)).scalars().all()
    last = copies[-1].json
    assert last["possible_duplicates"] == [
        *({"id": i, "matched_on": ["content_hash"]} for i in oldest[:SAME_FILE_SHOWN]),
        {"id": other["id"], "matched_on": ["seller_name", "gross_total", "issue_date"]}]
    assert get(client, key, last["id"]).json == last
