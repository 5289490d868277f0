"""Webhooks through the HTTP app on every backend: registration, the outbox written with each
change, deliveries to a real loopback receiver (signatures verified by `standardwebhooks`),
retries, giving up, disabling, the delivery log, replays, and the address checks."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import event, select, update

from ledgerline.adapters.db.clock import db_now_plus
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import webhook_deliveries, webhook_endpoints
from ledgerline.extraction.errors import ExtractionError
from ledgerline.http.app import create_app
from ledgerline.service_layer.webhooks import DeliveryWorker
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes
from tests.webhook_receiver import DROP, FAIL, HOLD, SLOW, Receiver, receiving

LOOPBACK = "127.0.0.1/32"


class Env:
    def __init__(self, services):
        self.services = services
        self.acme = make_tenant(services, "acme")
        self.globex = make_tenant(services, "globex")
        self.client = create_app(services).test_client()

    def headers(self, role="customer", tenant=None):
        return {"Authorization": f"Bearer {(tenant or self.acme).keys[role]}"}

    def register(self, url, events=("invoice.completed",), role="customer"):
        return self.client.post("/v1/accounts/acme/webhooks", headers=self.headers(role),
                                json={"url": url, "events": list(events)})

    def upload(self, tag, role="customer"):
        return self.upload_to(self.acme, tag, role)

    def upload_to(self, tenant, tag, role="customer"):
        return self.client.post(f"/v1/accounts/{tenant.account}/invoices", data=pdf_bytes(tag),
                                headers={**self.headers(role, tenant),
                                         "Content-Type": "application/pdf"}).json

    def work(self):
        while Worker(self.services, name="test-worker").run_once():
            pass

    def deliver(self, **kw):
        """Every due delivery, one attempt each."""
        worker = DeliveryWorker(self.services, name="test-deliveries", **kw)
        while worker.run_once():
            pass

    def deliveries(self):
        with transaction(self.services.engine, write=False) as conn:
            return conn.execute(select(webhook_deliveries)
                                .order_by(webhook_deliveries.c.occurred_at)).all()

    def log(self, webhook_id, **query):
        return self.client.get(f"/v1/accounts/acme/webhooks/{webhook_id}/deliveries",
                               query_string=query, headers=self.headers())


@pytest.fixture
def env(make_services):
    # Long enough for a loaded machine's receiver thread to take a delivery in time, short
    # enough for the tests of a slow receiver.
    return Env(make_services(extractor=ControlledExtractor(), webhook_allow_networks=LOOPBACK,
                             webhook_timeout_seconds=3.0))


@pytest.fixture
def strict(make_services):
    """No allow-list: only public HTTPS addresses."""
    return Env(make_services(extractor=ControlledExtractor()))


def test_registration_shows_the_secret_once_and_only_customers_manage(env):
    created = env.register("https://hooks.example/ledgerline",
                           ["invoice.failed", "invoice.completed"])
    assert created.status_code == 201
    hook = created.json
    assert hook["secret"].startswith("whsec_") and hook["events"] == ["invoice.completed",
                                                                      "invoice.failed"]
    assert created.headers["Location"] == f"/v1/accounts/acme/webhooks/{hook['id']}"
    shown = env.client.get(created.headers["Location"], headers=env.headers()).json
    assert "secret" not in shown and shown["status"] == "enabled"
    listed = env.client.get("/v1/accounts/acme/webhooks", headers=env.headers()).json["items"]
    assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in listed[0]
    assert env.register("https://hooks.example/x", role="supplier").status_code == 403
    assert env.client.get("/v1/accounts/acme/webhooks",
                          headers=env.headers("dashboard")).status_code == 403
    other = env.client.get(f"/v1/accounts/globex/webhooks/{hook['id']}",
                           headers=env.headers(tenant=env.globex))
    assert other.status_code == 404
    assert env.client.get(f"/v1/accounts/acme/webhooks/{hook['id']}",
                          headers=env.headers(tenant=env.globex)).status_code == 404
    assert env.client.delete(created.headers["Location"], headers=env.headers()).status_code == 204
    assert env.client.get(created.headers["Location"], headers=env.headers()).status_code == 404


@pytest.mark.parametrize("url, status", [
    ("http://hooks.example/plain", 422),        # plain HTTP outside the allow-list
    ("https://127.0.0.1/in", 422),              # loopback
    ("https://localhost:8443/in", 422),
    ("https://[::1]/in", 422),
    ("https://169.254.169.254/latest/meta-data", 422),  # cloud metadata
    ("https://10.1.2.3/in", 422),
    ("https://[::ffff:192.168.1.1]/in", 422),   # a private address inside IPv6
    ("https://100.64.0.1/in", 422),             # carrier-grade NAT, not public
    ("ftp://hooks.example/in", 400),
    ("https://user:pw@hooks.example/in", 400),
    ("hooks.example/in", 400),
])
def test_addresses_nobody_may_call_are_refused_at_registration(strict, url, status):
    resp = strict.register(url)
    assert resp.status_code == status, resp.json
    assert resp.json["code"] == ("webhook_url_refused" if status == 422 else "bad_request")


@pytest.mark.parametrize("allow, url, status", [
    ("127.0.0.1/32", "http://[2002:7f00:1::1]:8080/in", 422),   # 6to4 is not 127.0.0.1
    ("127.0.0.1/32", "https://[2002:7f00:1::1]/in", 422),       # and it carries loopback
    ("2002:7f00:1::/48", "http://[2002:7f00:1::1]/in", 201),    # allowed as itself
    ("127.0.0.1/32", "http://[::ffff:127.0.0.1]:8080/in", 201),  # mapped: reaches 127.0.0.1
])
def test_an_address_is_judged_as_the_one_connected_to(make_services, allow, url, status):
    env = Env(make_services(extractor=ControlledExtractor(), webhook_allow_networks=allow))
    resp = env.register(url)
    assert resp.status_code == status, resp.json


def test_events_are_validated(env):
    for events in ([], ["invoice.exploded"], "invoice.completed", [1]):
        assert env.register("https://hooks.example/x", events).status_code == 400
    extra = env.client.post("/v1/accounts/acme/webhooks", headers=env.headers(), json={
        "url": "https://hooks.example/x", "events": ["invoice.completed"], "retry": True})
    assert extra.status_code == 400


def test_every_change_writes_its_event_in_the_same_transaction(make_services):
    failing = ControlledExtractor(failures=[ExtractionError("pdf_encrypted", "locked")])
    env = Env(make_services(extractor=failing))
    env.register("https://hooks.example/all", ["invoice.completed", "invoice.failed",
                                               "invoice.corrected", "invoice.deleted"])
    env.register("https://hooks.example/deleted-only", ["invoice.deleted"])
    broken = env.upload("broken")
    env.work()  # fails: invoice.failed
    leader = env.upload("shared")
    joined = env.upload("shared", role="supplier")
    env.work()  # one publish: invoice.completed for both
    hit = env.upload("shared", role="supplier2")  # served from the cache: completed at once
    env.client.patch(f"/v1/accounts/acme/invoices/{leader['id']}", headers=env.headers(),
                     json={"fields": {"purchase_order": "PO-1"}})
    env.client.delete(f"/v1/accounts/acme/invoices/{joined['id']}", headers=env.headers())
    events = [(d.type, d.invoice_id, d.detail) for d in env.deliveries()
              if d.endpoint_id == _endpoint(env, "all")]
    assert sorted(events) == sorted([
        ("invoice.failed", broken["id"], "pdf_encrypted"),
        ("invoice.completed", leader["id"], None), ("invoice.completed", joined["id"], None),
        ("invoice.completed", hit["id"], None), ("invoice.corrected", leader["id"], "1"),
        ("invoice.deleted", joined["id"], None)])
    only = [(d.type, d.invoice_id) for d in env.deliveries()
            if d.endpoint_id == _endpoint(env, "deleted-only")]
    assert only == [("invoice.deleted", joined["id"])]
    assert len({d.id for d in env.deliveries()}) == 7


def test_a_job_the_claim_gives_up_on_writes_its_failure_events_in_that_claim(make_services):
    """The claim that fails a job past its attempts (one statement on PostgreSQL) writes the
    events of its invoice and its joiner, with the ids a failure anywhere else would have."""
    from ledgerline.domain.jobs import MAX_ATTEMPTS
    from ledgerline.domain.webhooks import event_id
    from tests.integration.test_jobs_and_workers import claim, expire_leases

    env = Env(make_services(extractor=ControlledExtractor()))
    env.register("https://hooks.example/failed", ["invoice.failed"])
    leader, joined = env.upload("vanishing"), env.upload("vanishing", role="supplier")
    for attempt in range(MAX_ATTEMPTS):  # each claim's worker vanishes
        held = claim(env.services, f"w{attempt}")
        expire_leases(env.services)
    env.work()  # the next claim gives up
    events = sorted((d.invoice_id, d.type, d.detail, d.event_id) for d in env.deliveries())
    job = held.claim.job_id
    assert events == sorted(
        (invoice["id"], "invoice.failed", "attempts_exhausted",
         event_id(invoice["id"], "invoice.failed", job)) for invoice in (leader, joined))


def _endpoint(env, suffix):
    with transaction(env.services.engine, write=False) as conn:
        return conn.execute(select(webhook_endpoints.c.id)
                            .where(webhook_endpoints.c.url.endswith(suffix))).scalar()


def test_deliveries_are_signed_the_standard_webhooks_way_and_logged(env):
    receiver = Receiver()
    with receiving(receiver) as base:
        hook = env.register(f"{base}/hooks/in", ["invoice.completed"]).json
        receiver.secret = hook["secret"]
        invoice = env.upload("signed")
        env.work()
        env.deliver()
    [got] = receiver.received
    assert got.verified is True
    assert got.headers["webhook-id"] == f"{invoice['id']}.completed.{_job_of(env, invoice)}"
    assert got.headers["Content-Type"] == "application/json"
    assert got.event["type"] == "invoice.completed"
    assert got.event["data"] == {
        "account": "acme", "invoice_id": invoice["id"],
        "url": f"/v1/accounts/acme/invoices/{invoice['id']}", "status": "completed",
        "version": 0, "document_type": "invoice",
        "review": {"state": "not_required", "reasons": []},
        "currency": "EUR", "gross_total": "119.00", "amount_due": None}
    [item] = env.log(hook["id"]).json["items"]
    assert item["status"] == "delivered" and item["attempts"] == 1
    assert item["log"][0]["status_code"] == 200 and item["log"][0]["response_excerpt"] == "thanks"
    assert item["log"][0]["outcome"] == "delivered"


def _job_of(env, invoice):
    from ledgerline.adapters.db.tables import invoices

    with transaction(env.services.engine, write=False) as conn:
        return conn.execute(select(invoices.c.job_id)
                            .where(invoices.c.id == invoice["id"])).scalar()


def test_failures_are_retried_within_seconds_with_the_same_webhook_id(env):
    receiver = Receiver(plan=[FAIL, DROP, SLOW], slow_seconds=4.0)
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in").json
        receiver.secret = hook["secret"]
        env.upload("flaky")
        env.work()
        delays = []
        for _ in range(3):
            env.deliver()
            [row] = env.deliveries()
            assert row.status == "pending"
            delays.append((row.next_attempt_at - _last_attempt_ended(env)).total_seconds())
            _due_now(env)
        env.deliver()
    assert [r.answered for r in receiver.received] == [FAIL, DROP, SLOW, "ok"]
    assert len({r.headers["webhook-id"] for r in receiver.received}) == 1
    assert all(r.verified for r in receiver.received)
    assert 2.5 <= delays[0] <= 5.0 + 1      # the first retry within 5 s
    assert 15.0 <= delays[1] <= 30.0 + 1    # the second within 30 s of that
    assert 60.0 <= delays[2] <= 120.0 + 1   # then exponential
    log = env.log(hook["id"]).json["items"][0]["log"]
    assert [a["status_code"] for a in log] == [500, None, None, 200]
    assert "timed out" in log[2]["error"] and log[1]["error"]
    assert env.log(hook["id"], status="delivered").json["items"][0]["attempts"] == 4


def _last_attempt_ended(env):
    """When the last attempt failed: a retry's delay counts from the failure, and a timed-out
    attempt ends its timeout (4 s here, longer on a loaded machine) after it started."""
    from ledgerline.adapters.db.tables import webhook_attempts

    with transaction(env.services.engine, write=False) as conn:
        started, duration_ms = conn.execute(
            select(webhook_attempts.c.started_at, webhook_attempts.c.duration_ms)
            .order_by(webhook_attempts.c.id.desc()).limit(1)).one()
    return started + timedelta(milliseconds=duration_ms)


def _due_now(env):
    with transaction(env.services.engine, write=True) as conn:
        conn.execute(update(webhook_deliveries).values(next_attempt_at=db_now_plus(-1)))


def _statements_of(env, run):
    """What `run()` returned, and the statements it sent (SQLite's BEGINs among them)."""
    sent = []

    def record(conn, cursor, statement, *args):
        sent.append(" ".join(statement.split()))

    event.listen(env.services.engine, "before_cursor_execute", record)
    try:
        result = run()
    finally:
        event.remove(env.services.engine, "before_cursor_execute", record)
    return result, sent


def test_an_idle_delivery_thread_asks_once_and_locks_nothing(env):
    """Twice a second in every worker process, with webhooks or none: one read, never a
    write transaction (SQLite's write lock) or a row lock, until a delivery is due."""
    worker = DeliveryWorker(env.services, name="idle-deliveries")
    receiver = Receiver(plan=[FAIL])
    with receiving(receiver) as base:
        env.register(f"{base}/in")
        for when in ("nothing at all", "a retry not yet due"):
            done, sent = _statements_of(env, worker.run_once)
            assert done is False, when
            asked = [s for s in sent if s.upper() != "BEGIN"]
            assert len(asked) == 1, (when, sent)
            assert not any("FOR UPDATE" in s.upper() or "IMMEDIATE" in s.upper()
                           for s in sent), (when, sent)
            if when == "nothing at all":
                env.upload("idle")
                env.work()
                env.deliver()  # fails once: its retry is due in seconds, not now
        _due_now(env)
        done, sent = _statements_of(env, worker.run_once)  # due: claimed and attempted
    assert done is True and len(receiver.received) == 2


def test_a_delivery_is_given_up_after_three_days_and_the_endpoint_disabled_after_five(env):
    receiver = Receiver(default=FAIL)
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in").json
        env.upload("doomed")
        env.work()
        env.deliver()
        with transaction(env.services.engine, write=True) as conn:  # three days later
            conn.execute(update(webhook_deliveries).values(
                first_attempt_at=db_now_plus(-3 * 86400 - 60), next_attempt_at=db_now_plus(-1)))
        env.deliver()
        assert env.deliveries()[0].status == "failed"
        env.upload("doomed-2")
        env.work()
        with transaction(env.services.engine, write=True) as conn:  # failing for five days
            conn.execute(update(webhook_endpoints).values(
                failing_since=db_now_plus(-5 * 86400 - 60)))
        env.deliver()
        shown = env.client.get(f"/v1/accounts/acme/webhooks/{hook['id']}",
                               headers=env.headers()).json
        assert shown["status"] == "disabled" and "5 days" in shown["disabled_reason"]
        assert "HTTP 500" in shown["disabled_reason"]
        env.upload("doomed-3")
        env.work()
        _due_now(env)
        sent = len(receiver.received)
        env.deliver()
        assert len(receiver.received) == sent  # nothing goes to a disabled endpoint
        # Fixed: a replay sends everything again and enables the endpoint.
        receiver.default = "ok"
        replayed = env.client.post(f"/v1/accounts/acme/webhooks/{hook['id']}/replay",
                                   json={"since": "2000-01-01T00:00:00Z"}, headers=env.headers())
        assert replayed.status_code == 202 and replayed.json == {"replayed": 3}
        env.deliver()
    assert {d.status for d in env.deliveries()} == {"delivered"}
    shown = env.client.get(f"/v1/accounts/acme/webhooks/{hook['id']}", headers=env.headers()).json
    assert shown["status"] == "enabled" and shown["failing_since"] is None


def test_a_replay_by_event_id_resends_with_the_same_id(env):
    receiver = Receiver()
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in").json
        env.upload("again")
        env.work()
        env.deliver()
        event_id = receiver.received[0].headers["webhook-id"]
        resp = env.client.post(f"/v1/accounts/acme/webhooks/{hook['id']}/replay",
                               json={"event_ids": [event_id]}, headers=env.headers())
        assert resp.json == {"replayed": 1}
        env.deliver()
    assert [r.headers["webhook-id"] for r in receiver.received] == [event_id, event_id]
    for bad in ({}, {"since": "yesterday"}, {"since": "2026-11-29T10:00:00"},
                {"event_ids": []}, {"since": "2026-11-29T10:00:00Z", "event_ids": ["x"]}):
        assert env.client.post(f"/v1/accounts/acme/webhooks/{hook['id']}/replay", json=bad,
                               headers=env.headers()).status_code == 400, bad


def test_the_address_is_checked_after_resolution_and_nothing_is_sent(strict):
    """A public-looking name that resolves to a private address is refused at delivery."""
    receiver = Receiver()
    with receiving(receiver):
        hook = strict.register("https://hooks.example/in").json
        strict.upload("rebind")
        strict.work()
        for address in ("127.0.0.1", "169.254.169.254", "10.0.0.7", "::ffff:127.0.0.1"):
            _due_now(strict)
            strict.deliver(resolver=lambda host, port, a=address: ["93.184.216.34", a])
    assert receiver.received == []
    log = strict.log(hook["id"]).json["items"][0]["log"]
    assert [a["status_code"] for a in log] == [None] * 4
    assert "loopback" in log[0]["error"] and "link-local" in log[1]["error"]
    assert "private" in log[2]["error"] and "loopback" in log[3]["error"]
    assert all(a["error"].startswith("refused: hooks.example") for a in log)


def test_a_redirect_is_checked_like_the_first_address(env):
    inside, outside = Receiver(), Receiver(host="127.0.0.2")
    with receiving(inside) as allowed, receiving(outside) as forbidden:
        target = forbidden.replace("/", "~") + "~stolen"
        hook = env.register(f"{allowed}/redirect-to/{target}").json
        env.upload("redirected")
        env.work()
        env.deliver()
        follow = env.register(f"{allowed}/redirect-to/{(allowed + '/final').replace('/', '~')}")
        env.upload("followed")
        env.work()
        _due_now(env)
        env.deliver()
    assert outside.received == []  # 127.0.0.2 is loopback and not in the allow-list
    first = env.log(hook["id"]).json["items"]
    assert any("127.0.0.2" in (i["last_error"] or "") for i in first)
    assert [r.path for r in inside.received if r.path == "/final"]
    assert follow.status_code == 201


def test_a_worker_that_lost_its_delivery_lease_changes_nothing(env):
    receiver = Receiver()
    with receiving(receiver) as base:
        env.register(f"{base}/in")
        env.upload("leased")
        env.work()
        from ledgerline.adapters.db import outbox

        with transaction(env.services.engine, write=True) as conn:
            stale = outbox.claim(conn, "stale-worker", 60)
        with transaction(env.services.engine, write=True) as conn:  # its lease runs out
            conn.execute(update(webhook_deliveries).values(lease_expires_at=db_now_plus(-1)))
            conn.execute(update(webhook_endpoints).values(busy_until=db_now_plus(-1)))
        env.deliver()  # another worker takes it over and delivers
        attempt = outbox.Attempt(stale.now, 5, "http_error", 500, "HTTP 500", None)
        with transaction(env.services.engine, write=True) as conn:
            assert outbox.failed(conn, stale, attempt, retry_in=5, give_up_after=1e9,
                                 disable_after=1e9) is None
    [row] = env.deliveries()
    assert row.status == "delivered" and row.attempts == 2


def test_concurrent_delivery_workers_share_the_queue_without_sending_twice(env):
    receiver = Receiver()
    with receiving(receiver) as base:
        env.register(f"{base}/in")
        for n in range(12):
            env.upload(f"many-{n}")
        env.work()
        threads = [threading.Thread(target=env.deliver) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    ids = [r.headers["webhook-id"] for r in receiver.received]
    assert len(ids) == 12 and len(set(ids)) == 12


# --- what an integrator acts on ---------------------------------------------------------------

class Reviewed(ControlledExtractor):
    """Extractions that ask for review, with an amount due. (Their document type is the
    default, an invoice: the published result names none yet.)"""

    def extract(self, path, content_hash, context=None):
        document = super().extract(path, content_hash)
        document["fields"]["amount_due"] = {"value": "-50.00", "confidence": 0.9,
                                            "raw": "-50.00", "page": 1, "bbox": None}
        document["review"] = {"required": True, "reasons": ["amount_due: low confidence (0.4)"]}
        return document


def test_an_event_carries_what_a_receiver_decides_on(make_services):
    failing = Reviewed(failures=[ExtractionError("pdf_encrypted", "locked")])
    env = Env(make_services(extractor=failing, webhook_allow_networks=LOOPBACK))
    receiver = Receiver()
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in", ["invoice.completed", "invoice.failed",
                                           "invoice.corrected", "invoice.deleted"]).json
        receiver.secret = hook["secret"]
        broken = env.upload("locked")
        env.work()
        env.deliver()
        credit = env.upload("credit")
        env.work()
        env.deliver()
        env.client.patch(f"/v1/accounts/acme/invoices/{credit['id']}", headers=env.headers(),
                         json={"fields": {"purchase_order": "PO-7"}})
        env.deliver()
        env.client.delete(f"/v1/accounts/acme/invoices/{credit['id']}", headers=env.headers())
        env.deliver()
    assert all(r.verified for r in receiver.received)
    events = {r.event["type"]: r.event["data"] for r in receiver.received}
    assert events["invoice.failed"] == {
        "account": "acme", "invoice_id": broken["id"],
        "url": f"/v1/accounts/acme/invoices/{broken['id']}", "status": "failed", "version": 0,
        "document_type": None, "review": None, "currency": None, "gross_total": None,
        "amount_due": None, "error_code": "pdf_encrypted"}
    completed = events["invoice.completed"]
    assert {k: completed[k] for k in ("status", "version", "document_type", "review", "currency",
                                      "gross_total", "amount_due")} == {
        "status": "completed", "version": 0, "document_type": "invoice",
        "review": {"state": "required", "reasons": ["amount_due: low confidence (0.4)"]},
        "currency": "EUR", "gross_total": "119.00", "amount_due": "-50.00"}
    assert events["invoice.corrected"]["version"] == 1
    assert events["invoice.corrected"]["status"] == "completed"
    assert events["invoice.deleted"]["status"] == "deleted"


def test_every_attempt_of_an_event_sends_the_same_bytes(env):
    receiver = Receiver(plan=[FAIL])
    with receiving(receiver) as base:
        env.register(f"{base}/in")
        invoice = env.upload("same-bytes")
        env.work()
        env.deliver()
        env.client.patch(f"/v1/accounts/acme/invoices/{invoice['id']}", headers=env.headers(),
                         json={"fields": {"purchase_order": "PO-8"}})  # version 1 now
        _due_now(env)
        env.deliver()
    first, again = receiver.received
    assert (first.answered, again.answered) == (FAIL, "ok")
    assert first.body == again.body and first.event["data"]["version"] == 0


def test_a_test_event_is_a_signed_ping_in_the_delivery_log(env):
    receiver = Receiver()
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in").json
        receiver.secret = hook["secret"]
        sent = env.client.post(f"/v1/accounts/acme/webhooks/{hook['id']}/test",
                               headers=env.headers())
        assert sent.status_code == 202 and sent.json["type"] == "ping"
        assert sent.headers["Location"] == f"/v1/accounts/acme/webhooks/{hook['id']}/deliveries"
        env.deliver()
    [got] = receiver.received
    assert got.verified is True and got.headers["webhook-id"] == sent.json["event_id"]
    assert got.event["type"] == "ping"
    assert got.event["data"] == {"account": "acme", "webhook_id": hook["id"]}
    [item] = env.log(hook["id"]).json["items"]
    assert (item["type"], item["invoice_id"], item["status"]) == ("ping", None, "delivered")
    assert env.client.post(f"/v1/accounts/acme/webhooks/{hook['id']}/test",
                           headers=env.headers("supplier")).status_code == 403
    assert env.client.post(f"/v1/accounts/globex/webhooks/{hook['id']}/test",
                           headers=env.headers(tenant=env.globex)).status_code == 404


def test_a_ping_is_tried_once_and_reaches_a_disabled_endpoint(env):
    receiver = Receiver(plan=[FAIL])
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in").json
        ping = f"/v1/accounts/acme/webhooks/{hook['id']}/test"
        env.client.post(ping, headers=env.headers())
        env.deliver()
        [failed] = env.log(hook["id"]).json["items"]
        assert failed["status"] == "failed" and failed["attempts"] == 1
        shown = env.client.get(f"/v1/accounts/acme/webhooks/{hook['id']}", headers=env.headers())
        assert shown.json["failing_since"] is None  # a ping says nothing of the deliveries
        with transaction(env.services.engine, write=True) as conn:
            conn.execute(update(webhook_endpoints).values(disabled_at=db_now_plus(0),
                                                          disabled_reason="tests"))
        env.client.post(ping, headers=env.headers())
        env.deliver()
    assert [r.answered for r in receiver.received] == [FAIL, "ok"]
    shown = env.client.get(f"/v1/accounts/acme/webhooks/{hook['id']}", headers=env.headers())
    assert shown.json["status"] == "disabled"  # a replay enables it, a ping does not


def test_patch_changes_an_endpoints_url_or_events(env):
    old, new = Receiver(), Receiver()
    with receiving(old) as old_url, receiving(new) as new_url:
        hook = env.register(f"{old_url}/in").json
        path = f"/v1/accounts/acme/webhooks/{hook['id']}"
        changed = env.client.patch(path, headers=env.headers(), json={"url": f"{new_url}/in"})
        assert changed.status_code == 200
        assert changed.json["url"] == f"{new_url}/in"
        assert changed.json["events"] == ["invoice.completed"] and "secret" not in changed.json
        env.upload("moved")
        env.work()
        env.deliver()
        assert (len(old.received), len(new.received)) == (0, 1)
        changed = env.client.patch(path, headers=env.headers(), json={"events": ["invoice.failed"]})
        assert changed.json["events"] == ["invoice.failed"]
        env.upload("not-subscribed")
        env.work()
        env.deliver()
        assert len(new.received) == 1
    for body, status in (({}, 400), ({"secret": "x"}, 400), ({"url": "ftp://x/y"}, 400),
                         ({"events": ["invoice.exploded"]}, 400), ([], 400),
                         ({"url": "https://10.0.0.1/in"}, 422)):
        resp = env.client.patch(path, headers=env.headers(), json=body)
        assert resp.status_code == status, (body, resp.json)
    assert env.client.get(path, headers=env.headers()).json["url"] == f"{new_url}/in"
    assert env.client.patch(path, headers=env.headers("supplier"),
                            json={"events": ["invoice.completed"]}).status_code == 403
    assert env.client.patch(f"/v1/accounts/globex/webhooks/{hook['id']}",
                            headers=env.headers(tenant=env.globex),
                            json={"events": ["invoice.completed"]}).status_code == 404


def test_a_rotated_secret_signs_beside_the_new_one_for_its_grace_period(env):
    receiver = Receiver()
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in").json
        path = f"/v1/accounts/acme/webhooks/{hook['id']}"
        rotated = env.client.post(f"{path}/secret/rotate", headers=env.headers(),
                                  json={"grace_seconds": 3600})
        assert rotated.status_code == 200
        old, new = hook["secret"], rotated.json["secret"]
        assert new.startswith("whsec_") and new != old
        assert rotated.json["previous_secret_expires_at"]
        shown = env.client.get(path, headers=env.headers()).json
        assert "secret" not in shown and shown["previous_secret_expires_at"]
        receiver.secrets = (old, new)
        env.upload("during-grace")
        env.work()
        env.deliver()
        with transaction(env.services.engine, write=True) as conn:  # the grace period ends
            conn.execute(update(webhook_endpoints)
                         .values(previous_secret_until=db_now_plus(-1)))
        env.upload("after-grace")
        env.work()
        env.deliver()
    during, after = receiver.received
    assert len(during.headers["webhook-signature"].split()) == 2
    assert during.verified_by == (old, new)
    assert after.verified_by == (new,) and len(after.headers["webhook-signature"].split()) == 1


def test_rotation_takes_a_grace_period_or_its_default(env):
    hook = env.register("https://hooks.example/in").json
    rotate = f"/v1/accounts/acme/webhooks/{hook['id']}/secret/rotate"
    default = env.client.post(rotate, headers=env.headers())
    assert default.status_code == 200 and default.json["previous_secret_expires_at"]
    at_once = env.client.post(rotate, headers=env.headers(), json={"grace_seconds": 0})
    assert at_once.status_code == 200 and at_once.json["previous_secret_expires_at"] is None
    for bad in ({"grace_seconds": -1}, {"grace_seconds": 8 * 86400}, {"grace_seconds": "1"},
                {"grace_seconds": True}, {"grace": 5}, [5]):
        assert env.client.post(rotate, headers=env.headers(), json=bad).status_code == 400, bad
    assert env.client.post(rotate, headers=env.headers("supplier")).status_code == 403
    assert env.client.post(f"/v1/accounts/acme/webhooks/whk_{'0' * 24}/secret/rotate",
                           headers=env.headers()).status_code == 404


def test_deleting_an_endpoint_cancels_its_deliveries_cleanly(env, caplog):
    """One delivery in flight, one pending: the DELETE answers at once, the attempt in flight
    ends and is recorded nowhere, the pending one is never sent, nothing is logged as an
    error."""
    from tests.integration.test_webhook_attempts import delivering, wait_until

    receiver = Receiver(plan=[HOLD])
    with receiving(receiver) as base:
        hook = env.register(f"{base}/in").json
        env.upload("in-flight")
        env.upload("pending")
        env.work()
        with delivering(env, threads=1):
            assert receiver.holding.wait(10)
            deleted = env.client.delete(f"/v1/accounts/acme/webhooks/{hook['id']}",
                                        headers=env.headers())
            assert deleted.status_code == 204
            receiver.released.set()
            wait_until(lambda: receiver.received[0].ended, 10, "the held attempt to end")
            time.sleep(0.5)  # the worker records its outcome, or would
    assert len(receiver.received) == 1
    assert [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")] == []
    assert env.deliveries() == []
    from ledgerline.adapters.db.tables import webhook_attempts

    with transaction(env.services.engine, write=False) as conn:
        assert conn.execute(select(webhook_attempts)).all() == []
