"""Every text a client writes is cleaned as field values are, or refused with a 422 naming the
field; no client input is answered with a 500. Through the HTTP app on both backends
(PostgreSQL refuses NUL in text; neither stores a lone surrogate)."""
from __future__ import annotations

import csv
import io

import pytest

from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes

# Red-team inputs: a lone surrogate, NUL, other control characters.
DIRTY = ["a\ud800b", "a\x00b", "a\x1b[31mb\x7f", "\udfff"]


class Env:
    def __init__(self, services):
        self.services = services
        self.acme = make_tenant(services, "acme")
        self.client = create_app(services).test_client()
        self.auth = {"Authorization": f"Bearer {self.acme.keys['customer']}"}

    def completed(self, tag: str) -> str:
        made = self.client.post("/v1/accounts/acme/invoices", data=pdf_bytes(tag), headers={
            **self.auth, "Content-Type": "application/pdf"}).json
        while Worker(self.services).run_once():
            pass
        return made["id"]

    def send(self, method: str, path: str, body, raw: bool = False):
        data = body if raw else None
        return self.client.open(path, method=method, headers={
            **self.auth, "Content-Type": "application/json"},
            data=data, json=None if raw else body)


@pytest.fixture
def env(make_services):
    return Env(make_services(extractor=ControlledExtractor()))


@pytest.mark.parametrize("dirty", DIRTY)
def test_descriptions_and_reasons_are_cleaned_and_every_export_still_works(env, dirty):
    invoice = env.completed(f"text-{DIRTY.index(dirty)}")
    path = f"/v1/accounts/acme/invoices/{invoice}"
    patched = env.send("PATCH", path, {"line_items": [{"description": dirty,
                                                       "net_amount": "100.00"}],
                                       "reason": f"typo {dirty}"})
    assert patched.status_code == 200, patched.json
    expected = " ".join(dirty.replace("\x00", " ").replace("\x1b", " ").replace("\x7f", " ")
                        .replace("\ud800", "").replace("\udfff", "").split()) or None
    assert patched.json["extraction"]["line_items"][0]["description"] == expected
    history = env.client.get(f"{path}/history", headers=env.auth).json["items"]
    assert history[-1]["reason"] == " ".join(f"typo {expected or ''}".split())
    for rows in ("invoices", "line_items"):
        export = env.client.get(f"/v1/accounts/acme/invoices?format=csv&rows={rows}",
                                headers=env.auth)
        assert export.status_code == 200
        text = export.get_data(as_text=True)
        assert "\x00" not in text and list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("dirty", DIRTY)
def test_a_review_note_is_cleaned(make_services, dirty):
    class Reviewing(ControlledExtractor):
        def extract(self, path, content_hash, context=None):
            doc = super().extract(path, content_hash, context)
            doc["review"] = {"required": True, "reasons": ["check me"]}
            return doc

    env = Env(make_services(extractor=Reviewing()))
    invoice = env.completed("note")
    resolved = env.send("POST", f"/v1/accounts/acme/invoices/{invoice}/review",
                        {"note": dirty})
    assert resolved.status_code == 200, resolved.json
    history = env.client.get(f"/v1/accounts/acme/invoices/{invoice}/history",
                             headers=env.auth).json["items"]
    assert "\x00" not in str(history) and "\ud800" not in str(history)


@pytest.mark.parametrize("dirty", DIRTY)
def test_a_webhook_url_that_cannot_be_stored_is_a_422_naming_it(env, dirty):
    resp = env.send("POST", "/v1/accounts/acme/webhooks",
                    {"url": f"https://hooks.example/{dirty}", "events": ["invoice.completed"]})
    assert resp.status_code == 422, resp.json
    assert resp.json["code"] == "invalid_text" and resp.json["detail"].startswith("url ")
    made = env.send("POST", "/v1/accounts/acme/webhooks",
                    {"url": "https://hooks.example/in", "events": ["invoice.completed"]})
    changed = env.send("PATCH", made.headers["Location"],
                       {"url": f"https://hooks.example/{dirty}"})
    assert changed.status_code == 422 and changed.json["code"] == "invalid_text", changed.json


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_json_nested_deeper_than_any_body_is_a_400(env, depth):
    invoice = env.completed("deep")
    nested = b"[" * depth + b"]" * depth
    bodies = {f"/v1/accounts/acme/invoices/{invoice}": ("PATCH", b'{"fields": ' + nested + b"}"),
              f"/v1/accounts/acme/invoices/{invoice}/review": ("POST", b'{"note": ' + nested + b"}"),
              "/v1/accounts/acme/webhooks": ("POST", b'{"url": ' + nested + b"}")}
    for path, (method, body) in bodies.items():
        resp = env.send(method, path, body, raw=True)
        assert resp.status_code == 400, (path, resp.json)
        assert resp.json["code"] == "bad_request"
