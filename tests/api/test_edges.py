"""The HTTP edge as a stranger meets it: the served API description and problem pages,
versions, protected metrics, fixed readiness reasons, trusted proxies, the per-address limit
on failed authentications and the per-key caps on requests and waits."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from sqlalchemy import event

from ledgerline import __version__
from ledgerline.adapters.storage import StorageUnavailable
from ledgerline.config import ConfigError, Settings
from ledgerline.domain import errors
from ledgerline.http import limits
from ledgerline.http.docs import openapi_document
from ledgerline.http.gevent_worker import BodyTimeout
from ledgerline.http.problems import catalogue
from ledgerline.service_layer import report
from tests.conftest import REPO
from tests.fakes import pdf_bytes

LIST = "/v1/accounts/acme/invoices"


def auth(key: str, **headers) -> dict:
    return {"Authorization": f"Bearer {key}", **headers}


@contextlib.contextmanager
def counting_queries(engine):
    statements = []

    def count(conn, cursor, statement, *args):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


# --- the API describes itself ------------------------------------------------------------

def test_openapi_json_names_the_server_the_request_came_to(api_env):
    client = api_env.app().test_client()
    for host, url in [("api.example.com:8443", "http://api.example.com:8443"),
                      ("10.0.0.7", "http://10.0.0.7")]:
        assert client.get("/openapi.json", headers={"Host": host}).json["servers"] == [
            {"url": url}]
    behind = api_env.app(trusted_proxy_hops=1).test_client().get("/openapi.json", headers={
        "X-Forwarded-Proto": "https", "X-Forwarded-Host": "invoices.example.org"})
    assert behind.json["servers"] == [{"url": "https://invoices.example.org"}]
    assert "servers" not in yaml.safe_load((REPO / "schemas" / "openapi.yaml").read_text())


def test_openapi_json_is_the_generated_document_with_invoice_v2_embedded(api_env):
    served = api_env.app().test_client().get("/openapi.json")
    assert served.status_code == 200 and served.mimetype == "application/json"
    document = served.json
    assert document.pop("servers") == [{"url": "http://localhost"}]  # where it was asked
    assert document == json.loads(json.dumps(openapi_document()))
    assert document["info"]["version"] == __version__
    source = yaml.safe_load((REPO / "schemas" / "openapi.yaml").read_text())
    assert set(document["paths"]) == set(source["paths"])
    extraction = document["components"]["schemas"]["Invoice"]["properties"]["extraction"]
    assert {"$ref": "#/components/schemas/InvoiceV2"} in extraction["oneOf"]
    embedded = document["components"]["schemas"]["InvoiceV2"]
    invoice_v2 = json.loads((REPO / "schemas" / "invoice-v2.schema.json").read_text())
    assert embedded["properties"]["fields"]["properties"]["iban"] == {
        "$ref": "#/components/schemas/InvoiceV2/$defs/ibanField"}
    assert set(embedded["$defs"]) == set(invoice_v2["$defs"])
    assert "./invoice-v2.schema.json" not in served.get_data(as_text=True)


def test_a_completed_invoice_validates_against_the_served_schema(api_env):
    jsonschema = pytest.importorskip("jsonschema")
    from referencing import Registry, Resource

    document = openapi_document()
    registry = Registry().with_resource("urn:openapi", Resource.from_contents(
        document, default_specification=jsonschema.Draft202012Validator.META_SCHEMA and
        __import__("referencing.jsonschema").jsonschema.DRAFT202012))
    validator = jsonschema.Draft202012Validator(
        {"$ref": "urn:openapi#/components/schemas/InvoiceV2"}, registry=registry)
    offline = subprocess.run([str(Path(sys.executable).parent / "ledgerline"), "extract",
                              str(_tiny_pdf(api_env))], capture_output=True, text=True)
    extraction = json.loads(offline.stdout.splitlines()[0])["document"]
    validator.validate(extraction)
    assert extraction["versions"]["service"] == __version__  # every document says who made it


def _tiny_pdf(api_env) -> Path:
    from tests.hostile.test_api_stays_responsive import text_pdf

    path = Path(api_env.services.settings.storage_url.removeprefix("file://")).parent / "t.pdf"
    path.write_bytes(text_pdf(["Invoice INV-7", "Total 10.00 EUR"]))
    return path


def test_the_docs_page_renders_every_operation_without_scripts(api_env):
    page = api_env.app().test_client().get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "<script" not in html.lower() and "http://" not in html and "https://" not in html
    for path, item in openapi_document()["paths"].items():
        for method in ("get", "post"):
            if method in item:
                assert f'id="{item[method]["operationId"]}"' in html, (method, path)
    for code in catalogue():
        assert f'href="/problems/{code}"' in html


def test_every_problem_code_is_documented_with_its_page_and_in_openapi():
    codes = openapi_document()["components"]["schemas"]["ProblemCode"]["enum"]
    TYPES = catalogue()
    assert set(codes) == set(TYPES)
    assert all(TYPES[code].explanation for code in TYPES)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    import ledgerline.http.app  # noqa: F401  (every module that defines an error)

    for cls in subclasses(errors.LedgerlineError):
        assert cls.code in TYPES, cls
        assert TYPES[cls.code].status == cls.status, cls
    assert BodyTimeout.code in TYPES and errors.LedgerlineError.code in TYPES


def test_a_problem_type_resolves_to_a_page_that_explains_it(api_env):
    client = api_env.app().test_client()
    problem = client.get(LIST + "/inv_missing", headers=auth(api_env.acme.keys["customer"]))
    assert problem.status_code == 404 and problem.json["type"] == "/problems/not_found"
    page = client.get(problem.json["type"])
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert catalogue()["not_found"].explanation in page.get_data(as_text=True)
    assert client.get("/problems").status_code == 200
    unknown = client.get("/problems/no_such_thing")
    assert unknown.status_code == 404 and unknown.json["code"] == "not_found"
    wrong_method = client.delete("/healthz")
    assert wrong_method.status_code == 405 and wrong_method.json["code"] == "method_not_allowed"


def test_the_list_refuses_unknown_query_parameters(api_env):
    resp = api_env.app().test_client().get(LIST, query_string={"stauts": "completed"},
                                           headers=auth(api_env.acme.keys["customer"]))
    assert resp.status_code == 400 and "stauts" in resp.json["detail"]


# --- versions ------------------------------------------------------------------------------

def test_the_version_is_in_healthz_and_on_the_command_line(api_env):
    assert api_env.app().test_client().get("/healthz").json == {"status": "ok",
                                                                "version": __version__}
    out = subprocess.run([str(Path(sys.executable).parent / "ledgerline"), "--version"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"ledgerline, version {__version__}"


# --- metrics -------------------------------------------------------------------------------

def test_metrics_need_an_operator_key_or_the_metrics_token(api_env):
    client = api_env.app(metrics_token="s3cret-token").test_client()
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers=auth("wrong-token")).status_code == 401
    for role in ("customer", "supplier", "dashboard"):
        assert client.get("/metrics", headers=auth(api_env.acme.keys[role])).status_code == 404
    assert client.get("/metrics", headers=auth(api_env.operator)).status_code == 200
    token = client.get("/metrics", headers=auth("s3cret-token"))
    assert token.status_code == 200 and b"ledgerline_queue_depth" in token.data
    without_token = api_env.app().test_client()
    assert without_token.get("/metrics", headers=auth("s3cret-token")).status_code == 401


def test_a_scrape_with_the_token_reuses_the_queue_snapshot_and_queries_nothing(api_env):
    client = api_env.app(metrics_token="t", metrics_snapshot_seconds=60).test_client()
    engine = api_env.services.engine
    with counting_queries(engine) as first:
        assert client.get("/metrics", headers=auth("t")).status_code == 200
    with counting_queries(engine) as later:
        for _ in range(5):
            assert client.get("/metrics", headers=auth("t")).status_code == 200
    assert first and later == []


# --- readiness -----------------------------------------------------------------------------

def test_readiness_names_what_is_down_in_fixed_words_and_logs_the_detail(api_env, caplog):
    class BrokenStore:
        def check(self):
            raise StorageUnavailable("bucket private-bucket at http://10.1.2.3:8333/objects")

    app = api_env.app()
    services = app.extensions["ledgerline"]
    app.extensions["ledgerline"] = dataclasses.replace(services, store=BrokenStore())
    caplog.set_level(logging.WARNING)
    resp = app.test_client().get("/readyz")
    assert resp.status_code == 503
    assert resp.json == {"status": "unavailable",
                         "checks": {"database": "ok", "storage": "unavailable", "spool": "ok",
                                    "sandbox": "not_used", "ocr": "not_used"}}
    assert "private-bucket" in caplog.text


# --- crafted input -------------------------------------------------------------------------

@pytest.mark.parametrize("prefer", ["wait=" + "9" * 1000, "wait=" + "0" * 1000 + "1",
                                    "wait=99999999999999999999"])
def test_an_absurd_prefer_wait_is_bounded_not_a_crash(api_env, prefer):
    client = api_env.app(max_waits_per_key=1).test_client()
    held = client.application.extensions[limits.EXTENSION].waits
    key = api_env.acme.caller(api_env.services, "customer").key_id
    assert held.acquire(key)  # the key already holds its one wait: the answer comes at once
    try:
        resp = client.post(LIST, data=pdf_bytes(f"prefer-{len(prefer)}"), headers=auth(
            api_env.acme.keys["customer"], **{"Content-Type": "application/pdf",
                                               "Prefer": prefer}))
    finally:
        held.release(key)
    assert resp.status_code == 202 and "Preference-Applied" not in resp.headers


@pytest.mark.parametrize("prefer", ["wait=" + "9" * 5000, "respond-async, " * 200 + "wait=1"])
def test_a_prefer_header_of_kilobytes_is_400(api_env, prefer):
    resp = api_env.app().test_client().post(LIST, data=pdf_bytes("long-prefer"), headers=auth(
        api_env.acme.keys["customer"], **{"Content-Type": "application/pdf", "Prefer": prefer}))
    assert resp.status_code == 400 and "Prefer" in resp.json["detail"]


@pytest.mark.parametrize("created", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+14:00",
                                     "9999-12-31T23:59:59.999999+00:00", "2026-01-01 00:00:00"])
def test_a_cursor_with_an_offset_or_an_extreme_time_is_400(api_env, created):
    import base64

    cursor = base64.urlsafe_b64encode(f"{created}|inv_1".encode()).decode().rstrip("=")
    resp = api_env.app().test_client().get(LIST, query_string={"cursor": cursor},
                                           headers=auth(api_env.acme.keys["customer"]))
    assert resp.status_code == 400 and resp.json["code"] == "bad_request"


@pytest.mark.parametrize("query", [{"day": "0001-01-01"}, {"day": "9999-12-31"},
                                   {"from": "9999-12-01", "to": "9999-12-31"},
                                   {"from": "0001-01-01", "to": "0001-01-02"}])
def test_report_days_near_the_ends_of_the_calendar_are_400(api_env, query):
    resp = api_env.app().test_client().get("/v1/reports/duplicates", query_string=query,
                                           headers=auth(api_env.operator))
    assert resp.status_code == 400 and resp.json["code"] == "invalid_day"


@pytest.mark.parametrize("last", ["0001-01-05", "9999-12-31", "1970-01-03"])
def test_dashboard_days_near_the_ends_of_the_calendar_are_not_a_crash(api_env, last):
    resp = api_env.app().test_client().get("/dashboard", query_string={"to": last},
                                           headers=auth(api_env.operator))
    assert resp.status_code == (200 if last.startswith("1970") else 400)
    if last.startswith("1970"):
        assert f"{report.FIRST_DAY} to {last}" in resp.get_data(as_text=True)


# --- trusted proxies -----------------------------------------------------------------------

def _login(client, api_env, **headers):
    return client.post("/dashboard/login", data={"key": api_env.operator}, headers=headers)


def test_behind_one_trusted_proxy_the_https_origin_signs_in(api_env):
    behind = {"Host": "ledgerline.example", "Origin": "https://ledgerline.example",
              "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}
    proxied = api_env.app(trusted_proxy_hops=1).test_client()
    assert _login(proxied, api_env, **behind).status_code == 303
    # Without the configured proxy the forwarded scheme is not believed: a cross-origin post.
    direct = api_env.app().test_client()
    assert _login(direct, api_env, **behind).status_code == 403


def test_forwarded_addresses_count_only_through_the_configured_hops(api_env):
    """The failed-authentication limit keys on the client the trusted proxy names."""
    edge = dict(auth_failures_per_minute=2)

    def failures(client, forwarded_for):
        return [client.get(LIST, headers=auth(f"llk_guess{forwarded_for}-{i}",
                                              **{"X-Forwarded-For": forwarded_for})
                           ).status_code for i in range(3)]

    proxied = api_env.app(trusted_proxy_hops=1, **edge).test_client()
    assert failures(proxied, "198.51.100.1") == [401, 401, 429]
    assert failures(proxied, "198.51.100.2") == [401, 401, 429]  # another client, own budget
    direct = api_env.app(**edge).test_client()
    # Not trusted: a forged header changes nothing, the peer's address is what counts.
    assert failures(direct, "198.51.100.3") == [401, 401, 429]
    assert failures(direct, "198.51.100.4") == [429, 429, 429]


def test_trusted_proxies_are_read_from_the_environment():
    assert Settings.from_env({}).trusted_proxy_hops == 0
    assert Settings.from_env({"LEDGERLINE_TRUSTED_PROXY_HOPS": "1"}).trusted_proxy_hops == 1
    with pytest.raises(ConfigError, match="LEDGERLINE_TRUSTED_PROXY_HOPS"):
        Settings.from_env({"LEDGERLINE_TRUSTED_PROXY_HOPS": "one"})


# --- failed authentications and per-key caps ------------------------------------------------

def test_failed_authentications_are_limited_per_address_before_the_lookup(api_env):
    client = api_env.app(auth_failures_per_minute=3).test_client()
    assert [client.get(LIST, headers=auth(f"llk_guess{i}")).status_code
            for i in range(3)] == [401] * 3
    assert client.get(LIST, headers=auth("llk_guess4")).status_code == 429  # reads the prefixes
    client.set_cookie("ledgerline_operator", "llk_guess5", path="/dashboard")
    with counting_queries(api_env.services.engine) as queries:
        refused = client.get(LIST, headers=auth("llk_guess6"))
        cookie = client.get("/dashboard")
    assert refused.status_code == 429 and refused.json["code"] == "too_many_auth_failures"
    assert 1 <= int(refused.headers["Retry-After"]) <= 20
    assert cookie.status_code == 401  # a forged cookie: the sign-in page, no session looked up
    # No key or session looked up; the working keys' prefixes read at most once a second.
    assert not [q for q in queries if "key_hash" in q or "dashboard_sessions" in q]
    assert len([q for q in queries if "api_keys.prefix" in q]) <= 1
    assert client.get("/healthz").status_code == 200


def test_a_key_holds_at_most_its_cap_of_requests_at_once(api_env):
    client = api_env.app(max_requests_per_key=2).test_client()
    in_flight = client.application.extensions[limits.EXTENSION].requests
    key = api_env.acme.caller(api_env.services, "dashboard").key_id
    assert in_flight.acquire(key) and in_flight.acquire(key)  # two requests of it are running
    try:
        refused = client.get(LIST, headers=auth(api_env.acme.keys["dashboard"]))
        other = client.get(LIST, headers=auth(api_env.acme.keys["customer"]))
    finally:
        in_flight.release(key)
        in_flight.release(key)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_in_flight"
    assert refused.headers["Retry-After"] == "1"
    assert other.status_code == 200
    assert client.get(LIST, headers=auth(api_env.acme.keys["dashboard"])).status_code == 200
    assert in_flight.held(key) == 0  # every finished request gave its slot back
