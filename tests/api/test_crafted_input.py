"""Crafted query parameters, headers and JSON bodies never make the API fail (hypothesis).

Every operation of the OpenAPI document gets its own parameters and random ones, with values
from the shapes that used to crash parsers (thousands of digits, dates at the ends of the
calendar, cursors encoding any text, control characters, unicode) and every header the edge
reads; every JSON body (a correction, a review, a webhook registration, a replay) gets text
with NUL, control characters and lone surrogates, and values buried up to 200,000 levels deep.
Keys are valid, so the requests get past authentication to the parsers; the only promise
checked is the one that matters here: no 5xx.
"""
from __future__ import annotations

import base64
import json
import string

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ledgerline.http.docs import openapi_document
from tests.fakes import pdf_bytes
from tests.property.support import examples

HEADERS = ["Prefer", "Idempotency-Key", "Cache-Control", "Content-Type", "Origin", "Cookie",
           "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Port",
           "Accept", "Range", "If-None-Match", "Authorization"]


def _operations():
    for path, item in openapi_document()["paths"].items():
        for method in ("get", "post"):
            if method in item:
                names = [p.get("name") for p in item[method].get("parameters", [])
                         if p.get("in") == "query"]
                yield method, path, names


OPERATIONS = list(_operations())

digits = st.integers(1, 6000).map(lambda n: "9" * n)
days = st.sampled_from(["0001-01-01", "0001-01-02", "9999-12-31", "9999-12-30", "1969-12-31",
                        "2026-02-29", "2024-02-29", "2026-11-29", "+2026-11-29", "2026-1-1"])
times = st.sampled_from(["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+14:00",
                         "2026-11-29T10:00:00Z", "2026-11-29T10:00:00.123456Z", "nonsense"])
cursors = st.one_of(
    st.tuples(times, st.text(max_size=30)).map(lambda t: f"{t[0]}|inv_{t[1]}"),
    st.text(max_size=80)).map(lambda raw: base64.urlsafe_b64encode(
        raw.encode("utf-8", "surrogatepass")).decode().rstrip("="))
values = st.one_of(st.text(max_size=40), digits, days, cursors,
                   st.sampled_from(["json", "csv", "completed", "0", "-1", "200", "201"]))
header_text = st.text(alphabet=string.printable.replace("\r", "").replace("\n", "")
                      .replace("\x0b", "").replace("\x0c", "") + "é€", max_size=300)
header_values = st.one_of(header_text, digits.map(lambda d: f"wait={d}"),
                          st.sampled_from(["wait=60", "wait=0", "respond-async, wait=5",
                                           "no-cache", '"key-1"', "multipart/form-data",
                                           "application/pdf", "https://evil.example", "null"]))


@pytest.fixture(scope="module")
def client(api_env):
    from ledgerline.http import limits

    app = api_env.app(auth_failures_per_minute=0, metrics_token="token", max_waits_per_key=1)
    # Each key already holds its one `Prefer: wait`: uploads answer at once, so that an
    # example asking for wait=60 costs no minute (waits have their own tests).
    for role in ("customer", "supplier"):
        app.extensions[limits.EXTENSION].waits.acquire(api_env.acme.caller(api_env.services,
                                                                           role).key_id)
    return app.test_client()


@given(operation=st.sampled_from(OPERATIONS), data=st.data(),
       role=st.sampled_from(["customer", "supplier", "dashboard", "operator"]))
@settings(max_examples=examples(300), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_no_query_parameter_or_header_makes_the_api_fail(client, api_env, operation, data, role):
    method, path, names = operation
    query = data.draw(st.dictionaries(st.one_of(st.sampled_from(names or ["x"]), st.text(max_size=8)),
                                      values, max_size=4))
    headers = data.draw(st.dictionaries(st.sampled_from(HEADERS), header_values, max_size=5))
    key = api_env.operator if role == "operator" else api_env.acme.keys[role]
    headers.setdefault("Authorization", f"Bearer {key}")
    url = (path.replace("{account}", "acme").replace("{invoice_id}", "inv_1")
           .replace("{code}", data.draw(st.sampled_from(["not_found", "x" * 300, "%00"]))))
    body = None
    if method == "post" and "invoices" in path:
        body = pdf_bytes(data.draw(st.text(max_size=10)))
        headers.setdefault("Content-Type", "application/pdf")
    elif method == "post":
        body = {"key": data.draw(st.text(max_size=60))}
    resp = client.open(url, method=method.upper(), query_string=query, headers=headers, data=body)
    assert resp.status_code < 500, (method, url, query, headers, resp.get_data(as_text=True)[:500])
    STATUSES.add(resp.status_code)


STATUSES: set[int] = set()


def test_the_crafted_requests_reached_past_authentication():
    """Run after the fuzz test (same module): it saw successes and refusals, not only 401s."""
    if not STATUSES:
        pytest.skip("the fuzz test did not run in this process")
    assert 200 in STATUSES and 400 in STATUSES, STATUSES


# --- JSON bodies ------------------------------------------------------------------------------

# Text with everything the red team sent: NUL and other controls, lone surrogates, any plane.
hostile_text = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=60),
    st.sampled_from(["a\x00b", "a\ud800b", "\udfff", "\x1b[31m", "\u202e", "x" * 5000]))


def nested(depth: int, inner: str = '"x"') -> str:
    return "[" * depth + inner + "]" * depth


@pytest.fixture(scope="module")
def completed_invoice(api_env):
    from ledgerline.service_layer.worker import Worker

    made = api_env.app().test_client().post(
        "/v1/accounts/acme/invoices", data=pdf_bytes("crafted-json"),
        headers={"Authorization": f"Bearer {api_env.acme.keys['customer']}",
                 "Content-Type": "application/pdf"}).json
    while Worker(api_env.services).run_once():
        pass
    return made["id"]


@st.composite
def json_bodies(draw, invoice: str):
    text = draw(hostile_text)
    kind = draw(st.sampled_from(["patch", "review", "webhook", "replay"]))
    path = {"patch": f"/v1/accounts/acme/invoices/{invoice}",
            "review": f"/v1/accounts/acme/invoices/{invoice}/review",
            "webhook": "/v1/accounts/acme/webhooks",
            "replay": "/v1/accounts/acme/webhooks/whk_1/replay"}[kind]
    body = {"patch": {"fields": {draw(st.sampled_from(["invoice_number", "seller_name",
                                                        "gross_total", "iban"])): text},
                      "line_items": [{"description": text, "net_amount": "1.00"}],
                      "reason": text},
            "review": {"reasons": [text], "note": text},
            "webhook": {"url": f"https://hooks.example/{text}", "events": ["invoice.completed"]},
            "replay": {"event_ids": [text]}}[kind]
    raw = json.dumps(body)
    depth = draw(st.one_of(st.just(0), st.integers(1, 200_000)))
    if depth:  # the same body with one of its values buried deep
        raw = raw.replace(json.dumps(text), nested(depth, json.dumps(text)), 1)
    return ("PATCH" if kind == "patch" else "POST"), path, raw


@given(data=st.data())
@example(data=None)  # the red team's cases first, every run
@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_no_json_body_makes_the_api_fail(client, api_env, completed_invoice, data):
    if data is None:
        cases = [("PATCH", f"/v1/accounts/acme/invoices/{completed_invoice}",
                  json.dumps({"line_items": [{"description": "a\ud800b"}], "reason": "a\x00b"})),
                 ("POST", f"/v1/accounts/acme/invoices/{completed_invoice}/review",
                  json.dumps({"note": "a\ud800\x00"})),
                 ("PATCH", f"/v1/accounts/acme/invoices/{completed_invoice}",
                  '{"fields": ' + nested(100_000) + "}"),
                 ("POST", "/v1/accounts/acme/webhooks", '{"url": ' + nested(100_000) + "}"),
                 ("POST", "/v1/accounts/acme/webhooks",
                  json.dumps({"url": "https://hooks.example/\ud800", "events": ["invoice.completed"]}))]
    else:
        cases = [data.draw(json_bodies(completed_invoice))]
    for method, path, raw in cases:
        resp = client.open(path, method=method, data=raw, headers={
            "Authorization": f"Bearer {api_env.acme.keys['customer']}",
            "Content-Type": "application/json"})
        assert resp.status_code < 500, (method, path, raw[:200], resp.get_data(as_text=True)[:500])
