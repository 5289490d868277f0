"""What an operator reads of a running service: one JSON line per request and per job
attempt, tied together by the request id the upload came with (or was given), on the embedded
default and on PostgreSQL + S3 (the request id travels with the job's row)."""
from __future__ import annotations

import json
import re

import requests

from ledgerline_tools.samples import generate
from tests.conftest import make_tenant
from tests.e2e.service import served, service_env


def lines(log_path) -> list[dict]:
    """Every line of the service's output after `serve`'s own first line, each one JSON."""
    text = log_path.read_text().splitlines()
    return [json.loads(line) for line in text if not line.startswith("ledgerline: ")]


def test_request_and_job_lines_share_the_uploads_request_id(backend, tmp_path, make_services):
    tenant = make_tenant(make_services(), "acme")
    key = tenant.keys["supplier"]
    pdf, _truth = generate(5, lang="de")
    log_path = tmp_path / "serve.log"
    with served(service_env(backend, tmp_path), log_path=log_path) as base:
        first = requests.post(f"{base}/v1/accounts/acme/invoices", data=pdf, timeout=90,
                              headers={"Authorization": f"Bearer {key}",
                                       "Content-Type": "application/pdf", "Prefer": "wait=60",
                                       "X-Request-Id": "upload-7"})
        assert first.status_code == 201, first.text
        assert first.headers["X-Request-Id"] == "upload-7"
        unnamed = requests.get(f"{base}/v1/accounts/acme/invoices", timeout=30,
                               headers={"Authorization": f"Bearer {key}",
                                        "X-Request-Id": "not a usable id\u00e9"})
        generated = unnamed.headers["X-Request-Id"]
        assert re.fullmatch(r"[0-9a-f]{32}", generated)
    logged = lines(log_path)
    assert key not in log_path.read_text() and key[4:20] not in log_path.read_text()
    [upload] = [line for line in logged if line.get("event") == "request"
                and line.get("request_id") == "upload-7"]
    assert upload["logger"] == "ledgerline.request" and upload["level"] == "info"
    assert {k: upload[k] for k in ("method", "route", "status", "account", "cache")} == {
        "method": "POST", "route": "/v1/accounts/{account}/invoices", "status": 201,
        "account": "acme", "cache": "miss"}
    assert upload["key_id"].startswith("key_") and upload["duration_ms"] > 0
    assert re.match(r"\d{4}-\d\d-\d\dT", upload["timestamp"])
    [job] = [line for line in logged if line.get("event") == "job attempt"]
    assert {k: job[k] for k in ("invoice", "account", "attempt", "provider", "outcome", "cost",
                                "request_id")} == {
        "invoice": first.json()["id"], "account": "acme", "attempt": 1, "provider": "rules",
        "outcome": "published", "cost": "0.004", "request_id": "upload-7"}
    assert job["job"].startswith("job_") and job["duration_ms"] > 0
    [listing] = [line for line in logged if line.get("request_id") == generated]
    assert listing["route"] == "/v1/accounts/{account}/invoices" and listing["status"] == 200
