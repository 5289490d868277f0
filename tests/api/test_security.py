"""Secrets and limits at the HTTP edge: keys only as hashes and never logged, bodies capped
while streaming, malformed input refused with 400, a per-key rate limit, security headers."""
from __future__ import annotations

import base64
import hashlib
import importlib
import io
import logging
import shutil
import sys
from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import select
from werkzeug.datastructures import FileStorage
from werkzeug.test import EnvironBuilder, encode_multipart
from werkzeug.wrappers import Request

from ledgerline.adapters.db import invoices as reads
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import metadata
from ledgerline.config import Settings
from ledgerline.http import security
from tests.fakes import pdf_bytes

LIST = "/v1/accounts/acme/invoices"


def auth(key: str, **headers) -> dict:
    return {"Authorization": f"Bearer {key}", **headers}


def upload(client, key, body, **headers):
    return client.post(LIST, data=body, headers=auth(key, **{"Content-Type": "application/pdf",
                                                             **headers}))


# --- API keys --------------------------------------------------------------------------

def test_api_keys_are_stored_only_as_their_sha256(api_env):
    with transaction(api_env.services.engine, write=False) as conn:
        dump = repr([conn.execute(select(t)).all() for t in metadata.sorted_tables])
    for secret in (*api_env.acme.keys.values(), api_env.operator):
        assert secret not in dump
        assert hashlib.sha256(secret.encode()).hexdigest() in dump


def test_no_api_key_reaches_the_application_log(api_env, caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    client = api_env.app().test_client()
    secret = api_env.acme.keys["customer"]
    wrong = secret[:-4] + "AAAA"
    responses = [
        upload(client, secret, pdf_bytes("logs")),
        client.get(LIST, headers=auth(secret)),
        client.get(LIST, query_string={"format": "csv"}, headers=auth(secret)),
        client.get(LIST + "/inv_missing", headers=auth(secret)),
        client.get(LIST, headers=auth(wrong)),
        client.get(LIST, headers={"Authorization": secret}),  # no scheme
    ]

    def crash(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(reads, "list_invoices", crash)
    responses.append(client.get(LIST, headers=auth(secret)))
    assert [r.status_code for r in responses] == [202, 200, 200, 404, 401, 401, 500]
    assert "unhandled error" in caplog.text  # the failure itself is logged, with its traceback
    for text in (caplog.text, *(r.get_data(as_text=True) for r in responses)):
        assert secret not in text and wrong not in text
        assert secret[4:20] not in text  # not even a fragment of the key


def test_the_gunicorn_access_log_never_carries_credentials(tmp_path, monkeypatch):
    from gunicorn.config import Config

    # The configuration module picks a metrics directory when it is imported: give it one,
    # then read it the way gunicorn does; an operator may still turn the access log on.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setenv("LEDGERLINE_ACCESS_LOG", "1")
    sys.modules.pop("ledgerline.gunicorn_conf", None)
    conf = importlib.import_module("ledgerline.gunicorn_conf")
    shutil.rmtree(conf.RUNTIME_DIR)  # made on import for a gunicorn instance; none runs here
    cfg = Config()
    for name, value in vars(conf).items():
        if name in cfg.settings:
            cfg.set(name, value)
    assert conf.accesslog is None  # the application's request line instead (request_log.py)
    log_file = tmp_path / "access.log"
    cfg.set("accesslog", str(log_file))
    secret = "llk_" + "S3cr3t" * 7
    headers = [("HOST", "api"), ("AUTHORIZATION", f"Bearer {secret}"),
               ("COOKIE", f"session={secret}")]
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": LIST, "SERVER_PROTOCOL": "HTTP/1.1",
               "PATH_INFO": LIST, "QUERY_STRING": "", "REMOTE_ADDR": "10.0.0.1",
               "HTTP_AUTHORIZATION": f"Bearer {secret}", "HTTP_COOKIE": f"session={secret}"}
    resp = SimpleNamespace(status="200 OK", sent=12, headers=[("Content-Type", "application/json")])
    logger = cfg.logger_class(cfg)
    # The configured format, then one that asks for the credentials outright.
    for fmt in (cfg.access_log_format,
                '%(h)s "%(r)s" %(u)s %({authorization}i)s %({Cookie}i)s %({http_authorization}e)s'):
        cfg.set("access_log_format", fmt)
        logger.access(resp, SimpleNamespace(headers=headers), environ, timedelta(milliseconds=3))
    for handler in logger.access_log.handlers:
        handler.flush()
    text = log_file.read_text()
    assert text.count(f"GET {LIST} HTTP/1.1") == 2
    assert secret not in text and "[redacted]" in text


# --- body size ---------------------------------------------------------------------------

class EndlessPdf(io.RawIOBase):
    """A PDF-looking body far larger than the cap that counts how much was read of it."""

    def __init__(self, total: int = 1 << 30):
        self.total, self.read_bytes = total, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.total - self.read_bytes)
        head = b"%PDF-1.4\n" if self.read_bytes == 0 else b""
        buffer[:n] = (head + b"0" * n)[:n]
        self.read_bytes += n
        return n


def post_stream(client, body, headers: dict, content_length: int | None = None):
    """POST `body` as the raw WSGI input: chunked (no length) unless one is declared."""
    environ = EnvironBuilder(LIST, method="POST", headers=headers).get_environ()
    environ["wsgi.input"] = body
    environ.pop("CONTENT_LENGTH", None)
    if content_length is None:
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(content_length)
    return client.open(Request(environ))


def test_a_body_without_a_length_is_cut_off_at_the_cap_while_streaming(api_env):
    client = api_env.app().test_client()
    body = EndlessPdf()
    resp = post_stream(client, body, auth(api_env.acme.keys["customer"],
                                          **{"Content-Type": "application/pdf"}))
    assert resp.status_code == 413 and resp.json["code"] == "too_large"
    limit = api_env.services.settings.max_upload_bytes
    assert body.read_bytes <= limit + 256 * 1024  # one chunk past the cap, not the gigabyte


def test_a_declared_length_over_the_cap_is_refused_before_reading(api_env):
    client = api_env.app().test_client()
    body = EndlessPdf()
    limit = api_env.services.settings.max_upload_bytes
    resp = post_stream(client, body, auth(api_env.acme.keys["supplier"],
                                          **{"Content-Type": "application/pdf"}), limit + 1)
    assert resp.status_code == 413 and body.read_bytes == 0


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_an_oversized_multipart_upload_is_413(api_env, declared):
    client = api_env.app().test_client()
    limit = api_env.services.settings.max_upload_bytes
    payload = b"%PDF-1.4\n" + b"0" * (limit + 128 * 1024)
    boundary, form = encode_multipart(
        {"file": FileStorage(io.BytesIO(payload), filename="big.pdf", content_type="application/pdf")})
    stream, length = io.BytesIO(form), len(form)
    resp = post_stream(client, stream, auth(api_env.acme.keys["customer"], **{
        "Content-Type": f"multipart/form-data; boundary={boundary}"}), length if declared else None)
    assert resp.status_code == 413 and resp.mimetype == "application/problem+json"


# --- validation --------------------------------------------------------------------------

def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize("key", ["x" * 256, '"' + "x" * 256 + '"', '"unterminated', "two words",
                                 '""', "caf\xe9", '"tab\there"'])
def test_a_malformed_idempotency_key_is_400(api_env, key):
    resp = upload(api_env.app().test_client(), api_env.acme.keys["customer"], pdf_bytes("k"),
                  **{"Idempotency-Key": key})
    assert resp.status_code == 400 and resp.json["code"] == "bad_request"


@pytest.mark.parametrize("account", ["ACME", "a", "-acme", "acme_gmbh", "a" * 64, "acme.com"])
@pytest.mark.parametrize("method, suffix", [("GET", ""), ("POST", ""), ("GET", "/inv_1"),
                                            ("GET", "/inv_1/file")])
def test_a_malformed_account_name_is_400(api_env, account, method, suffix):
    client = api_env.app().test_client()
    resp = client.open(f"/v1/accounts/{account}/invoices{suffix}", method=method,
                       data=pdf_bytes("a") if method == "POST" else None,
                       headers=auth(api_env.acme.keys["customer"],
                                    **{"Content-Type": "application/pdf"}))
    assert resp.status_code == 400 and resp.json["code"] == "bad_request"


@pytest.mark.parametrize("params", [
    {"status": "done"}, {"issued_from": "2026-13-01"}, {"issued_to": "yesterday"},
    {"limit": "0"}, {"limit": "201"}, {"limit": "ten"}, {"seller": " "}, {"seller": "x" * 201},
    {"seller": "nul\x00byte"}, {"seller": "bell\x07"}, {"format": "xml"},
    {"cursor": "not-a-cursor"}, {"cursor": _b64("2026-01-01T00:00:00|inv_1|x")},
    {"cursor": _b64("yesterday|inv_1")}, {"cursor": _b64("2026-01-01T00:00:00|key_1")},
    {"cursor": "\xff\xfe"}, {"cursor": _b64("2026-01-01T00:00:00|inv_\x00")},
])
def test_a_malformed_filter_or_cursor_is_400(api_env, params):
    resp = api_env.app().test_client().get(LIST, query_string=params,
                                           headers=auth(api_env.acme.keys["dashboard"]))
    assert resp.status_code == 400, resp.json
    assert resp.mimetype == "application/problem+json" and resp.json["code"] == "bad_request"


# --- rate limit ----------------------------------------------------------------------------

def test_a_key_over_its_rate_gets_429_with_retry_after(api_env):
    client = api_env.app(rate_limit_per_minute=3).test_client()
    key = api_env.acme.keys["dashboard"]
    assert [client.get(LIST, headers=auth(key)).status_code for _ in range(3)] == [200] * 3
    refused = client.get(LIST, headers=auth(key))
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.json["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 20  # one token comes back every 20 s
    # Other keys have their own buckets; unknown keys and health checks are not counted.
    assert client.get(LIST, headers=auth(api_env.acme.keys["customer"])).status_code == 200
    assert client.get(LIST, headers=auth("llk_unknown")).status_code == 401
    assert client.get("/healthz").status_code == 200


def test_a_rate_limit_of_zero_turns_the_limit_off(api_env):
    client = api_env.app(rate_limit_per_minute=0).test_client()
    key = api_env.acme.keys["dashboard"]
    assert {client.get(LIST, headers=auth(key)).status_code for _ in range(30)} == {200}


def test_the_rate_limit_is_read_from_the_environment():
    assert Settings.from_env({}).rate_limit_per_minute == 600
    assert Settings.from_env({"LEDGERLINE_RATE_LIMIT_PER_MINUTE": "0"}).rate_limit_per_minute == 0
    assert Settings.from_env({"LEDGERLINE_RATE_LIMIT_PER_MINUTE": "90"}).rate_limit_per_minute == 90


# --- security headers ------------------------------------------------------------------------

def _assert_common(resp, referrer_policy="no-referrer"):
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["X-Frame-Options"] == "DENY"
    assert resp.headers["Referrer-Policy"] == referrer_policy
    assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"]


def _closed(resp):
    """Read a streamed response to the end and close it, as a server would."""
    resp.get_data()
    resp.close()
    return resp


def test_every_authenticated_response_is_hardened_and_never_stored(api_env):
    client = api_env.app().test_client()
    key = api_env.acme.keys["customer"]
    created = upload(client, key, pdf_bytes("headers"))
    responses = [created, client.get(LIST, headers=auth(key)),
                 client.get(LIST, query_string={"format": "csv"}, headers=auth(key)),
                 _closed(client.get(created.headers["Location"] + "/file", headers=auth(key))),
                 client.get(LIST + "/inv_missing", headers=auth(key)),
                 client.get(LIST, headers=auth("llk_wrong"))]
    assert [r.status_code for r in responses] == [202, 200, 200, 200, 404, 401]
    for resp in responses:
        _assert_common(resp)
        assert resp.headers["Content-Security-Policy"] == security.API_CSP
        assert resp.headers["Cache-Control"] == "no-store"


def test_health_checks_carry_the_headers_but_may_be_cached(api_env):
    resp = api_env.app().test_client().get("/healthz")
    _assert_common(resp)
    assert "no-store" not in resp.headers.get("Cache-Control", "")


def test_html_pages_get_a_strict_content_security_policy(api_env):
    app = api_env.app()
    app.add_url_rule("/test-page", "test_page", lambda: "<!doctype html><p>hello</p>")
    client = app.test_client()
    pages = [client.get("/test-page")]
    if "/dashboard" in {rule.rule for rule in app.url_map.iter_rules()}:
        pages.append(client.get("/dashboard", headers=auth(api_env.operator)))
    # The dashboard's forms need the browser's real Origin on same-origin posts.
    # The dashboard's pages declare a stricter policy of their own: no inline style either.
    from ledgerline.http.dashboard import DASHBOARD_CSP

    for resp, policy, expected in zip(pages, ["no-referrer", "same-origin"],
                                      [security.HTML_CSP, DASHBOARD_CSP]):
        assert resp.mimetype == "text/html", resp.status_code
        _assert_common(resp, policy)
        csp = resp.headers["Content-Security-Policy"]
        assert csp == expected
        assert "default-src 'none'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]


@pytest.mark.integration
def test_control_characters_in_reads_are_refused_on_every_backend(make_services):
    """PostgreSQL cannot store or compare NUL in text: such input must never reach a query."""
    from ledgerline.http.app import create_app
    from tests.conftest import make_tenant
    from tests.fakes import ControlledExtractor

    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    client = create_app(services).test_client()
    key = auth(tenant.keys["customer"])
    assert client.get(LIST, query_string={"seller": "a\x00b"}, headers=key).status_code == 400
    cursor = _b64("2026-01-01T00:00:00|inv_\x00")
    assert client.get(LIST, query_string={"cursor": cursor}, headers=key).status_code == 400
    for path in (LIST + "/inv_%00", LIST + "/inv_%00/file", LIST + "/%00"):
        resp = client.get(path, headers=key)
        assert resp.status_code == 404 and resp.json["code"] == "not_found", path
