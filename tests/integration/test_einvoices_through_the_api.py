"""E-invoice XML through the HTTP API and the real sandboxed extractor, on every backend: UBL,
CII and KSeF complete with their fields, a second upload is a cache hit, the file endpoint gives
the original XML back, and hostile XML fails with its own code while its original is kept."""
from __future__ import annotations

import io

import pytest

from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests import einvoices
from tests.conftest import make_tenant
from tests.unit.extraction import test_crafted_einvoices as crafted
from tests.unit.extraction.test_einvoice_files import HOSTILE

pytestmark = pytest.mark.slow
MB = 1024 * 1024


class Api:
    def __init__(self, services):
        self.services = services
        self.tenant = make_tenant(services, "acme")
        self.client = create_app(services).test_client()

    def auth(self, role="customer"):
        return {"Authorization": f"Bearer {self.tenant.keys[role]}"}

    def upload(self, body, role="customer", content_type="application/xml"):
        return self.client.post("/v1/accounts/acme/invoices", data=body,
                                headers={**self.auth(role), "Content-Type": content_type})

    def extract(self, body, **kw) -> dict:
        accepted = self.upload(body, **kw)
        assert accepted.status_code == 202, accepted.get_data(as_text=True)
        assert Worker(self.services, name="test-worker").run_once()
        return self.client.get(accepted.headers["Location"], headers=self.auth()).json


@pytest.fixture
def api(make_services):
    return Api(make_services())


@pytest.mark.parametrize("kind,content_type", [("peppol", "application/xml"),
                                               ("xrechnung-cii", "text/xml"),
                                               ("ksef-fa3", "application/octet-stream")])
def test_an_einvoice_completes_with_its_fields_and_is_then_a_cache_hit(api, kind, content_type):
    body, expected = einvoices.make(kind, 4)
    invoice = api.extract(body, role="supplier", content_type=content_type)
    assert invoice["status"] == "completed", invoice.get("error")
    document = invoice["extraction"]
    assert document["source"] == "xml"
    assert {k: v["value"] for k, v in document["fields"].items()} == expected
    assert document["review"]["required"] is False, document["review"]
    again = api.upload(body, role="customer")
    assert again.status_code == 201 and again.headers["Ledgerline-Cache"] == "hit"
    assert again.json["extraction"]["fields"] == document["fields"]
    original = api.client.get(f"/v1/accounts/acme/invoices/{invoice['id']}/file",
                              headers=api.auth())
    assert original.status_code == 200 and original.data == body
    assert original.mimetype == "application/xml"
    assert original.headers["Content-Disposition"].endswith('.xml"')


def test_a_failed_rule_reaches_the_review_by_its_id(api):
    body, _expected = einvoices.make("xrechnung-ubl", 2)
    body = body.replace(b"<cbc:BuyerReference>04011000-12345-34</cbc:BuyerReference>", b"")
    invoice = api.extract(body)
    assert invoice["status"] == "completed"
    reasons = invoice["extraction"]["review"]["reasons"]
    assert any(r.startswith("BR-DE-15 failed") for r in reasons), reasons


@pytest.mark.parametrize("case", ["xxe", "billion_laughs", "deep_nesting", "dtd",
                                  "not_an_invoice"])
def test_hostile_xml_fails_with_its_code_and_keeps_the_original(api, case):
    body, code = HOSTILE[case]
    invoice = api.extract(body)
    assert invoice["status"] == "failed"
    assert invoice["error"]["code"] == code
    kept = api.client.get(f"/v1/accounts/acme/invoices/{invoice['id']}/file", headers=api.auth())
    assert kept.status_code == 200 and kept.data == body


def test_crafted_xml_cannot_switch_the_official_rules_off(api):
    """An invoice breaking BR-09/BR-11 with a Persian-digit VAT rate goes to review, the rules
    could not run; 240 levels of junk or 10,001 attributes fail before the rules' engine."""
    broken = crafted.without_countries("cii")
    persian = api.extract(crafted.digits(broken, crafted.RATE["cii"], crafted.PERSIAN).encode())
    assert persian["status"] == "completed"
    assert persian["review"]["state"] == "required"
    assert any(r.startswith("EN16931 not checked: the schematron engine failed")
               for r in persian["extraction"]["review"]["reasons"])
    for case in ("240_deep", "10001_attributes"):
        element, code = crafted.CRAFTED[case]
        refused = api.extract(crafted.junk(broken, element))
        assert refused["status"] == "failed" and refused["error"]["code"] == code


class Huge(io.RawIOBase):
    """A 200 MB e-invoice-shaped XML body, streamed (never held in memory)."""

    def __init__(self, size: int):
        self.head = b'<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">'
        self.left = size

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        if n <= 0:
            return 0
        chunk = (self.head + b" " * n)[:n] if self.head else b" " * n
        self.head = b""
        buffer[:n] = chunk
        self.left -= n
        return n


def test_a_200_mb_xml_is_refused_at_the_door_and_nothing_is_stored(api):
    refused = api.upload(io.BufferedReader(Huge(200 * MB)))
    assert refused.status_code == 413
    listed = api.client.get("/v1/accounts/acme/invoices", headers=api.auth()).json
    assert listed["items"] == []


def test_a_200_mb_xml_under_a_raised_upload_cap_fails_as_too_large(make_services):
    api = Api(make_services(max_upload_bytes=256 * MB))
    invoice = api.extract(io.BufferedReader(Huge(200 * MB)))
    assert invoice["status"] == "failed" and invoice["error"]["code"] == "xml_too_large"
