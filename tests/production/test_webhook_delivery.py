"""Webhook deliveries across a worker SIGKILL, on PostgreSQL + S3 with real `ledgerline serve`
and `ledgerline worker` processes: a receiver on loopback holds, fails, drops and times out,
and still every event arrives, signed (verified by the `standardwebhooks` library), under
one webhook-id per event."""
from __future__ import annotations

import signal
import time

import pytest
import requests

from ledgerline_tools.samples import generate
from tests.production.cluster import wait_for
from tests.webhook_receiver import DROP, FAIL, HOLD, OK, SLOW, Receiver, receiving

pytestmark = [pytest.mark.integration, pytest.mark.slow]

INVOICES = 5
TIMEOUT_SECONDS = 3  # one attempt; the delivery lease is 2 x this + 5 s
LEASE_SECONDS = 2 * TIMEOUT_SECONDS + 5


@pytest.fixture
def webhook_env(production):
    production.env.update(LEDGERLINE_WEBHOOK_ALLOW_NETWORKS="127.0.0.1/32",
                          LEDGERLINE_WEBHOOK_TIMEOUT_SECONDS=str(TIMEOUT_SECONDS))
    return production


def test_no_event_is_lost_when_a_delivering_worker_is_killed(webhook_env):
    production = webhook_env
    receiver = Receiver(plan=[HOLD, FAIL, DROP, SLOW], slow_seconds=TIMEOUT_SECONDS + 2)
    with receiving(receiver) as base:
        production.start_api(1)
        victim = production.start_worker("--deliveries", "1")
        hook = requests.post(f"{production.base}/v1/accounts/acme/webhooks", timeout=30,
                             json={"url": f"{base}/in",
                                   "events": ["invoice.completed", "invoice.failed"]},
                             headers={"Authorization": f"Bearer {production.keys['customer']}"})
        assert hook.status_code == 201, hook.text
        receiver.secret = hook.json()["secret"]
        invoices = set()
        for seed in range(INVOICES):
            pdf, _ = generate(40 + seed, lang="en")
            response = production.upload(pdf)
            assert response.status_code == 202, response.text
            invoices.add(response.json()["id"])
        assert receiver.holding.wait(120), victim.log()
        victim.signal_group(signal.SIGKILL)  # in the middle of a delivery
        killed = time.monotonic()
        receiver.released.set()
        production.start_worker("--deliveries", "1")
        wait_for(lambda: production.scalar(
            "SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'") == INVOICES,
            "every event to be delivered", timeout=LEASE_SECONDS + 120)
    delivered = receiver.delivered()
    events = {r.headers["webhook-id"]: r.event for r in delivered}
    assert {e["data"]["invoice_id"] for e in events.values()} == invoices
    assert {e["type"] for e in events.values()} <= {"invoice.completed", "invoice.failed"}
    assert all(r.verified for r in receiver.received)
    assert [r.answered for r in receiver.received[:4]] == [HOLD, FAIL, DROP, SLOW]
    held = receiver.received[0].headers["webhook-id"]
    again = [r for r in receiver.received[1:] if r.headers["webhook-id"] == held]
    assert again and again[0].at - killed < LEASE_SECONDS + 15  # its lease, nothing longer
    assert held in events
    rows = production.sql("SELECT event_id, attempts, fencing_token FROM webhook_deliveries")
    assert {r.event_id for r in rows} == set(events)
    assert all(r.attempts >= 1 for r in rows)
    assert sum(r.attempts for r in rows) == len(receiver.received)  # every attempt is logged
    assert sum(1 for r in receiver.received if r.answered == OK) >= INVOICES
