"""The whole path through `ledgerline serve` (gunicorn, several processes, embedded workers)
with the real extractor on corpus invoices, on the embedded default and on PostgreSQL + S3."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pytest
import requests
from sqlalchemy import create_engine, text

from tests.conftest import corpus_pdfs, make_tenant
from tests.e2e.service import served, service_env
from tests.fakes import ControlledExtractor

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schemas" / "invoice-v2.schema.json"


@pytest.fixture
def service(backend, tmp_path, make_services):
    # Accounts and keys through the library (the CLI has its own tests): faster set-up.
    services = make_services(extractor=ControlledExtractor())
    acme, globex = make_tenant(services, "acme"), make_tenant(services, "globex")
    keys = {**acme.keys, "intruder": globex.keys["customer"]}
    env = service_env(backend, tmp_path)
    with served(env, "--workers", "2", log_path=tmp_path / "serve.log") as base:
        yield Service(base, keys, backend)


class Service:
    def __init__(self, base, keys, backend):
        self.base, self.keys, self.backend = base, keys, backend

    def upload(self, role, body: bytes, **headers):
        return requests.post(f"{self.base}/v1/accounts/acme/invoices", data=body, timeout=90,
                             headers={"Authorization": f"Bearer {self.keys[role]}",
                                      "Content-Type": "application/pdf", **headers})

    def get(self, role, path):
        return requests.get(f"{self.base}{path}", timeout=30,
                            headers={"Authorization": f"Bearer {self.keys[role]}"})

    def model_calls(self) -> int:
        engine = create_engine(self.backend.database_url)
        try:
            with engine.connect() as conn:
                return conn.execute(text("SELECT count(*) FROM model_calls")).scalar()
        finally:
            engine.dispose()


def test_two_callers_one_model_call_and_schema_valid_output(service):
    pdf = corpus_pdfs(limit=1)[0].read_bytes()
    first = service.upload("supplier", pdf, Prefer="wait=60")
    assert first.status_code == 201, first.text
    assert first.headers["Ledgerline-Cache"] == "miss"
    invoice = first.json()
    assert invoice["status"] == "completed"
    jsonschema.validate(invoice["extraction"], json.loads(SCHEMA_PATH.read_text()))
    assert invoice["extraction"]["document"]["content_hash"] == invoice["content_hash"]

    second = service.upload("customer", pdf)
    assert second.status_code == 201 and second.headers["Ledgerline-Cache"] == "hit"
    assert second.json()["extraction"] == invoice["extraction"]
    assert service.model_calls() == 1

    original = service.get("customer", f"/v1/accounts/acme/invoices/{second.json()['id']}/file")
    assert original.status_code == 200 and original.content == pdf
    assert service.get("supplier", f"/v1/accounts/acme/invoices/{second.json()['id']}").status_code == 404
    assert service.get("intruder", f"/v1/accounts/acme/invoices/{invoice['id']}").status_code == 404


def test_twenty_concurrent_identical_uploads_one_model_call(service):
    pdf = corpus_pdfs(limit=3)[2].read_bytes()

    def upload(i):
        return service.upload("customer" if i % 2 else "supplier", pdf, Prefer="wait=60")

    with ThreadPoolExecutor(20) as pool:
        responses = list(pool.map(upload, range(20)))
    assert all(r.status_code == 201 for r in responses), [r.text for r in responses]
    outcomes = [r.headers["Ledgerline-Cache"] for r in responses]
    assert outcomes.count("miss") == 1, outcomes
    assert len({json.dumps(r.json()["extraction"], sort_keys=True) for r in responses}) == 1
    assert service.model_calls() == 1


def test_replay_conflict_and_fresh_processing(service):
    pdf = corpus_pdfs(limit=2)[1].read_bytes()
    first = service.upload("customer", pdf, **{"Idempotency-Key": '"po-4711"', "Prefer": "wait=60"})
    replay = service.upload("customer", pdf, **{"Idempotency-Key": '"po-4711"'})
    assert replay.status_code == 200 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json()["id"] == first.json()["id"]
    conflict = service.upload("customer", pdf + b"\n%%EOF\n", **{"Idempotency-Key": '"po-4711"'})
    assert conflict.status_code == 422
    assert conflict.headers["Content-Type"] == "application/problem+json"
    fresh = service.upload("customer", pdf, **{"Cache-Control": "no-cache", "Prefer": "wait=60"})
    assert fresh.status_code == 201 and fresh.headers["Ledgerline-Cache"] == "bypass"
    assert service.model_calls() == 2


def test_operational_endpoints(service):
    from ledgerline import __version__

    assert requests.get(f"{service.base}/healthz", timeout=5).json() == {
        "status": "ok", "version": __version__}
    # Every process answers for itself; each has warmed up by now (tests/e2e/service.py).
    for _ in range(6):
        assert requests.get(f"{service.base}/readyz", timeout=5).json()["status"] == "ready"
    # Metrics are for operators and the metrics token only (tests/api/test_edges.py).
    assert requests.get(f"{service.base}/metrics", timeout=5).status_code == 401
    assert service.get("customer", "/metrics").status_code == 404
    assert service.upload("dashboard", b"%PDF-1.4 x").status_code == 403
