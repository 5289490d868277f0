"""Test doubles for the extractor only; databases and object stores in tests are real."""
from __future__ import annotations

import threading
import time

from ledgerline.domain.cache import ExtractorVersions
from ledgerline.extraction.errors import ExtractionError

VERSIONS = ExtractorVersions(schema="invoice-v1", preprocessing="test-p1", model="test-m1",
                             model_config_digest="test-c1")


class ControlledExtractor:
    """Counts calls; can be held at a gate, slowed down, or made to fail."""

    def __init__(self, *, gate: threading.Event | None = None, delay: float = 0.0,
                 failures: list[ExtractionError] | None = None, invoice_number: str | None = None):
        self.versions = VERSIONS
        self.invoice_number = invoice_number
        self.gate = gate
        self.delay = delay
        self.failures = list(failures or [])
        self.calls: list[str] = []
        self.started = threading.Event()
        self._lock = threading.Lock()

    def extract(self, path: str, content_hash: str) -> dict:
        with self._lock:
            self.calls.append(content_hash)
            number = len(self.calls)
            failure = self.failures.pop(0) if self.failures else None
        self.started.set()
        if self.gate is not None:
            assert self.gate.wait(30), "test gate never opened"
        time.sleep(self.delay)
        if failure:
            raise failure
        return document(content_hash, self.invoice_number or f"CALL-{number}")


def document(content_hash: str, invoice_number: str) -> dict:
    def field(value):
        return {"value": value, "confidence": 0.9, "raw": value, "page": 1, "bbox": None}
    names = ["issue_date", "due_date", "currency", "seller_name", "seller_vat_id", "buyer_name",
             "buyer_vat_id", "purchase_order", "iban", "net_total", "tax_total", "gross_total",
             "amount_due"]
    fields = {name: field(None) for name in names}
    fields.update(invoice_number=field(invoice_number), issue_date=field("2026-11-02"),
                  seller_name=field("Test Seller GmbH"), gross_total=field("119.00"),
                  currency=field("EUR"))
    return {"schema_version": "invoice-v1", "source": "text_layer",
            "versions": {"schema": "invoice-v1", "preprocessing": "test-p1", "model": "test-m1"},
            "document": {"content_hash": content_hash, "pages": 1}, "fields": fields,
            "line_items": [], "validations": [], "review": {"required": False, "reasons": []}}


def pdf_bytes(tag: str, size: int = 2000) -> bytes:
    """Distinct small bodies that pass the PDF content check."""
    body = f"%PDF-1.4\n% {tag}\n".encode()
    return body + b"0" * max(0, size - len(body))
