"""Webhooks: endpoints a customer registers, and the delivery loop that calls them.

Events are written by the transactions that change invoices (adapters/db/outbox.py); this
module's `DeliveryWorker` claims them under a lease, signs each attempt the Standard Webhooks
way (the `standardwebhooks` package), POSTs it through the address checks of
adapters/webhook_http.py and records the outcome, fenced like a job's. It runs inside every
`ledgerline worker` process and beside the embedded extraction worker of `ledgerline serve`:
no process of its own to deploy. A delivery whose worker dies is claimed again when its lease
runs out, with the same webhook-id: at least once.
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone

from standardwebhooks import Webhook

from .. import metrics
from ..adapters import webhook_http
from ..adapters.db import invoices as invoices_sql
from ..adapters.db import outbox
from ..adapters.db import webhooks as sql
from ..adapters.db.engine import transaction
from ..domain import webhooks as rules
from ..domain.errors import BadRequest, Forbidden, NotFound, WebhookUrlRefused
from ..domain.identity import Caller, Role
from . import polling
from .worker import worker_name

log = logging.getLogger(__name__)
POLL_SECONDS = 0.5
LEASE_MARGIN_SECONDS = 5.0
USER_AGENT = "Ledgerline-Webhooks/1"


def _authorise(caller: Caller, account: str) -> None:
    """Webhooks are the customer's: they see every invoice of the account."""
    if not caller.can_enter(account):
        raise NotFound(f"no account {account!r}")
    if caller.role is not Role.CUSTOMER:
        raise Forbidden(f"the {caller.role.value} role may not manage webhooks")


def register(services, caller: Caller, account: str, body) -> dict:
    """A new endpoint; the answer carries its signing secret, shown this once."""
    _authorise(caller, account)
    try:
        reg = rules.registration(body, services.settings.webhook_policy)
    except rules.Refused as exc:
        raise WebhookUrlRefused(str(exc)) from None
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    secret = rules.new_secret()
    with transaction(services.engine, write=True) as conn:
        endpoint = sql.create(conn, account, caller.key_id, reg, secret)
    return {**endpoint, "secret": secret}


def endpoints(services, caller: Caller, account: str) -> list[dict]:
    _authorise(caller, account)
    with transaction(services.engine, write=False) as conn:
        return sql.list_all(conn, account)


def endpoint(services, caller: Caller, account: str, endpoint_id: str) -> dict:
    _authorise(caller, account)
    with transaction(services.engine, write=False) as conn:
        found = sql.get(conn, account, endpoint_id)
    if found is None:
        raise NotFound("no such webhook")
    return found


def change(services, caller: Caller, account: str, endpoint_id: str, body) -> dict:
    """PATCH an endpoint's `url`, `events` or both, checked as at registration."""
    _authorise(caller, account)
    with transaction(services.engine, write=True) as conn:
        current = sql.registration(conn, account, endpoint_id)
        if current is None:
            raise NotFound("no such webhook")
        try:
            reg = rules.changed_registration(current, body, services.settings.webhook_policy)
        except rules.Refused as exc:
            raise WebhookUrlRefused(str(exc)) from None
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        return sql.change(conn, account, endpoint_id, reg)


def rotate_secret(services, caller: Caller, account: str, endpoint_id: str, body) -> dict:
    """A new signing secret, shown this once; the replaced one keeps signing beside it for
    the grace period."""
    _authorise(caller, account)
    try:
        grace = rules.grace_seconds(body)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    secret = rules.new_secret()
    with transaction(services.engine, write=True) as conn:
        rotated = sql.rotate_secret(conn, account, endpoint_id, secret, grace)
    if rotated is None:
        raise NotFound("no such webhook")
    return {**rotated, "secret": secret}


def ping(services, caller: Caller, account: str, endpoint_id: str) -> str:
    """A signed `ping` for the endpoint, sent by the delivery threads like any event (a
    disabled endpoint too), with one attempt; its event id, to find it in the delivery log."""
    endpoint(services, caller, account, endpoint_id)
    with transaction(services.engine, write=True) as conn:
        return outbox.ping(conn, account, endpoint_id)


def remove(services, caller: Caller, account: str, endpoint_id: str) -> None:
    """The endpoint and every delivery of it: pending ones are never sent; one in flight ends
    its attempt and is recorded nowhere."""
    _authorise(caller, account)
    with transaction(services.engine, write=True) as conn:
        if not sql.remove(conn, account, endpoint_id):
            raise NotFound("no such webhook")


def deliveries(services, caller: Caller, account: str, endpoint_id: str, *, status, after,
               limit: int) -> list[dict]:
    endpoint(services, caller, account, endpoint_id)
    with transaction(services.engine, write=False) as conn:
        return sql.deliveries(conn, endpoint_id, status=status, after=after, limit=limit)


def replay(services, caller: Caller, account: str, endpoint_id: str, body) -> int:
    """POST …/webhooks/{id}/replay {"since": time} or {"event_ids": […]}."""
    endpoint(services, caller, account, endpoint_id)
    since, event_ids = _replay_body(body)
    with transaction(services.engine, write=True) as conn:
        return sql.replay(conn, endpoint_id, since=since, event_ids=event_ids)


MAX_REPLAY_IDS = 1000


def _replay_body(body) -> tuple[datetime | None, list[str] | None]:
    if not isinstance(body, dict) or len(body) != 1 or set(body) - {"since", "event_ids"}:
        raise BadRequest('send {"since": "2026-11-29T00:00:00Z"} or {"event_ids": ["…"]}')
    if "event_ids" in body:
        ids = body["event_ids"]
        if (not isinstance(ids, list) or not 1 <= len(ids) <= MAX_REPLAY_IDS
                or not all(isinstance(i, str) and 0 < len(i) <= 120 for i in ids)):
            raise BadRequest(f"event_ids must list 1 to {MAX_REPLAY_IDS} event ids")
        return None, ids
    return parse_time(body["since"], "since"), None


def parse_time(value, name: str) -> datetime:
    """An RFC 3339 time with its offset (Z or ±hh:mm), as UTC."""
    if not isinstance(value, str) or not 19 <= len(value) <= 35 or "T" not in value.upper():
        raise BadRequest(f"{name} must be an RFC 3339 time, e.g. 2026-11-29T00:00:00Z")
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise BadRequest(f"{name} must be an RFC 3339 time, e.g. 2026-11-29T00:00:00Z") from None
    if when.tzinfo is None:
        raise BadRequest(f"{name} needs its offset (Z or +hh:mm)")
    return when.astimezone(timezone.utc)


# --- delivery --------------------------------------------------------------------------------

class DeliveryWorker:
    """Claims due deliveries and makes one attempt each, until `stop` is set."""

    def __init__(self, services, name: str | None = None, *, poll_interval: float = POLL_SECONDS,
                 resolver=webhook_http.resolve):
        self.services = services
        self.name = name or f"webhooks:{worker_name()}"
        self.poll_interval = poll_interval
        self.resolver = resolver

    @property
    def lease_seconds(self) -> float:
        """Longer than any attempt (it ends within the timeout, webhook_http.Deadline), so that
        a live worker never loses a delivery to another one and none is in flight twice."""
        return 2 * self.services.settings.webhook_timeout_seconds + LEASE_MARGIN_SECONDS

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            if not polling.turn(self.name, self.run_once, stop):
                stop.wait(self.poll_interval)

    def run_once(self) -> bool:
        with transaction(self.services.engine, write=False) as conn:
            if not outbox.any_due(conn):
                return False
        with transaction(self.services.engine, write=True) as conn:
            claimed = outbox.claim(conn, self.name, self.lease_seconds)
            if claimed is not None and claimed.payload is None:
                claimed = outbox.keep_payload(conn, claimed, _payload(conn, claimed))
        if claimed is None:
            return False
        attempt = self.attempt(claimed)
        metrics.webhook_attempt(attempt.outcome, attempt.duration_ms / 1000)
        with transaction(self.services.engine, write=True) as conn:
            if attempt.outcome == rules.DELIVERED:
                status = outbox.delivered(conn, claimed, attempt)
            else:
                status = outbox.failed(
                    conn, claimed, attempt, retry_in=rules.retry_delay(claimed.attempt),
                    give_up_after=rules.GIVE_UP_AFTER_SECONDS,
                    disable_after=rules.DISABLE_AFTER_SECONDS)
        if status == rules.FAILED and claimed.type != rules.PING:
            log.warning("webhook %s: gave up on %s", claimed.endpoint_id, claimed.event_id)
        elif status == rules.CANCELLED:
            log.info("webhook %s was deleted during the attempt at %s", claimed.endpoint_id,
                     claimed.event_id)
        return True

    def attempt(self, claimed: outbox.Claimed) -> outbox.Attempt:
        headers = {"webhook-id": claimed.event_id,
                   "webhook-timestamp": str(int(claimed.now.timestamp())),
                   "webhook-signature": signature(claimed.secrets, claimed.event_id,
                                                  claimed.now, claimed.payload),
                   "Content-Type": "application/json", "User-Agent": USER_AGENT}
        started = time.monotonic()
        answer = webhook_http.post(claimed.url, claimed.payload.encode(), headers,
                                   self.services.settings.webhook_policy,
                                   timeout=self.services.settings.webhook_timeout_seconds,
                                   resolver=self.resolver)
        return outbox.Attempt(started_at=claimed.now,
                              duration_ms=int((time.monotonic() - started) * 1000),
                              outcome=answer.outcome, status_code=answer.status,
                              error=answer.error, response_excerpt=answer.excerpt)


def _payload(conn, claimed: outbox.Claimed) -> str:
    """The body of the delivery's every attempt: the event and, for an invoice's, the invoice
    as it stands now, at the first attempt."""
    if claimed.type == rules.PING:
        data = rules.ping_data(claimed.account, claimed.endpoint_id)
    else:
        state = invoices_sql.event_state(conn, claimed.account, claimed.invoice_id)
        data = rules.event_data(claimed.account, claimed.invoice_id, claimed.type,
                                claimed.detail, state)
    return rules.payload(claimed.type, claimed.event_id, claimed.occurred_at, data)


def signature(secrets: tuple[str, ...], event_id: str, when: datetime, body: str) -> str:
    """`webhook-signature`: one `v1,…` per secret, space-separated (Standard Webhooks); a
    receiver that knows any of them verifies the request."""
    return " ".join(Webhook(secret).sign(event_id, when, body) for secret in secrets)
