"""The job table and the worker: in-flight joining, leases, fencing and the call ledger."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select, update

from ledgerline.adapters.db.clock import db_now_plus
from ledgerline.adapters.db.engine import one_connection, transaction
from ledgerline.adapters.db.tables import cache_entries, jobs, model_calls
from ledgerline.extraction.errors import ExtractionError
from ledgerline.http.app import create_app
from ledgerline.ports.database import StoreUnavailable
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import VERSIONS, ControlledExtractor, pdf_bytes


def post(client, key, body, **headers):
    return client.post("/v1/accounts/acme/invoices", data=body,
                       headers={"Authorization": f"Bearer {key}",
                                "Content-Type": "application/pdf", **headers})


def ledger(services):
    with transaction(services.engine, write=False) as conn:
        return conn.execute(select(model_calls).order_by(model_calls.c.id)).all()


def claim(services, name, lease=30):
    """A claim as a worker makes it, but for the call it opens (the SQL store's claim_next)."""
    with services.db.transaction(write=True) as tx:
        return tx.claims.claim_next(name, lease, VERSIONS.label)


def expire_leases(services, seconds_ago: float = 1.0):
    """Leases run on the database's clock, which a test cannot move: move the leases."""
    with transaction(services.engine, write=True) as conn:
        conn.execute(update(jobs).where(jobs.c.status == "running")
                     .values(lease_expires_at=db_now_plus(-seconds_ago)))


def end_backoffs(services):
    """A job handed back waits on the database's clock too: end its wait now."""
    with transaction(services.engine, write=True) as conn:
        conn.execute(update(jobs).where(jobs.c.status == "pending")
                     .values(run_after=db_now_plus(-1)))


def test_twenty_concurrent_identical_uploads_make_one_model_call(make_services):
    gate = threading.Event()
    extractor = ControlledExtractor(gate=gate)
    services = make_services(extractor=extractor)
    tenant = make_tenant(services, "acme")
    app = create_app(services)
    stop = threading.Event()
    worker = threading.Thread(target=Worker(services).run, args=(stop,))
    worker.start()
    body = pdf_bytes("burst")
    keys = [tenant.keys["customer"], tenant.keys["supplier"]]

    def upload(i):
        return post(app.test_client(), keys[i % 2], body, Prefer="wait=20")

    try:
        with ThreadPoolExecutor(20) as pool:
            futures = [pool.submit(upload, i) for i in range(20)]
            assert extractor.started.wait(10)
            gate.set()
            responses = [f.result() for f in futures]
    finally:
        stop.set()
        worker.join()
    outcomes = sorted(r.headers["Ledgerline-Cache"] for r in responses)
    assert outcomes.count("miss") == 1
    assert set(outcomes) <= {"miss", "joined", "hit"}
    assert all(r.status_code == 201 and r.json["status"] == "completed" for r in responses)
    assert {r.json["extraction"]["fields"]["invoice_number"]["value"] for r in responses} == {"CALL-1"}
    assert len({r.json["id"] for r in responses}) == 20
    assert len(extractor.calls) == 1 and len(ledger(services)) == 1


def test_claims_raise_the_fencing_token_and_never_hand_out_a_job_twice(make_services):
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    for i in range(6):
        post(client, tenant.keys["customer"], pdf_bytes(f"c{i}"))

    with ThreadPoolExecutor(6) as pool:
        claims = list(pool.map(lambda name: claim(services, name), [f"w{i}" for i in range(6)]))
    assert len({c.claim.job_id for c in claims}) == 6
    assert all(c.claim.token == 1 for c in claims)
    assert claim(services, "late") is None
    expire_leases(services)
    again = claim(services, "rescuer")
    assert again is not None and again.claim.token == 2


def test_a_worker_that_lost_its_lease_cannot_publish_and_its_call_is_still_recorded(make_services):
    gate = threading.Event()
    slow = ControlledExtractor(gate=gate)
    paused = make_services(extractor=slow, lease_seconds=30)
    rescuer = make_services(extractor=ControlledExtractor(), lease_seconds=30)
    tenant = make_tenant(paused, "acme")
    client = create_app(paused).test_client()
    invoice = post(client, tenant.keys["customer"], pdf_bytes("fenced")).json

    stale = threading.Thread(target=Worker(paused, name="stale").run_once)
    stale.start()
    assert slow.started.wait(10)           # the first worker is inside its model call ...
    expire_leases(paused)                  # ... and stalls past its lease
    assert Worker(rescuer, name="rescuer").run_once()
    gate.set()                             # the stale worker wakes up and tries to publish
    stale.join()

    calls = ledger(paused)
    assert [(c.worker, c.fencing_token, c.outcome) for c in calls] == [
        ("stale", 1, "discarded"), ("rescuer", 2, "published")]
    with transaction(paused.engine, write=False) as conn:
        job = conn.execute(select(jobs).where(jobs.c.status == "completed")).one()
        entry = conn.execute(select(cache_entries)).one()
    assert job.fencing_token == 2 and job.result_id == entry.result_id
    got = client.get(f"/v1/accounts/acme/invoices/{invoice['id']}",
                     headers={"Authorization": f"Bearer {tenant.keys['customer']}"}).json
    assert got["extraction"]["fields"]["invoice_number"]["value"] == "CALL-1"  # the rescuer's


def test_renewal_keeps_the_lease_and_fails_once_it_is_lost(make_services):
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    post(create_app(services).test_client(), tenant.keys["customer"], pdf_bytes("renew"))
    held = claim(services, "w1", lease=5)
    with services.db.transaction(write=True) as tx:
        renewed = tx.claims.renew(held.claim, 30)
    assert renewed and renewed.expires_at > held.claim.expires_at  # by the database's clock
    assert claim(services, "w2") is None  # still ours
    expire_leases(services)  # the renewed lease ran out
    assert claim(services, "w2") is not None
    with services.db.transaction(write=True) as tx:
        assert tx.claims.renew(held.claim, 30) is None


def test_failures_are_not_cached_and_a_new_upload_runs_again(make_services):
    extractor = ControlledExtractor(failures=[ExtractionError("pdf_malformed", "broken xref")])
    services = make_services(extractor=extractor)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    key = tenant.keys["customer"]
    first = post(client, key, pdf_bytes("bad")).json
    Worker(services).run_once()
    got = client.get(f"/v1/accounts/acme/invoices/{first['id']}",
                     headers={"Authorization": f"Bearer {key}"}).json
    assert got["status"] == "failed"
    assert got["error"] == {"code": "pdf_malformed", "message": "broken xref"}
    retry = post(client, key, pdf_bytes("bad"))
    assert retry.headers["Ledgerline-Cache"] == "miss"
    Worker(services).run_once()
    assert len(extractor.calls) == 2
    assert [c.outcome for c in ledger(services)] == ["failed", "published"]


def test_transient_failures_are_retried_with_backoff(make_services):
    extractor = ControlledExtractor(failures=[ExtractionError("io", "hiccup", transient=True)])
    services = make_services(extractor=extractor)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    invoice = post(client, tenant.keys["customer"], pdf_bytes("flaky")).json
    assert Worker(services).run_once()
    assert not Worker(services).run_once()  # backing off (0.5 s, database time): not yet
    end_backoffs(services)
    assert Worker(services).run_once()
    got = client.get(f"/v1/accounts/acme/invoices/{invoice['id']}",
                     headers={"Authorization": f"Bearer {tenant.keys['customer']}"}).json
    assert got["status"] == "completed" and got["error"] is None
    assert len(extractor.calls) == 2


def test_joined_uploads_share_the_leaders_failure(make_services):
    extractor = ControlledExtractor(failures=[ExtractionError("no_text_layer", "scanned")])
    services = make_services(extractor=extractor)
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    lead = post(client, tenant.keys["customer"], pdf_bytes("scan"))
    joined = post(client, tenant.keys["supplier"], pdf_bytes("scan"))
    assert joined.headers["Ledgerline-Cache"] == "joined"
    Worker(services).run_once()
    got = client.get(joined.headers["Location"],
                     headers={"Authorization": f"Bearer {tenant.keys['supplier']}"}).json
    assert got["status"] == "failed" and got["error"]["code"] == "no_text_layer"
    assert lead.json["id"] != got["id"]


@pytest.mark.parametrize("mode", ["off", "shadow"])
def test_cache_modes_change_what_is_served(make_services, mode):
    from ledgerline.domain.cache import CacheMode

    extractor = ControlledExtractor()
    services = make_services(extractor=extractor, cache_mode=CacheMode(mode))
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    key = tenant.keys["customer"]
    post(client, key, pdf_bytes("m"))
    second = post(client, key, pdf_bytes("m"))  # identical work in flight
    assert second.headers["Ledgerline-Cache"] == ("joined" if mode == "off" else "miss")
    while Worker(services).run_once():
        pass
    third = post(client, key, pdf_bytes("m"))  # a finished result exists
    assert third.headers["Ledgerline-Cache"] == "miss"
    with transaction(services.engine, write=False) as conn:
        would_be = [r.would_be for r in conn.execute(select(jobs).order_by(jobs.c.created_at))]
    assert would_be == ([None, None, None] if mode == "off" else [None, "joined", "hit"])


def test_a_job_costs_two_statements_on_postgresql_each_its_own_transaction(make_services,
                                                                          backend, monkeypatch):
    """The claim (which opens the call) and the publish (which ends it) are one statement each,
    in autocommit: no BEGIN, no COMMIT, no read between them. Counted as the driver sends
    them: the two run on psycopg's cursor, past SQLAlchemy's events."""
    if backend.name != "production":
        pytest.skip("round trips are PostgreSQL's; SQLite runs the same steps in process")
    import psycopg

    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    for i in range(3):
        post(client, tenant.keys["customer"], pdf_bytes(f"lean-{i}"))
    sent = []
    execute = psycopg.Cursor.execute

    def count(cursor, query, *args, **kwargs):
        sent.append((str(query).split()[:3], cursor.connection.autocommit))
        return execute(cursor, query, *args, **kwargs)

    worker = Worker(services, name="lean")
    with one_connection(services.engine), monkeypatch.context() as patched:
        patched.setattr(psycopg.Cursor, "execute", count)
        assert all(worker.run_once() for _ in range(3))
        assert not worker.run_once()  # and an idle claim is one statement too
    assert [words for words, _ in sent] == [["WITH", "claimed", "AS"], ["WITH", "done", "AS"]] * 3 \
        + [["WITH", "claimed", "AS"]]
    assert all(autocommit for _, autocommit in sent)
    assert [c.outcome for c in ledger(services)] == ["published"] * 3


def test_a_worker_holding_its_connection_adds_nothing_to_it_with_each_job(make_services,
                                                                          backend):
    """SQLAlchemy remembers a reset for the pool's check-in at every setting of a connection's
    isolation level, and a worker holds its connection for as long as it runs: its jobs set
    the level only when it changes, so the connection's record stays as it was."""
    if backend.name != "production":
        pytest.skip("the isolation level is set for PostgreSQL's autocommit statements")
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    for i in range(5):
        post(client, tenant.keys["customer"], pdf_bytes(f"held-{i}"))
    worker = Worker(services, name="held")
    with one_connection(services.engine):
        assert worker.run_once()
        with transaction(services.engine, write=False) as conn:
            record = conn.connection._connection_record
        kept = len(record.finalize_callback)
        assert all(worker.run_once() for _ in range(4))
        assert len(record.finalize_callback) == kept


def test_a_claim_on_a_connection_the_server_ended_fails_as_unavailable_and_is_not_reused(
        make_services, backend):
    """The claim runs on psycopg's cursor, past SQLAlchemy's execution: a connection that broke
    under it still leaves as StoreUnavailable and is given up, and the next claim (which first
    hands back the one that may have committed unseen) runs on a fresh connection."""
    if backend.name != "production":
        pytest.skip("a server ends connections; SQLite has none")
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    post(create_app(services).test_client(), tenant.keys["customer"], pdf_bytes("cut"))
    worker = Worker(services, name="cut")
    with one_connection(services.engine):
        with transaction(services.engine, write=False) as conn:
            held = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        with services.engine.connect() as other:
            other.exec_driver_sql(f"SELECT pg_terminate_backend({held})")
        with pytest.raises(StoreUnavailable):
            worker.run_once()
        assert worker.run_once()
        with transaction(services.engine, write=False) as conn:
            assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() != held
    assert [c.outcome for c in ledger(services)] == ["published"]


def test_new_work_wakes_listening_workers_when_its_upload_commits(make_services, backend):
    """On PostgreSQL the job's statement sends the wake-up (pg_notify, delivered on commit);
    a join, which is no new work, wakes nobody."""
    if backend.name != "production":
        pytest.skip("SQLite's workers poll, and one in the same process is told directly")
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    wake, stop = threading.Event(), threading.Event()
    services.db.listen_for_work(wake, stop)
    try:
        assert wake.wait(10)  # listening now (a listener looks once when it connects)
        wake.clear()
        assert post(client, tenant.keys["customer"], pdf_bytes("new work")).status_code == 202
        assert wake.wait(10)
        wake.clear()
        joined = post(client, tenant.keys["supplier"], pdf_bytes("new work"))
        assert joined.headers["Ledgerline-Cache"] == "joined"
        assert not wake.wait(2)
    finally:
        stop.set()
