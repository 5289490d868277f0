"""Exports of an account's invoices: CSV and XLSX, every matching invoice, streamed.

The columns and their order are part of the API (docs/api.md, "Exports") and only ever grow at the
end: a spreadsheet or an import script that reads column 9 keeps reading the gross total.
One row per invoice, or one per line item (`rows=line_items`: the invoice's columns repeated,
then the line's). Values are typed once here (`typed_rows`): CSV writes them as text
(booleans `true`/`false`, ISO dates, amounts as the decimal strings of the document, signed
as the document signs them: a credit note's are negative), XLSX as cells of their type.

Memory stays flat whatever the count: rows come in windows from one snapshot of the store
(reads.export; on SQL, adapters/db/invoices.export_invoices), CSV leaves in chunks as it is
written, and XLSX is written by openpyxl in write-only mode (rows go to a temporary file as
they come) and then streamed from that file.
"""
from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from decimal import Decimal

from ..domain.document_types import document_type_of
from ..extraction.document import LINE_ITEM_KEYS

TEXT, AMOUNT, DATE, BOOL, INT, TIME = "text", "amount", "date", "bool", "int", "time"
# (column, kind), in the order they are written.
INVOICE_COLUMNS: list[tuple[str, str]] = [
    ("id", TEXT), ("url", TEXT), ("status", TEXT), ("document_type", TEXT),
    ("invoice_number", TEXT), ("issue_date", DATE), ("due_date", DATE), ("currency", TEXT),
    ("net_total", AMOUNT), ("tax_total", AMOUNT), ("gross_total", AMOUNT),
    ("amount_due", AMOUNT), ("seller_name", TEXT), ("seller_vat_id", TEXT),
    ("buyer_name", TEXT), ("buyer_vat_id", TEXT), ("purchase_order", TEXT), ("iban", TEXT),
    ("review", TEXT), ("review_reasons", TEXT), ("possible_duplicate", BOOL),
    ("duplicate_of", TEXT), ("version", INT), ("created_at", TIME), ("content_hash", TEXT),
    ("uploaded_by", TEXT), ("uploaded_by_key_id", TEXT), ("error_code", TEXT),
    ("preceding_invoice_number", TEXT)]
LINE_COLUMNS: list[tuple[str, str]] = [
    ("line_number", INT), ("description", TEXT), ("quantity", AMOUNT), ("unit_price", AMOUNT),
    ("net_amount", AMOUNT), ("vat_rate", AMOUNT)]
REASON_SEPARATOR = " | "
CSV_CHUNK_ROWS = 200


def columns(*, by_line: bool) -> list[tuple[str, str]]:
    return INVOICE_COLUMNS + (LINE_COLUMNS if by_line else [])


def typed_rows(invoice: dict, url: str, *, by_line: bool) -> list[list]:
    """The invoice's row (or one per line item; an invoice without any: one row), each value
    of its column's kind: str, Decimal, date, datetime, bool, int or None."""
    extraction = invoice.get("extraction") or {}
    fields = extraction.get("fields", {})

    def value(name):
        return (fields.get(name) or {}).get("value")

    uploader = invoice["uploaded_by"]
    known = {
        "id": invoice["id"], "url": url, "status": invoice["status"],
        "document_type": document_type_of(extraction),
        "review": (invoice.get("review") or {}).get("state"),
        "review_reasons": REASON_SEPARATOR.join(
            (extraction.get("review") or {}).get("reasons", [])),
        "possible_duplicate": invoice["possible_duplicate"],
        "duplicate_of": invoice["duplicate_of"], "version": invoice["version"],
        "created_at": invoice["created_at"], "content_hash": invoice["content_hash"],
        "uploaded_by": uploader["name"] or uploader["key_id"],
        "uploaded_by_key_id": uploader["key_id"],
        "error_code": (invoice.get("error") or {}).get("code")}
    base = [_typed(known[name] if name in known else value(name), kind)
            for name, kind in INVOICE_COLUMNS]
    if not by_line:
        return [base]
    items = extraction.get("line_items") or []
    if not items:
        return [base + [None] * len(LINE_COLUMNS)]
    return [base + [number, *(_typed(item.get(key), kind)
                              for key, (_, kind) in zip(LINE_ITEM_KEYS, LINE_COLUMNS[1:]))]
            for number, item in enumerate(items, 1)]


def _typed(value, kind: str):
    if value is None or value == "":
        return None
    if kind == AMOUNT:
        return Decimal(value)
    if kind == DATE:
        return date.fromisoformat(value)
    if kind == TIME:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


# --- CSV ---------------------------------------------------------------------------------------

def csv_chunks(invoices: Iterable[dict], url_of: Callable[[str], str], *, by_line: bool,
               excel: bool) -> Iterator[bytes]:
    """The CSV as UTF-8 chunks. `excel`: a byte order mark and `;` between values, as
    spreadsheet programs in most of Europe open a file by a double click."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";" if excel else ",")
    if excel:
        out.write("\ufeff")
    writer.writerow([name for name, _ in columns(by_line=by_line)])
    count = 0
    for invoice in invoices:
        for row in typed_rows(invoice, url_of(invoice["id"]), by_line=by_line):
            writer.writerow([_csv_text(value) for value in row])
            count += 1
        if count >= CSV_CHUNK_ROWS:
            yield out.getvalue().encode()
            out.seek(0)
            out.truncate()
            count = 0
    yield out.getvalue().encode()


def _csv_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int):
        return str(value)
    return _formula_safe(str(value))


def _formula_safe(text: str) -> str:
    """Neutralise spreadsheet formulas in text that came from someone else's PDF."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(
        text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


# --- XLSX --------------------------------------------------------------------------------------

XLSX_CHUNK = 256 * 1024
DATE_FORMAT, TIME_FORMAT = "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss"


def xlsx_chunks(invoices: Iterable[dict], url_of: Callable[[str], str], *, by_line: bool,
                spool_dir: str | None = None) -> Iterator[bytes]:
    """The workbook, one sheet `invoices`, typed cells: dates as dates, amounts as numbers,
    booleans as booleans, text as text (never a formula)."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    book = Workbook(write_only=True)
    sheet = book.create_sheet("invoices")
    kinds = [kind for _, kind in columns(by_line=by_line)]
    sheet.append([name for name, _ in columns(by_line=by_line)])
    for invoice in invoices:
        for row in typed_rows(invoice, url_of(invoice["id"]), by_line=by_line):
            sheet.append([_cell(WriteOnlyCell, sheet, value, kind)
                          for value, kind in zip(row, kinds)])
    handle, path = tempfile.mkstemp(suffix=".xlsx", dir=spool_dir)
    os.close(handle)
    try:
        book.save(path)
        with open(path, "rb") as f:
            while chunk := f.read(XLSX_CHUNK):
                yield chunk
    finally:
        os.unlink(path)


def _cell(make, sheet, value, kind: str):
    if value is None:
        return None
    if kind == TIME:
        cell = make(sheet, value=value.replace(tzinfo=None))  # UTC; Excel has no zones
        cell.number_format = TIME_FORMAT
        return cell
    if kind == DATE:
        cell = make(sheet, value=value)
        cell.number_format = DATE_FORMAT
        return cell
    if isinstance(value, str):
        cell = make(sheet, value=value)
        cell.data_type = "s"  # text that starts with "=" stays text, never a formula
        return cell
    return value
