"""The failed-authentication limit throttles guessing and never refuses a working key, on both
backends: failures count per client address and per presented key prefix, apart; a key that
cannot be a working one is refused (429) past either budget, before any lookup; a working
key from the same address (one NAT, one proxy) goes on working, and so does the successor of
a revoked key that a forgotten client keeps sending."""
from __future__ import annotations

import secrets
import time
from datetime import datetime, timezone

import pytest
from sqlalchemy import event, update

from ledgerline.adapters.db.accounts import create_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.keys import list_keys, revoke, rotate
from ledgerline.adapters.db.tables import api_keys
from ledgerline.bootstrap import utcnow
from ledgerline.domain.identity import Role
from ledgerline.http import key_guard
from ledgerline.http.app import create_app
from ledgerline.service_layer.authentication import GENERATION_CHECK_SECONDS
from tests.conftest import make_tenant, operator_key
from tests.fakes import ControlledExtractor

LIST = "/v1/accounts/acme/invoices"
BUDGET = 30


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def guess() -> str:
    return "llk_" + secrets.token_urlsafe(32)


@pytest.fixture(autouse=True)
def quick_prefix_reads(monkeypatch):
    # The working keys' prefixes are read at most once a second, and a refused guess waits
    # for the next read: a tarpit for guessers, and seconds of waiting for these tests.
    monkeypatch.setattr(key_guard, "REFRESH_SECONDS", 0.05)


def refused_past_budget(answers: list[int], started: float) -> bool:
    """The first BUDGET answers 401, every later one 429 but for the tokens the bucket
    earned back meanwhile (BUDGET a minute)."""
    earned = 1 + (time.monotonic() - started) * BUDGET / 60
    later = answers[BUDGET:]
    return (answers[:BUDGET] == [401] * BUDGET and set(later) <= {401, 429}
            and later.count(401) <= earned)


@pytest.fixture
def edge(make_services):
    services = make_services(extractor=ControlledExtractor(), rate_limit_per_minute=0,
                             auth_failures_per_minute=BUDGET)
    tenant = make_tenant(services, "acme")
    return services, tenant, create_app(services).test_client()


class KeyLookups:
    """Statements that look a key up by its hash."""

    def __init__(self, engine):
        self.engine, self.seen = engine, []

    def __enter__(self):
        event.listen(self.engine, "before_cursor_execute", self._count)
        return self

    def __exit__(self, *exc):
        event.remove(self.engine, "before_cursor_execute", self._count)

    def _count(self, conn, cursor, statement, *args):
        if "key_hash" in statement:
            self.seen.append(statement)


def test_eighty_wrong_keys_then_a_working_key_from_the_same_address(edge):
    services, tenant, client = edge
    started = time.monotonic()
    answers = [client.get(LIST, headers=bearer(guess())).status_code for _ in range(80)]
    assert refused_past_budget(answers, started), answers
    # Past the budget, guesses cost no key lookup.
    with KeyLookups(services.engine) as lookups:
        assert client.get(LIST, headers=bearer(guess())).status_code == 429
    assert lookups.seen == []
    # The customer's key, never seen by this process before: served every time.
    assert [client.get(LIST, headers=bearer(tenant.keys["customer"])).status_code
            for _ in range(10)] == [200] * 10


def test_a_key_made_while_the_address_is_past_its_budget_is_served(edge):
    services, _tenant, client = edge
    for _ in range(BUDGET + 1):
        client.get(LIST, headers=bearer(guess()))
    assert client.get(LIST, headers=bearer(guess())).status_code == 429  # prefixes read now
    with transaction(services.engine, write=True) as conn:
        fresh = create_key(conn, Role.CUSTOMER, "acme", "made just now", utcnow())[1]
    key_guard.REFRESH_SECONDS = 1.0  # as in production (the fixture puts it back)
    started = time.monotonic()
    assert client.get(LIST, headers=bearer(fresh)).status_code == 200
    assert time.monotonic() - started < 3  # it waited for the next read of the prefixes


def test_a_forgotten_client_with_a_revoked_key_locks_out_neither_its_successor_nor_anyone(edge):
    services, tenant, client = edge
    with transaction(services.engine, write=True) as conn:
        old_id, old = create_key(conn, Role.SUPPLIER, "acme", "old integration", utcnow())
    assert client.get(LIST, headers=bearer(old)).status_code == 200
    with transaction(services.engine, write=True) as conn:
        _new_id, successor = rotate(conn, old_id, 0, utcnow())
        revoke(conn, old_id)
    time.sleep(GENERATION_CHECK_SECONDS + 0.2)  # every process has forgotten it
    started = time.monotonic()
    with KeyLookups(services.engine) as lookups:
        answers = [client.get(LIST, headers=bearer(old)).status_code for _ in range(100)]
    assert refused_past_budget(answers, started), answers
    assert len(lookups.seen) == 1  # looked up once; known not to work from then on
    # Its successor, its neighbours, and even a stranger's single wrong key: as before.
    assert client.get(LIST, headers=bearer(successor)).status_code == 200
    assert client.get(LIST, headers=bearer(tenant.keys["customer"])).status_code == 200
    assert client.get(LIST, headers=bearer(guess())).status_code == 401


def test_keys_older_than_their_prefix_are_never_refused(edge):
    """Keys made before prefixes were stored: any key may be one of them, so every presented
    key is looked up (the limit still answers 429 to the failures past the budget)."""
    services, tenant, client = edge
    with transaction(services.engine, write=True) as conn:
        conn.execute(update(api_keys).values(prefix=None))
    for _ in range(BUDGET + 5):
        client.get(LIST, headers=bearer(guess()))
    assert client.get(LIST, headers=bearer(tenant.keys["dashboard"])).status_code == 200


def test_wrong_sign_ins_do_not_lock_the_operator_out(edge):
    services, _tenant, client = edge
    operator = operator_key(services)
    origin = {"Origin": "http://localhost"}
    started = time.monotonic()
    wrong = [client.post("/dashboard/login", data={"key": guess()}, headers=origin).status_code
             for _ in range(40)]
    assert refused_past_budget(wrong, started), wrong
    signed_in = client.post("/dashboard/login", data={"key": operator}, headers=origin)
    assert signed_in.status_code == 303, signed_in.get_data(as_text=True)


def test_a_key_is_marked_used_at_most_once_a_minute(edge):
    services, tenant, client = edge

    def last_used():
        with transaction(services.engine, write=False) as conn:
            return {k["name"]: k["last_used_at"] for k in list_keys(conn, "acme")}

    assert last_used()["customer of acme"] is None
    assert client.get(LIST, headers=bearer(tenant.keys["customer"])).status_code == 200
    first = last_used()["customer of acme"]
    assert first is not None and last_used()["supplier of acme"] is None
    writes = []

    def count(conn, cursor, statement, *args):
        if statement.lstrip().upper().startswith("UPDATE API_KEYS"):
            writes.append(statement)

    # Another process (its own key cache) sees the key a second later: no second mark.
    time.sleep(1.1)
    event.listen(services.engine, "before_cursor_execute", count)
    try:
        other = create_app(services).test_client()
        assert other.get(LIST, headers=bearer(tenant.keys["customer"])).status_code == 200
    finally:
        event.remove(services.engine, "before_cursor_execute", count)
    assert writes == [] and last_used()["customer of acme"] == first
    # A minute later (moved back, as the database's clock cannot be): marked again.
    with transaction(services.engine, write=True) as conn:
        conn.execute(update(api_keys).where(api_keys.c.name == "customer of acme")
                     .values(last_used_at=datetime(2020, 1, 1, tzinfo=timezone.utc)))
    third = create_app(services).test_client()
    assert third.get(LIST, headers=bearer(tenant.keys["customer"])).status_code == 200
    assert last_used()["customer of acme"] > first
