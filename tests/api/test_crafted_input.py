"""Crafted query parameters and headers never make the API fail (hypothesis).

Every operation of the OpenAPI document gets its own parameters and random ones, with values
from the shapes that used to crash parsers (thousands of digits, dates at the ends of the
calendar, cursors encoding any text, control characters, unicode) and every header the edge
reads. Keys are valid, so the requests get past authentication to the parsers; the only
promise checked is the one that matters here: no 5xx.
"""
from __future__ import annotations

import base64
import string

import pytest
from hypothesis import HealthCheck, given, settings
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
