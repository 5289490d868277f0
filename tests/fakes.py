"""Test doubles for the extractor only; databases and object stores in tests are real (or the
in-memory database shipped with the service, adapters/memory, which the contract tests hold to
the same promises)."""
from __future__ import annotations

import threading
import time

from ledgerline.domain.cache import ExtractorVersions
from ledgerline.domain.providers import Provider
from ledgerline.extraction.errors import ExtractionError
from ledgerline.ports.extractor import CallContext

VERSIONS = ExtractorVersions(schema="invoice-v2", preprocessing="test-p1", model="test-m1",
                             model_config_digest="test-c1")


class ControlledExtractor:
    """The extractor port, at the rules' flat price: counts calls; can be held at a gate,
    slowed down, or made to fail. `cancel()` only says so (`cancelled`): a call in flight
    runs on, as a provider's request already sent does."""

    provider = Provider.RULES
    health = None  # no sandbox: readiness says "not_used"
    needs_original = True

    def __init__(self, *, gate: threading.Event | None = None, delay: float = 0.0,
                 failures: list[ExtractionError] | None = None, invoice_number: str | None = None):
        self.versions = VERSIONS
        self.cancelled = threading.Event()
        self.invoice_number = invoice_number
        self.gate = gate
        self.delay = delay
        self.failures = list(failures or [])
        self.calls: list[str] = []
        self.started = threading.Event()
        self._lock = threading.Lock()

    def warm(self, stop: threading.Event | None = None) -> None:
        pass

    def cancel(self) -> None:
        self.cancelled.set()

    def resume(self) -> None:
        self.cancelled.clear()

    def extract(self, path: str | None, content_hash: str,
                context: CallContext | None = None) -> dict:
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
    return {"schema_version": "invoice-v2", "source": "text_layer",
            "versions": {"schema": "invoice-v2", "preprocessing": "test-p1", "model": "test-m1"},
            "document": {"content_hash": content_hash, "pages": 1}, "fields": fields,
            "line_items": [], "validations": [], "review": {"required": False, "reasons": []}}


def pdf_bytes(tag: str, size: int = 2000) -> bytes:
    """Distinct small bodies that pass the PDF content check."""
    body = f"%PDF-1.4\n% {tag}\n".encode()
    return body + b"0" * max(0, size - len(body))
