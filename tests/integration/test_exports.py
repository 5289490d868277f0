"""Exports hold every row: CSV and XLSX of every matching invoice, streamed in steady memory,
with the documented columns, and the duplicate flag and filter. Through the HTTP app, on every
backend."""
from __future__ import annotations

import csv
import io
import tracemalloc
from datetime import date, datetime
from decimal import Decimal

import pytest

from ledgerline.adapters.db.invoices import EXPORT_BATCH
from ledgerline.http import exports
from tests.bulk_invoices import insert_completed
from tests.fakes import ControlledExtractor, pdf_bytes
from tests.integration.test_corrections import Env

COLUMNS = ["id", "url", "status", "document_type", "invoice_number", "issue_date", "due_date",
           "currency", "net_total", "tax_total", "gross_total", "amount_due", "seller_name",
           "seller_vat_id", "buyer_name", "buyer_vat_id", "purchase_order", "iban", "review",
           "review_reasons", "possible_duplicate", "duplicate_of", "version", "created_at",
           "content_hash", "uploaded_by", "uploaded_by_key_id", "error_code",
           "preceding_invoice_number"]


@pytest.fixture
def env(make_services):
    return Env(make_services(extractor=ControlledExtractor()))


def _csv(resp, delimiter=","):
    assert resp.status_code == 200, resp.data[:300]
    text = resp.data.decode("utf-8-sig" if delimiter == ";" else "utf-8")
    return list(csv.DictReader(io.StringIO(text), delimiter=delimiter))


def test_the_csv_holds_every_invoice_in_the_documented_columns(env):
    customer = env.acme.caller(env.services, "customer").key_id
    insert_completed(env.services.engine, "acme", customer, 120, sellers=7)
    uploaded = env.completed("customer", pdf_bytes("own-upload"))
    resp = env.get("customer", "/v1/accounts/acme/invoices.csv")
    assert resp.mimetype == "text/csv" and resp.headers["Content-Disposition"] == (
        "attachment; filename=invoices.csv")
    header = resp.data.decode().splitlines()[0]
    assert header.split(",") == COLUMNS == [name for name, _ in exports.INVOICE_COLUMNS]
    rows = _csv(resp)
    assert len(rows) == 121 and rows[0]["id"] == uploaded  # newest first, no page of 50
    assert rows[0]["url"] == f"http://localhost/v1/accounts/acme/invoices/{uploaded}"
    assert {r["possible_duplicate"] for r in rows} == {"false"}
    assert rows[-1]["seller_name"] == "Lieferant 0000 Sanitär GmbH"
    assert rows[-1]["document_type"] == "invoice" and rows[-1]["review"] == "not_required"
    # ?format=csv is the same export; the JSON list keeps its pages.
    assert _csv(env.get("customer", "/v1/accounts/acme/invoices?format=csv")) == rows
    page = env.get("customer", "/v1/accounts/acme/invoices").json
    assert len(page["items"]) == 50 and page["next_cursor"]
    # A client that always sends `limit` still gets every row: an export is not a page.
    assert _csv(env.get("customer", "/v1/accounts/acme/invoices?format=csv&limit=10")) == rows
    filtered = _csv(env.get("customer", "/v1/accounts/acme/invoices.csv",
                            query_string={"seller": "lieferant 0003"}))
    assert len(filtered) == 17 and all("0003" in r["seller_name"] for r in filtered)
    assert env.get("supplier", "/v1/accounts/acme/invoices.csv").data.decode().count("\n") == 1
    assert env.get("customer", "/v1/accounts/globex/invoices.csv").status_code == 404


def test_excel_csv_has_a_bom_and_semicolons_and_signed_credit_notes(env):
    customer = env.acme.caller(env.services, "customer").key_id
    ids = insert_completed(env.services.engine, "acme", customer, 3, credit_every=3)
    env.patch("customer", ids[0], {"fields": {"seller_name": "Sanitär Müller; Söhne"}})
    resp = env.get("customer", "/v1/accounts/acme/invoices.csv?excel=1")
    assert resp.data.startswith("\ufeff".encode()) and b"id;url;status;" in resp.data[:40]
    rows = {r["id"]: r for r in _csv(resp, ";")}
    assert rows[ids[0]]["seller_name"] == "Sanitär Müller; Söhne"
    credit = rows[ids[2]]
    assert credit["document_type"] == "credit_note" and credit["gross_total"].startswith("-3.")
    assert rows[ids[1]]["document_type"] == "invoice" and rows[ids[1]]["gross_total"][0] == "2"
    assert not env.get("customer", "/v1/accounts/acme/invoices.csv").data.startswith(b"\xef")
    assert env.get("customer", "/v1/accounts/acme/invoices.csv?excel=maybe").status_code == 400


def test_line_item_rows_follow_the_invoice_columns(env):
    invoice_id = env.completed("customer", pdf_bytes("lines"))
    env.patch("customer", invoice_id, {"line_items": [
        {"description": "=HYPERLINK(\"x\")", "quantity": "2", "unit_price": "50.00",
         "net_amount": "100.00", "vat_rate": "19"},
        {"description": "Fracht", "quantity": "1", "net_amount": "19.00"}]})
    resp = env.get("customer", "/v1/accounts/acme/invoices.csv?rows=line_items")
    header = resp.data.decode().splitlines()[0].split(",")
    assert header == COLUMNS + ["line_number", "description", "quantity", "unit_price",
                                "net_amount", "vat_rate"]
    rows = _csv(resp)
    assert [(r["line_number"], r["description"], r["unit_price"]) for r in rows] == [
        ("1", "'=HYPERLINK(\"x\")", "50.00"), ("2", "Fracht", "")]


def test_xlsx_has_typed_cells(env):
    from openpyxl import load_workbook

    first = env.completed("customer", pdf_bytes("xlsx-1"))
    env.patch("customer", first, {"fields": {"invoice_number": "=1+1"}})
    env.client.post("/v1/accounts/acme/invoices", data=pdf_bytes("xlsx-1"), headers={
        **env.headers("supplier"), "Content-Type": "application/pdf"})  # the same bytes
    for path in ("/v1/accounts/acme/invoices.xlsx", "/v1/accounts/acme/invoices?format=xlsx"):
        resp = env.get("customer", path)
        assert resp.status_code == 200 and resp.mimetype == exports_type()
        sheet = load_workbook(io.BytesIO(resp.data), read_only=True)["invoices"]
        header, *rows = sheet.iter_rows(values_only=True)
        assert list(header) == COLUMNS
        by_id = {row[0]: dict(zip(header, row)) for row in rows}
        mine = by_id[first]
        assert mine["invoice_number"] == "=1+1"  # text, never a formula
        assert isinstance(mine["issue_date"], datetime) and mine["issue_date"].date() == date(
            2026, 11, 2)
        assert mine["gross_total"] == 119 and isinstance(mine["gross_total"], (int, float))
        assert mine["possible_duplicate"] is True and mine["version"] == 1
        copy = next(r for i, r in by_id.items() if i != first)
        assert copy["duplicate_of"] == first and copy["possible_duplicate"] is True
        assert isinstance(copy["created_at"], datetime)


def exports_type():
    from ledgerline.http.invoices import XLSX_TYPE
    return XLSX_TYPE


def test_duplicates_are_flagged_and_filtered_in_lists_and_exports(env):
    first = env.completed("customer", pdf_bytes("dup-file"))
    copy = env.upload("supplier", pdf_bytes("dup-file"))["id"]  # another party, same bytes
    other = env.completed("customer", pdf_bytes("other-file"))  # same seller, gross and date
    env.patch("customer", other, {"fields": {"issue_date": "2026-01-05"}})
    unique = env.completed("customer", pdf_bytes("unique"))
    env.patch("customer", unique, {"fields": {"seller_name": "Someone Else AG"}})
    items = {i["id"]: i for i in env.get("customer", "/v1/accounts/acme/invoices").json["items"]}
    assert (items[copy]["possible_duplicate"], items[copy]["duplicate_of"]) == (True, first)
    assert (items[first]["possible_duplicate"], items[first]["duplicate_of"]) == (True, copy)
    assert items[other]["duplicate_of"] is None and items[unique]["duplicate_of"] is None
    assert env.invoice("customer", copy).json["duplicate_of"] == first

    def ids(query, path="/v1/accounts/acme/invoices"):
        return {i["id"] for i in env.get("customer", path, query_string=query).json["items"]}

    assert ids({"duplicates": "only"}) == {first, copy}
    assert ids({"duplicates": "exclude"}) == {other, unique}
    rows = _csv(env.get("customer", "/v1/accounts/acme/invoices.csv?duplicates=only"))
    assert {(r["id"], r["possible_duplicate"], r["duplicate_of"]) for r in rows} == {
        (first, "true", copy), (copy, "true", first)}
    assert env.get("customer", "/v1/accounts/acme/invoices?duplicates=some").status_code == 400
    # Back to the same bill (the same seller, number and gross as the first): flagged.
    env.patch("customer", other, {"fields": {"invoice_number": "CALL-1"}})
    assert env.invoice("customer", other).json["duplicate_of"] == first
    # A supplier sees duplicates among its own uploads only: none here.
    supplier = env.get("supplier", "/v1/accounts/acme/invoices").json["items"]
    assert [(i["id"], i["possible_duplicate"]) for i in supplier] == [(copy, False)]


def _peak_while_streaming(env, path: str) -> tuple[int, int]:
    """(bytes of the answer, peak Python memory while it streamed)."""
    resp = env.client.get(path, headers=env.headers("customer"), buffered=False)
    assert resp.status_code == 200
    size = 0
    tracemalloc.start()
    try:
        for chunk in resp.response:
            size += len(chunk)
        return size, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        resp.close()


@pytest.mark.slow
def test_an_export_streams_in_steady_memory(env):
    customer = env.acme.caller(env.services, "customer").key_id
    # Three batches of the cursor, then three times as many: the peak is a batch's.
    batches = 3 * EXPORT_BATCH
    insert_completed(env.services.engine, "acme", customer, batches, duplicate_every=50)
    small_size, small_peak = _peak_while_streaming(env, "/v1/accounts/acme/invoices.csv")
    insert_completed(env.services.engine, "acme", customer, 2 * batches, duplicate_every=50,
                     prefix="more")
    big_size, big_peak = _peak_while_streaming(env, "/v1/accounts/acme/invoices.csv")
    assert big_size > 2.9 * small_size
    assert big_peak < 1.2 * small_peak, (small_peak, big_peak)
    rows = _csv(env.get("customer", "/v1/accounts/acme/invoices.csv?duplicates=only"))
    assert len(rows) == 2 * (3 * batches // 50) and Decimal(rows[0]["gross_total"]) > 0
