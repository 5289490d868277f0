"""Scans and photos through the HTTP API and the real sandboxed extractor, on every backend:
each accepted format completes with the invoice's key fields; each hostile image fails with its
own code, and its original is kept."""
from __future__ import annotations

import pytest

from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests import scans
from tests.conftest import make_tenant
from tests.hostile import images as hostile

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page():
    return scans.render(dpi=200)


class Api:
    def __init__(self, services):
        self.services = services
        self.tenant = make_tenant(services, "acme")
        self.client = create_app(services).test_client()
        self.auth = {"Authorization": f"Bearer {self.tenant.keys['customer']}"}

    def upload(self, body: bytes):
        # A wrong Content-Type on purpose: the content decides what the body is.
        return self.client.post("/v1/accounts/acme/invoices", data=body,
                                headers={**self.auth, "Content-Type": "application/pdf"})

    def extract(self, body: bytes) -> dict:
        accepted = self.upload(body)
        assert accepted.status_code == 202, accepted.get_data(as_text=True)
        assert Worker(self.services, name="test-worker").run_once()
        return self.client.get(accepted.headers["Location"], headers=self.auth).json


@pytest.fixture
def api(make_services):
    return Api(make_services())


SCANS = {
    "jpeg": lambda page: scans.encode(page.convert("RGB"), "JPEG", quality=80),
    "png": lambda page: scans.encode(page, "PNG"),
    "tiff_two_pages": lambda page: scans.multipage_tiff([page, page.rotate(180)]),
    "image_only_pdf": lambda page: scans.image_only_pdf([page]),
    "photo_webp_skewed": lambda page: scans.encode(scans.turned(page, 3).convert("RGB"), "WEBP",
                                                   dpi=None, quality=80),
    "heif": lambda page: scans.encode(page.convert("RGB"), "HEIF"),
}
MEDIA_TYPES = {"jpeg": "image/jpeg", "png": "image/png", "tiff_two_pages": "image/tiff",
               "image_only_pdf": "application/pdf", "photo_webp_skewed": "image/webp",
               "heif": "image/heif"}


@pytest.mark.parametrize("kind", SCANS)
def test_a_scan_completes_with_its_key_fields(api, page, kind):
    body = SCANS[kind](page)
    invoice = api.extract(body)
    assert invoice["status"] == "completed", invoice.get("error")
    document = invoice["extraction"]
    assert document["source"] == "ocr"
    assert document["document"]["ocr_pages"] == list(range(1, document["document"]["pages"] + 1))
    assert "tesseract-5." in document["versions"]["preprocessing"]
    fields = document["fields"]
    assert {name: fields[name]["value"] for name in scans.EXPECTED} == scans.EXPECTED
    number = fields["invoice_number"]
    assert number["page"] == 1 and len(number["bbox"]) == 4 and 0 < number["confidence"] <= 1

    original = api.client.get(f"/v1/accounts/acme/invoices/{invoice['id']}/file",
                              headers=api.auth)
    assert original.status_code == 200 and original.data == body
    assert original.mimetype == MEDIA_TYPES[kind]


def test_a_mixed_pdf_reads_only_its_scanned_page(api):
    invoice = api.extract(scans.mixed_pdf())
    assert invoice["status"] == "completed"
    assert invoice["extraction"]["document"]["ocr_pages"] == [2]


HOSTILE = {
    "png_pixel_bomb": (hostile.png_pixel_bomb, "image_too_large"),
    "tiff_pixel_bomb": (hostile.tiff_pixel_bomb, "image_too_large"),
    "jpeg_pixel_bomb": (hostile.jpeg_pixel_bomb, "image_too_large"),
    "tiff_10000_pages": (hostile.tiff_many_pages, "image_too_many_pages"),
    "thumbnail": (hostile.thumbnail_png, "image_resolution_too_low"),
    "truncated_jpeg": (lambda: hostile.truncated(SCANS["jpeg"](scans.render(dpi=150))),
                       "image_malformed"),
    "truncated_png": (lambda: hostile.truncated(SCANS["png"](scans.render(dpi=150))),
                      "image_malformed"),
    "truncated_tiff": (lambda: hostile.truncated(scans.multipage_tiff([scans.render(dpi=150)])),
                       "image_malformed"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_image_fails_with_its_code_and_loses_nothing(api, case):
    make, code = HOSTILE[case]
    body = make()
    invoice = api.extract(body)
    assert invoice["status"] == "failed"
    assert invoice["error"]["code"] == code
    kept = api.client.get(f"/v1/accounts/acme/invoices/{invoice['id']}/file", headers=api.auth)
    assert kept.status_code == 200 and kept.data == body


def test_ocr_past_the_time_limit_is_ocr_timeout(make_services, page):
    api = Api(make_services(extract_timeout_seconds=1.5))
    invoice = api.extract(scans.multipage_tiff([page] * 12))
    assert invoice["status"] == "failed"
    assert invoice["error"]["code"] == "ocr_timeout"


def test_what_is_neither_a_document_nor_a_scan_is_415_naming_the_accepted_types(api):
    refused = api.upload(b"GIF89a" + bytes(64))
    assert refused.status_code == 415
    problem = refused.json
    assert problem["code"] == "unsupported_media_type"
    assert "image/jpeg" in problem["detail"] and "application/pdf" in problem["detail"]
