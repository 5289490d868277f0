"""Revocation, expiry and rotation of keys in every process, and dashboard sessions, on every
backend."""
from __future__ import annotations

import time

import pytest
from sqlalchemy import event, func, select

from ledgerline.adapters.db import keys
from ledgerline.adapters.db.accounts import create_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import dashboard_sessions
from ledgerline.bootstrap import utcnow
from ledgerline.domain.identity import Role
from ledgerline.http.app import create_app
from ledgerline.service_layer.authentication import GENERATION_CHECK_SECONDS, KeyCache
from tests.conftest import make_tenant, operator_key

LIST = "/v1/accounts/acme/invoices"


@pytest.fixture
def services(make_services):
    return make_services(rate_limit_per_minute=0)


def key_id_of(services, tenant, role):
    return tenant.caller(services, role).key_id


def status(client, secret, path=LIST):
    return client.get(path, headers={"Authorization": f"Bearer {secret}"}).status_code


def test_a_revoked_key_is_refused_by_every_process_within_a_second(services):
    acme = make_tenant(services, "acme")
    secret = acme.keys["customer"]
    processes = [create_app(services).test_client() for _ in range(3)]  # each its own cache
    assert [status(p, secret) for p in processes] == [200] * 3
    with transaction(services.engine, write=True) as conn:
        assert keys.revoke(conn, key_id_of(services, acme, "customer"))
    revoked_at = time.monotonic()
    time.sleep(GENERATION_CHECK_SECONDS)
    answers = [status(p, secret) for p in processes]
    assert answers == [401] * 3 and time.monotonic() - revoked_at < 3 * GENERATION_CHECK_SECONDS
    assert status(processes[0], acme.keys["supplier"]) == 200  # other keys unaffected


def test_the_key_cache_forgets_everything_once_the_generation_moves(services):
    acme = make_tenant(services, "acme")
    now = [100.0]
    cache = KeyCache(clock=lambda: now[0])
    statements = []
    event.listen(services.engine, "before_cursor_execute",
                 lambda *args: statements.append(args[2]))
    secret = acme.keys["customer"]
    assert cache.caller(services.engine, secret).role is Role.CUSTOMER
    looked_up = len(statements)
    now[0] += 0.5
    assert cache.caller(services.engine, secret) is not None
    assert len(statements) == looked_up  # cached: no query at all
    with transaction(services.engine, write=True) as conn:
        keys.revoke(conn, key_id_of(services, acme, "customer"))
    now[0] += 0.4
    assert cache.caller(services.engine, secret) is not None  # within the second: stale
    now[0] += 0.2
    assert cache.caller(services.engine, secret) is None  # generation read, cache cleared


def test_an_expired_key_stops_working_even_while_cached(services):
    make_tenant(services, "acme")
    with transaction(services.engine, write=True) as conn:
        _, secret = create_key(conn, Role.CUSTOMER, "acme", "short-lived", utcnow(),
                               expires_in=1.5)
    client = create_app(services).test_client()
    assert status(client, secret) == 200
    time.sleep(1.7)
    assert status(client, secret) == 401


GRACE = 4.0  # seconds a rotated key keeps working


def test_a_rotated_key_keeps_working_for_its_grace_period(services):
    acme = make_tenant(services, "acme")
    client = create_app(services).test_client()
    old = acme.keys["customer"]
    assert status(client, old) == 200
    rotated_at = time.monotonic()
    with transaction(services.engine, write=True) as conn:
        new_id, new = keys.rotate(conn, key_id_of(services, acme, "customer"), GRACE, utcnow())
    time.sleep(GENERATION_CHECK_SECONDS)
    # well within the grace, on a busy machine too
    assert status(client, old) == 200 and status(client, new) == 200
    time.sleep(max(0.0, rotated_at + GRACE + 0.2 - time.monotonic()))
    assert status(client, old) == 401 and status(client, new) == 200
    with transaction(services.engine, write=False) as conn:
        listed = {k["id"]: k for k in keys.list_keys(conn, "acme")}
    old_id = key_id_of(services, acme, "supplier")  # still active
    assert listed[new_id]["state"] == "active" and listed[old_id]["state"] == "active"
    rotated = [k for k in listed.values() if k["replaced_by"] == new_id]
    assert len(rotated) == 1 and rotated[0]["state"] == "expired"
    with transaction(services.engine, write=True) as conn:
        with pytest.raises(keys.CannotRotate, match="no key"):
            keys.rotate(conn, "key_missing", 10, utcnow())
        assert not keys.revoke(conn, "key_missing")


# --- dashboard sessions ---------------------------------------------------------------------

def login(client, key, **headers):
    return client.post("/dashboard/login", data={"key": key}, base_url="https://localhost",
                       headers=headers)


def page(client):
    return client.get("/dashboard", base_url="https://localhost")


def sessions_count(services):
    with transaction(services.engine, write=False) as conn:
        return conn.execute(select(func.count()).select_from(dashboard_sessions)).scalar()


def test_the_cookie_holds_a_signed_session_id_that_sign_out_ends_on_the_server(services):
    operator = operator_key(services)
    client = create_app(services).test_client()
    signed_in = login(client, operator)
    assert signed_in.status_code == 303
    cookie = client.get_cookie("ledgerline_operator", domain="localhost", path="/dashboard")
    assert operator not in cookie.value and operator not in signed_in.headers["Set-Cookie"]
    assert cookie.value.count(".") == 2  # itsdangerous: value.timestamp.signature
    assert sessions_count(services) == 1 and page(client).status_code == 200
    stolen = cookie.value
    assert client.post("/dashboard/logout", base_url="https://localhost").status_code == 303
    assert sessions_count(services) == 0
    thief = create_app(services).test_client()
    thief.set_cookie("ledgerline_operator", stolen, domain="localhost", path="/dashboard")
    replayed = page(thief)
    assert replayed.status_code == 401 and "Max-Age=0" in replayed.headers["Set-Cookie"]
    forged = create_app(services).test_client()
    forged.set_cookie("ledgerline_operator", stolen[:-2] + "xx", domain="localhost",
                      path="/dashboard")
    assert page(forged).status_code == 401


def test_revoking_the_operator_key_ends_its_sessions(services):
    operator = operator_key(services)
    client = create_app(services).test_client()
    login(client, operator)
    assert page(client).status_code == 200
    with transaction(services.engine, write=False) as conn:
        key_id = conn.execute(select(dashboard_sessions.c.key_id)).scalar()
    with transaction(services.engine, write=True) as conn:
        keys.revoke(conn, key_id)
    assert page(client).status_code == 401


def test_an_operator_key_signs_in_at_most_ten_times_a_minute(services):
    operator = operator_key(services)
    client = create_app(services).test_client()
    answers = [login(client, "llk_wrong").status_code for _ in range(10)]
    assert answers == [401] * 10
    # Wrong keys from the same address lock nobody out; each sign-in is a session row, so an
    # operator key opens at most ten a minute.
    assert [login(client, operator).status_code for _ in range(10)] == [303] * 10
    refused = login(client, operator)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_sign_ins"
    assert int(refused.headers["Retry-After"]) >= 1
    assert sessions_count(services) == 10
    assert login(client, operator_key(services)).status_code == 303  # another operator's own


@pytest.mark.parametrize("headers", [{"Origin": "null"}, {"Origin": "https://evil.example"},
                                     {"Sec-Fetch-Site": "cross-site"},
                                     {"Sec-Fetch-Site": "same-site"}])
def test_sign_in_from_another_origin_is_refused(services, headers):
    operator = operator_key(services)
    client = create_app(services).test_client()
    assert login(client, operator, **headers).status_code == 403
    assert sessions_count(services) == 0
    assert login(client, operator, Origin="https://localhost").status_code == 303
