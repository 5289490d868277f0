"""The operator dashboard over HTTP: sign-in by form or bearer key, and what the page shows."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

from ledgerline.http.app import create_app
from ledgerline_tools.synthetic_day import Shape, generate, synthetic_caller, write
from tests.conftest import make_tenant, operator_key


@pytest.fixture
def env(make_services):
    services = make_services()
    tenant = make_tenant(services, "acme")
    operator = operator_key(services)
    today = datetime.now(timezone.utc).date()
    caller = synthetic_caller(services.engine, "synthetic")
    for back, shape in [(2, Shape(calls=200, repeats=30, overlapping_pairs=2, shadow=True)),
                        (1, Shape(calls=170, repeats=2, bypass=2, hits=28, joined=2))]:
        write(services.engine, generate(today - timedelta(days=back), shape,
                                        price=Decimal("0.004"), account="synthetic",
                                        caller_id=caller, seed=back))
    client = create_app(services).test_client()
    return client, tenant, operator


def page(client, **kw):
    return client.get("/dashboard", base_url="https://localhost", **kw)


def login(client, key, **headers):
    return client.post("/dashboard/login", data={"key": key}, base_url="https://localhost",
                       headers=headers)


def test_without_a_key_the_dashboard_is_a_sign_in_form(env):
    client, *_ = env
    resp = page(client)
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    assert '<form class="login" method="post" action="/dashboard/login">' in resp.text
    assert "<script" not in resp.text


def test_an_operator_key_signs_in_with_a_strict_cookie(env):
    client, _, operator = env
    resp = login(client, operator)
    assert resp.status_code == 303 and resp.headers["Location"] == "/dashboard"
    cookie = resp.headers["Set-Cookie"]
    for flag in ("Secure", "HttpOnly", "SameSite=Strict", "Path=/dashboard"):
        assert flag in cookie
    shown = page(client)
    assert shown.status_code == 200
    assert shown.headers["Cache-Control"] == "no-store"
    assert 'id="calls-chart"' in shown.text and 'id="cost-chart"' in shown.text
    assert shown.text.count('data-series="repeats"') == 2  # two days with repeats
    assert "<td>extract_invoice</td>" in shown.text
    assert "370" in shown.text  # calls over the two days
    out = client.post("/dashboard/logout", base_url="https://localhost")
    assert out.status_code == 303 and "Max-Age=0" in out.headers["Set-Cookie"]


def test_a_supplier_key_does_not_sign_in(env):
    client, tenant, _ = env
    resp = login(client, tenant.keys["supplier"])
    assert resp.status_code == 401 and "A supplier key cannot sign in" in resp.text
    assert "Set-Cookie" not in resp.headers


@pytest.mark.parametrize("role", ["customer", "dashboard"])
def test_account_keys_sign_in_to_their_review_screen_not_the_reports(env, role):
    client, tenant, _ = env
    resp = login(client, tenant.keys[role])
    assert resp.status_code == 303 and resp.headers["Location"] == "/dashboard/review"
    shown = page(client)
    assert shown.status_code == 303 and shown.headers["Location"] == "/dashboard/review"


def test_a_bearer_key_works_like_the_api(env):
    client, tenant, operator = env
    assert page(client, headers={"Authorization": f"Bearer {operator}"}).status_code == 200
    other = page(client, headers={"Authorization": f"Bearer {tenant.keys['customer']}"})
    assert other.status_code == 404 and other.mimetype == "application/problem+json"
    unknown = page(client, headers={"Authorization": "Bearer llk_nonsense"})
    assert unknown.status_code == 401


def test_a_stale_cookie_is_cleared(env):
    client, *_ = env
    client.set_cookie("ledgerline_operator", "llk_revoked", domain="localhost",
                      path="/dashboard", secure=True)
    resp = page(client)
    assert resp.status_code == 401 and "Max-Age=0" in resp.headers["Set-Cookie"]


def test_cross_site_form_posts_are_refused(env):
    client, _, operator = env
    resp = login(client, operator, Origin="https://evil.example")
    assert resp.status_code == 403


def test_a_bad_end_day_is_a_400_problem(env):
    client, _, operator = env
    resp = client.get("/dashboard?to=yesterday", base_url="https://localhost",
                      headers={"Authorization": f"Bearer {operator}"})
    assert resp.status_code == 400 and resp.json["code"] == "invalid_day"


def test_signing_in_keeps_the_days_asked_for(env):
    client, _, operator = env
    form = page(client, query_string={"to": "2026-11-30"})
    assert '<input type="hidden" name="to" value="2026-11-30">' in form.text
    resp = client.post("/dashboard/login", data={"key": operator, "to": "2026-11-30"},
                       base_url="https://localhost")
    assert resp.status_code == 303 and resp.headers["Location"] == "/dashboard?to=2026-11-30"
    shown = page(client, query_string={"to": "2026-11-30"})
    assert "2026-11-01" in shown.text and "2026-11-30" in shown.text
    refused = client.post("/dashboard/login", data={"key": operator, "to": "<script>"},
                          base_url="https://localhost")
    assert refused.status_code == 400
