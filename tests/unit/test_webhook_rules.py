"""The rules of webhooks that need no server: who may be called, what an event says."""
from __future__ import annotations

import pytest

from ledgerline.domain import webhooks as rules
from ledgerline.domain.webhooks import AddressPolicy, Refused, parse_networks
from ledgerline.domain.document_types import DOCUMENT_TYPES, document_type_of
from ledgerline.extraction import document as extracted


@pytest.mark.parametrize("allow, address, scheme, allowed", [
    ("127.0.0.1/32", "127.0.0.1", "http", True),
    ("127.0.0.1/32", "::ffff:127.0.0.1", "http", True),   # the socket reaches 127.0.0.1
    ("127.0.0.1/32", "2002:7f00:1::1", "http", False),    # 6to4: the socket reaches the IPv6
    ("127.0.0.1/32", "2002:7f00:1::1", "https", False),   # and it carries loopback
    ("2002:7f00:1::/48", "2002:7f00:1::1", "http", True),  # allowed as itself
    ("", "2002:808:808::1", "https", True),               # 6to4 of a public address
    ("", "2002:a00:1::1", "https", False),                # 6to4 of 10.0.0.1
    ("", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "https", False),  # Teredo
    ("", "64:ff9b::a00:1", "https", False),               # NAT64 of 10.0.0.1
    ("", "2001:4860:4860::8888", "https", True),
    ("", "10.0.0.1", "https", False),
])
def test_the_address_connected_to_is_judged_as_itself(allow, address, scheme, allowed):
    policy = AddressPolicy(parse_networks(allow))
    if allowed:
        policy.check(address, scheme)
    else:
        with pytest.raises(Refused):
            policy.check(address, scheme)


def _entry(value):
    return {"value": value, "confidence": 0.95, "raw": None, "page": None, "bbox": None}


@pytest.mark.parametrize("document, expected", [
    ({"fields": {}}, "invoice"),                          # invoice-v1: no document type yet
    ({"fields": {"document_type": _entry("credit_note")}}, "credit_note"),
    ({"fields": {"document_type": _entry("invoice")}}, "invoice"),
    ({"fields": {"document_type": _entry(None)}}, "invoice"),
])
def test_the_document_type_is_the_results_field_or_an_invoice(document, expected):
    assert document_type_of(document) == expected


def test_the_service_reads_the_names_the_extraction_writes():
    assert DOCUMENT_TYPES == extracted.DOCUMENT_TYPES


def test_an_event_says_a_credit_note_is_one_and_its_amounts_signed():
    document = {"fields": {"document_type": _entry("credit_note"), "currency": _entry("EUR"),
                           "gross_total": _entry("-119.00"), "amount_due": _entry("-119.00")},
                "review": {"reasons": []}}
    invoice = {"status": "completed", "version": 0, "document": document,
               "review": {"state": "not_required"}}
    data = rules.event_data("acme", "inv_1", "invoice.completed", None, invoice)
    assert (data["document_type"], data["gross_total"], data["amount_due"]) == (
        "credit_note", "-119.00", "-119.00")


def test_an_event_of_a_gone_invoice_says_so():
    data = rules.event_data("acme", "inv_1", "invoice.completed", None, None)
    assert data["status"] == "deleted" and data["review"] is None


def test_delivery_time_used_counts_for_less_as_it_ages():
    half = rules.USAGE_HALF_LIFE_SECONDS
    assert rules.decayed_usage(8.0, 0) == 8.0
    assert rules.decayed_usage(8.0, half) == 4.0
    assert rules.decayed_usage(8.0, 3 * half) == 1.0
    assert rules.decayed_usage(8.0, -5) == 8.0  # clocks that disagree never add time
