"""Webhook attempts against receivers that misbehave on loopback, on every backend: every
attempt ends within LEDGERLINE_WEBHOOK_TIMEOUT_SECONDS whatever the receiver does (drips its
status line or its body, hangs, never finishes a TLS handshake), no delivery is ever in flight
twice, a slow endpoint delays another account's deliveries by one attempt at most, the
delivery log tells how each attempt failed, and the address policy judges the address
connected to, at every hop."""
from __future__ import annotations

import contextlib
import itertools
import socket
import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import webhook_attempts, webhook_deliveries
from ledgerline.service_layer.webhooks import DeliveryWorker
from tests.fakes import ControlledExtractor
from tests.integration.test_webhooks import LOOPBACK, Env
from tests.webhook_receiver import (
    DRIP,
    DROP,
    FAIL,
    HANG,
    OK,
    SLOW_BODY,
    Receiver,
    closed_port,
    receiving,
    silent_listener,
    untrusted_tls,
)

TIMEOUT = 1.0
# An attempt's own time (its log's duration_ms) may pass the timeout by the deadline timer's
# and the threads' scheduling; a delivery's wall time adds the database's transactions. Both
# stay far below what the receivers here would take without a deadline (13 s).
SLACK = 1.0
WALL_SLACK = 3.0


@pytest.fixture
def env(make_services):
    return Env(make_services(extractor=ControlledExtractor(), webhook_allow_networks=LOOPBACK,
                             webhook_timeout_seconds=TIMEOUT))


@contextlib.contextmanager
def delivering(env, threads: int = 1, **kw):
    """Delivery threads polling every 50 ms, as `serve` and `worker` run them."""
    stop = threading.Event()
    workers = [threading.Thread(target=DeliveryWorker(env.services, name=f"deliveries-{n}",
                                                      poll_interval=0.05, **kw).run,
                                args=(stop,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        stop.set()
        for worker in workers:
            worker.join(30)


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.02)


def attempts(env) -> list:
    """Every logged attempt with its delivery's endpoint, oldest first."""
    a, d = webhook_attempts, webhook_deliveries
    with transaction(env.services.engine, write=False) as conn:
        return conn.execute(select(a, d.c.endpoint_id, d.c.event_id)
                            .join(d, d.c.id == a.c.delivery_id).order_by(a.c.id)).all()


def one_event(env, url: str, tag: str) -> dict:
    hook = env.register(url).json
    env.upload(tag)
    env.work()
    return hook


@pytest.mark.parametrize("action, outcome, status", [
    (DRIP, "timeout", None),        # the status line a byte every 0.3 s: 13 s in all
    (HANG, "timeout", None),        # reads the request, never answers
    (SLOW_BODY, "delivered", 200),  # answers at once, then drips 600 bytes of body
])
def test_every_attempt_ends_within_the_timeout(env, action, outcome, status):
    receiver = Receiver(default=action)
    with receiving(receiver) as base:
        hook = one_event(env, f"{base}/in", f"slow-{action}")
        began = time.monotonic()
        env.deliver()
        took = time.monotonic() - began
    [attempt] = env.log(hook["id"]).json["items"][0]["log"]
    assert attempt["duration_ms"] < (TIMEOUT + SLACK) * 1000 and took < TIMEOUT + WALL_SLACK
    assert (attempt["outcome"], attempt["status_code"]) == (outcome, status), attempt
    if action == SLOW_BODY:  # what of the body came within the time is the excerpt
        assert attempt["response_excerpt"] and set(attempt["response_excerpt"]) == {"x"}
    else:
        assert attempt["error"].startswith(f"timed out after {TIMEOUT:g} s")


def test_a_tls_handshake_that_never_ends_times_out(env):
    with silent_listener() as address:
        hook = one_event(env, f"https://{address}/in", "tls-silent")
        began = time.monotonic()
        env.deliver()
        took = time.monotonic() - began
    [attempt] = env.log(hook["id"]).json["items"][0]["log"]
    assert attempt["duration_ms"] < (TIMEOUT + SLACK) * 1000 and took < TIMEOUT + WALL_SLACK
    assert attempt["outcome"] == "timeout" and "TLS handshake" in attempt["error"]


def test_how_an_attempt_failed_is_told_apart_in_the_delivery_log(env):
    """Refused, DNS, TLS, timeout, an HTTP error and a dropped connection each say so; a
    refused connection is not 'timed out'."""
    def no_such_name(host, port):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    broken, hanging, dropping = Receiver(default=FAIL), Receiver(default=HANG), Receiver(
        default=DROP)
    with receiving(broken) as failing, receiving(hanging) as hangs, \
            receiving(dropping) as drops, receiving(Receiver(), tls=untrusted_tls()) as tls:
        urls = {"connection_refused": f"http://127.0.0.1:{closed_port()}/in",
                "dns_failure": "http://hooks.invalid/in", "tls_failure": f"{tls}/in",
                "timeout": f"{hangs}/in", "http_error": f"{failing}/in",
                "connection_closed": f"{drops}/in"}
        hooks = {kind: env.register(url).json["id"] for kind, url in urls.items()}
        env.upload("kinds")
        env.work()
        counted = {kind: _counted(kind) for kind in urls}
        env.deliver(resolver=no_such_name)
    # On a loaded machine the round can outlast the first retry's delay (2.5 s at least), and a
    # failed delivery is then tried again, failing the same way: each attempt is counted once.
    tries = {kind: env.log(hook).json["items"][0]["log"] for kind, hook in hooks.items()}
    assert {kind: {a["outcome"] for a in log} for kind, log in tries.items()} == {
        k: {k} for k in urls}
    assert {kind: _counted(kind) - before for kind, before in counted.items()} == {
        kind: float(len(tries[kind])) for kind in urls}  # ledgerline_webhook_deliveries_total
    logged = {kind: log[0] for kind, log in tries.items()}
    assert logged["connection_refused"]["error"].startswith("connection refused by 127.0.0.1:")
    assert logged["dns_failure"]["error"].startswith("DNS: cannot resolve hooks.invalid")
    assert "CERTIFICATE_VERIFY_FAILED" in logged["tls_failure"]["error"].upper().replace(
        " ", "_") or "certificate" in logged["tls_failure"]["error"]
    assert logged["timeout"]["error"].startswith("timed out")
    assert logged["http_error"]["status_code"] == 500
    assert "closed the connection" in logged["connection_closed"]["error"]
    assert not any("timed out" in a["error"] for k, a in logged.items() if k != "timeout")


def _counted(outcome: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("ledgerline_webhook_deliveries_total",
                                     {"outcome": outcome}) or 0.0


def test_a_slow_endpoint_delays_another_accounts_deliveries_by_one_attempt_at_most(env):
    """One delivery thread; acme's receiver hangs, with eight deliveries waiting. Between the
    moment each of globex's events is written and its delivery, no attempt to acme starts:
    each waits for the attempt in flight at most (times from the database's clock, as the
    log's)."""
    slow, fast = Receiver(default=HANG), Receiver()
    with receiving(slow) as slow_url, receiving(fast) as fast_url:
        slow_hook = env.register(f"{slow_url}/in").json["id"]
        env.client.post("/v1/accounts/globex/webhooks", headers=env.headers(tenant=env.globex),
                        json={"url": f"{fast_url}/in", "events": ["invoice.completed"]})
        for n in range(8):
            env.upload(f"backlog-{n}")
        env.work()
        with delivering(env, threads=1):
            wait_until(lambda: slow.received, 10, "the first slow attempt")
            for n in range(3):
                time.sleep(0.4)
                env.upload_to(env.globex, f"other-{n}")
                env.work()
            wait_until(lambda: len(fast.received) == 3, 30, "globex's three events")
    logged = attempts(env)
    with transaction(env.services.engine, write=False) as conn:
        written = dict(conn.execute(select(webhook_deliveries.c.event_id,
                                           webhook_deliveries.c.occurred_at)
                                    .where(webhook_deliveries.c.account == "globex")).all())
    slow_starts = [a.started_at for a in logged if a.endpoint_id == slow_hook]
    for sent in (a for a in logged if a.event_id in written):
        overtaking = [at for at in slow_starts if written[sent.event_id] < at < sent.started_at]
        assert overtaking == [], (sent.event_id, overtaking)
    assert len(slow.received) < 8  # globex did not wait behind acme's backlog


def test_a_slow_endpoint_holds_one_delivery_thread_and_the_others_serve_the_rest(env):
    """Two threads; of acme's two endpoints one hangs: the other gets its five events at once,
    and the hanging one never has two attempts at a time."""
    slow, fast = Receiver(default=HANG), Receiver()
    with receiving(slow) as slow_url, receiving(fast) as fast_url:
        slow_hook = env.register(f"{slow_url}/in").json["id"]
        env.register(f"{fast_url}/in")
        for n in range(5):
            env.upload(f"both-{n}")
        env.work()
        began = time.monotonic()
        with delivering(env, threads=2):
            wait_until(lambda: len(fast.received) == 5, 10, "the fast endpoint's events")
            took = time.monotonic() - began
            time.sleep(TIMEOUT)
    assert took < TIMEOUT + WALL_SLACK, took
    spans = sorted((a.started_at, a.started_at + timedelta(milliseconds=a.duration_ms))
                   for a in attempts(env) if a.endpoint_id == slow_hook)
    assert spans and all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))


def test_a_delivery_is_never_in_flight_twice(env):
    """Three threads for longer than a delivery lease (2 x timeout + 5 s) against a receiver
    that would drip one answer for 13 s: each attempt ends in time, and no attempt of a
    delivery starts before the one before it ended."""
    receiver = Receiver(default=DRIP)
    with receiving(receiver) as base:
        env.register(f"{base}/in")
        env.upload("drip-1")
        env.upload("drip-2")
        env.work()
        lease = DeliveryWorker(env.services).lease_seconds
        with delivering(env, threads=3):
            time.sleep(lease + 1)
    logged = attempts(env)
    assert len(logged) == len(receiver.received) >= 2  # every attempt made is logged once
    assert all(a.duration_ms < (TIMEOUT + SLACK) * 1000 for a in logged)
    by_event: dict = {}
    for a in logged:
        by_event.setdefault(a.event_id, []).append(a)
    for tries in by_event.values():
        assert [a.attempt for a in tries] == list(range(1, len(tries) + 1))
        for before, after in itertools.pairwise(tries):
            assert before.started_at + timedelta(milliseconds=before.duration_ms) \
                <= after.started_at


SIX_TO_FOUR_LOOPBACK = "2002:7f00:1::1"  # 6to4 for 127.0.0.1; the connection goes to the IPv6


def test_a_6to4_address_is_judged_as_itself_after_resolution(env):
    """127.0.0.1 is allowed; a name resolving to 2002:7f00:1::1 is not, though it carries
    127.0.0.1: the connection would go to the IPv6 address."""
    hook = one_event(env, "http://hooks.example:8080/in", "six-to-four")
    env.deliver(resolver=lambda host, port: [SIX_TO_FOUR_LOOPBACK])
    [attempt] = env.log(hook["id"]).json["items"][0]["log"]
    assert attempt["outcome"] == "address_refused"
    assert f"{SIX_TO_FOUR_LOOPBACK} is not in it" in attempt["error"]


def test_a_redirect_to_a_6to4_address_is_judged_at_its_hop(make_services):
    # Not a test of the deadline: room for both hops on a loaded machine.
    env = Env(make_services(extractor=ControlledExtractor(), webhook_allow_networks=LOOPBACK,
                            webhook_timeout_seconds=10.0))
    receiver = Receiver()
    with receiving(receiver) as base:
        target = f"http://[{SIX_TO_FOUR_LOOPBACK}]:8080/in".replace("/", "~")
        hook = one_event(env, f"{base}/redirect-to/{target}", "hop")
        env.deliver()
    [attempt] = env.log(hook["id"]).json["items"][0]["log"]
    assert [r.answered for r in receiver.received] == ["redirect"]
    assert attempt["outcome"] == "address_refused" and SIX_TO_FOUR_LOOPBACK in attempt["error"]


def test_a_receiver_that_answers_at_once_is_still_delivered_to(env):
    receiver = Receiver(default=OK)
    with receiving(receiver) as base:
        hook = one_event(env, f"{base}/in", "plain")
        env.deliver()
    [attempt] = env.log(hook["id"]).json["items"][0]["log"]
    assert (attempt["outcome"], attempt["response_excerpt"]) == ("delivered", "thanks")


GEVENT_ATTEMPTS = """
from gevent import monkey; monkey.patch_all()
import json, time
from tests.webhook_receiver import DRIP, SLOW_BODY, Receiver, receiving, silent_listener
from ledgerline.adapters import webhook_http
from ledgerline.domain.webhooks import AddressPolicy, parse_networks
policy, seen = AddressPolicy(parse_networks("127.0.0.1/32")), {}
for action in (DRIP, SLOW_BODY):
    with receiving(Receiver(default=action)) as base:
        began = time.monotonic()
        answer = webhook_http.post(base + "/in", b"{}", {}, policy, timeout=1.0)
        seen[action] = [answer.outcome, time.monotonic() - began]
with silent_listener() as address:
    began = time.monotonic()
    answer = webhook_http.post(f"https://{address}/in", b"{}", {}, policy, timeout=1.0)
    seen["tls"] = [answer.outcome, time.monotonic() - began]
print(json.dumps(seen))
"""


def test_the_deadline_holds_in_a_gevent_process():
    """`serve` delivers from gunicorn's gevent workers: there the deadline's timer and the
    sockets it shuts down are gevent's."""
    import json
    import subprocess
    import sys

    from tests.conftest import REPO

    done = subprocess.run([sys.executable, "-c", GEVENT_ATTEMPTS], cwd=REPO, timeout=60,
                          capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert {k: outcome for k, (outcome, _) in seen.items()} == {
        DRIP: "timeout", SLOW_BODY: "delivered", "tls": "timeout"}
    assert all(took < TIMEOUT + SLACK for _, took in seen.values()), seen
