"""Invoice endpoints: upload, get, list (JSON or CSV), the original file, corrections,
review, history and deletion. Each view's request and response models stand above it."""
from __future__ import annotations

import json
import re
from datetime import date, datetime
from typing import Annotated, Literal

from flask import Response, current_app, jsonify, request, stream_with_context, url_for
from flask_openapi3 import APIBlueprint
from pydantic import AfterValidator, Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from ..domain import corrections as rules
from ..domain.errors import BadRequest, OneFilePerRequest, TooLarge, UnsupportedFormat
from ..domain.document_types import DOCUMENT_TYPES as KINDS_OF_INVOICE
from ..formats import HEAD_BYTES, detect
from ..service_layer import corrections, deletion, reads
from ..service_layer.intake import authorise_upload, retry, upload
from . import exports, headers, limits
from .auth import current_caller
from .models import (
    LOCATION,
    PROBLEM,
    AccountPath,
    ApiModel,
    InvoicePath,
    Status,
    Strict,
    component,
    documented_ref,
    header,
    header_parameters,
    json_body,
    json_response,
    nullable,
    problems,
)
from .pagination import Limit, cursor_field, decode_cursor, page

bp = APIBlueprint("invoices", __name__)
INVOICE_ID = re.compile(r"inv_[A-Za-z0-9]{1,28}")
# A cursor holds a creation time exactly as this service writes it: UTC, no other offset.
ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
CURSOR_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z?")
NULLABLE_STRING = {"type": ["string", "null"]}


def _services():
    return current_app.extensions["ledgerline"]


@bp.before_request
def _authenticate():
    current_caller()  # 401 before any parameter is read, as for every API call


# --- what an invoice looks like --------------------------------------------------------------

class UploadedBy(Strict):
    key_id: str
    role: Literal["customer", "supplier"]
    name: str | None


class Error(Strict):
    code: str | None
    message: str | None


class Review(Strict):
    state: Annotated[Literal["not_required", "required", "resolved"], Field(
        description="`required`: the extraction asked for review (its reasons are in "
                    "`extraction.review.reasons`) and nobody resolved it yet.")]
    resolved_at: Annotated[datetime | None, Field(json_schema_extra={"format": "date-time"})]
    resolved_by: Annotated[str | None, Field(description="The key id that resolved it.")]


class InvoiceBase(ApiModel):
    id: str
    version: Annotated[int, Field(ge=0, description="How many corrections and review "
                                                    "resolutions the invoice had (its history).")]
    review: Annotated[Review | None, Field(description="Null until the invoice completed.")]
    account: str
    status: Status
    content_hash: Annotated[str, Field(pattern="^blake3:[0-9a-f]{64}$")]
    uploaded_by: UploadedBy
    created_at: datetime
    error: Error | None
    possible_duplicate: Annotated[bool, Field(
        description="Whether the account holds possible duplicates of this invoice, among "
                    "those the caller may see: the same file uploaded again, or another file "
                    "with the same seller and invoice number, or the same seller, gross total "
                    "and issue date (see `possible_duplicates`).")]
    duplicate_of: Annotated[str | None, Field(
        description="The first of its possible duplicates: the oldest other copy of the same "
                    "file, else the oldest invoice of another file that bills the same thing; "
                    "null when there is none.")]


class PossibleDuplicate(ApiModel):
    id: str
    matched_on: list[str]


class Invoice(InvoiceBase):
    extraction: Annotated[dict | None, WithJsonSchema(nullable(component("InvoiceV2"))), Field(
        description="The invoice-v2 document (schemas/invoice-v2.schema.json), or null until "
                    "completed.")]
    possible_duplicates: Annotated[list[PossibleDuplicate] | SkipJsonSchema[None], Field(
        description="Other invoices of the account, among those the caller may see, that may "
                    "bill the same thing — first the same file uploaded again (`matched_on` "
                    "`[\"content_hash\"]`; its 20 oldest copies, which stand for any later "
                    "ones), then every one of the other files with the same seller and invoice "
                    "number, or the same seller, gross total and issue date (names and numbers "
                    "compared without case and white space).")] = None


class Summary(ApiModel):
    invoice_number: str | None = None
    issue_date: str | None = None
    seller_name: str | None = None
    gross_total: str | None = None
    currency: str | None = None


class InvoiceSummary(InvoiceBase):
    summary: Summary


# --- upload and retry --------------------------------------------------------------------------

IDEMPOTENCY_KEY = {
    "type": "string", "maxLength": 512,
    "pattern": "^(?:[!#$%&'*+.^_`|~0-9A-Za-z:/-]{1,255}|\"(?:[\\u0020\\u0021\\u0023-\\u005b"
               "\\u005d-\\u007e]|\\\\[\"\\\\]){1,255}\")$"}
PREFERENCE_APPLIED = header({"type": "string", "pattern": "^wait=[0-9]{1,2}$"},
                            "`wait=N` when the response was held for the result (RFC 7240).")
CACHE_OUTCOME = header({"type": "string", "enum": ["hit", "miss", "joined", "bypass"]},
                       "hit (finished-result cache), miss (new extraction), joined (identical "
                       "extraction in flight), bypass (fresh processing asked for).")
REPLAYED = header({"type": "string", "enum": ["true"]})


class UploadHeaders(ApiModel):
    """Documents the upload's headers; http/headers.py reads them (400 `bad_request`)."""
    idempotency_key: Annotated[str | SkipJsonSchema[None], Field(
        alias="Idempotency-Key", json_schema_extra=IDEMPOTENCY_KEY,
        description="A quoted sf-string or a bare token, at most 255 characters, scoped to "
                    "(account, caller).")] = None
    cache_control: Annotated[str | SkipJsonSchema[None], Field(
        alias="Cache-Control", description="`no-cache` asks for fresh processing: the "
                                           "finished-result cache is bypassed.")] = None
    prefer: Annotated[str | SkipJsonSchema[None], Field(
        alias="Prefer", json_schema_extra={"maxLength": 1024},
        description="`wait=N` (N ≤ 60; more asks for 60) holds the response up to N seconds "
                    "for the result. A key holds at most LEDGERLINE_MAX_WAITS_PER_KEY waits at "
                    "once; beyond that the answer comes at once, without "
                    "`Preference-Applied`.")] = None


DOCUMENT_TYPES = ("application/pdf", "image/jpeg", "image/png", "image/tiff", "image/webp",
                  "image/heif", "application/xml", "text/xml")
BINARY = {"type": "string", "format": "binary", "minLength": 1}
UPLOAD_BODY = {"requestBody": {
    "required": True,
    "description": "The document's bytes; what it is is told by its content, never by "
    "Content-Type or a file name: a PDF (with or without a text layer); a scan or photo as "
    "JPEG, PNG, TIFF (every page), WebP or HEIF, read by OCR; or an e-invoice XML on its own: "
    "UBL 2.1 Invoice or CreditNote (Peppol BIS Billing 3.0, XRechnung UBL), UN/CEFACT CII "
    "(Factur-X / ZUGFeRD, XRechnung CII) or Poland's KSeF FA(2)/FA(3), checked against the "
    "official EN 16931 rules (and XRechnung's where it claims to be one). Anything else is 415 "
    "`unsupported_media_type`, whose detail names every accepted type. One invoice per "
    "request: a multipart body with more than one `file` part is 400 `one_file_per_request` "
    "(`ledgerline upload` sends a folder one file a request). A body that ends before it is "
    "complete (fewer bytes than its `Content-Length`, a chunked body without its last chunk) "
    "is 400 `body_incomplete` and leaves nothing behind: no invoice, job, charge or "
    "`Idempotency-Key` record, so the retry with the same key is a first upload. A body the "
    "server's spool has no room for is 503 `spool_unavailable` with `Retry-After`.",
    "content": {**{kind: {"schema": BINARY} for kind in DOCUMENT_TYPES},
                "multipart/form-data": {"schema": {
                    "type": "object", "required": ["file"],
                    "properties": {"file": BINARY}}}}}}


def _accepted_answers(action: str, *, wait_header: bool) -> dict:
    wait = {"Preference_Applied": PREFERENCE_APPLIED} if wait_header else {}
    return {
        200: json_response(Invoice, f"An idempotent replay of an earlier {action} with the same "
                                    "key" + (" and request." if action == "upload" else "."),
                           Idempotent_Replayed=REPLAYED, **LOCATION, **wait),
        201: json_response(Invoice, "The result is ready (completed or failed)."
                           if action == "upload" else "The new attempt's result is ready.",
                           Ledgerline_Cache=CACHE_OUTCOME, **LOCATION, **wait),
        202: json_response(Invoice, "Accepted; the extraction is pending or running."
                           if action == "upload" else "The new attempt is pending or running.",
                           Ledgerline_Cache=CACHE_OUTCOME, **LOCATION, **wait)}


@bp.post("/v1/accounts/<account>/invoices", operation_id="uploadInvoice",
         summary="Upload one invoice PDF.",
         openapi_extensions={**UPLOAD_BODY, **header_parameters(UploadHeaders)},
         responses={**_accepted_answers("upload", wait_header=True),
                    **problems(400, 401, 403, 404, 408, 413, 415, 422, 429, 503)})
def create_invoice(path: AccountPath):
    services, caller = _services(), current_caller()
    authorise_upload(caller, path.account)
    key = headers.idempotency_key(request.headers.get("Idempotency-Key"))
    fresh = headers.wants_fresh(request.headers.get("Cache-Control"))
    asked = headers.prefer_wait(request.headers.get("Prefer"))
    body, declared = _body_stream(services)
    with reads.one_connection_per_request(services):  # connected only once the body is in
        result = upload(services, caller, path.account, body, idempotency_key=key, fresh=fresh,
                        declared_size=declared, watch=asked > 0)
        try:
            return _accepted(services, caller, path.account, result, asked)
        finally:
            if result.watching is not None:
                result.watching.close()


class RetryHeaders(ApiModel):
    """Documents the retry's headers; http/headers.py reads them."""
    idempotency_key: Annotated[str | SkipJsonSchema[None], Field(
        alias="Idempotency-Key", json_schema_extra=IDEMPOTENCY_KEY,
        description="As for uploads; scoped to (account, caller).")] = None
    prefer: Annotated[str | SkipJsonSchema[None], Field(
        alias="Prefer", description="`wait=N` (N ≤ 60) holds the response up to N seconds for "
                                    "the result.")] = None


@bp.post("/v1/accounts/<account>/invoices/<invoice_id>/retry", operation_id="retryInvoice",
         summary="A new attempt for a failed invoice (its uploader, or a customer of the "
                 "account).",
         description="The invoice keeps its id; its status and result become the new attempt's. "
                     "The attempt is served from the cache, joins identical work in flight, or "
                     "runs anew (`Ledgerline-Cache` says which). Uploads that had joined the "
                     "failed work keep their failure. 409 (`invoice_not_failed`) for an invoice "
                     "that is pending, running or completed.",
         openapi_extensions=header_parameters(RetryHeaders),
         responses={**_accepted_answers("retry", wait_header=False),
                    **problems(400, 401, 403, 404, 409, 422, 503), 429: PROBLEM})
def retry_invoice(path: InvoicePath):
    services, caller = _services(), current_caller()
    authorise_upload(caller, path.account)
    key = headers.idempotency_key(request.headers.get("Idempotency-Key"))
    asked = headers.prefer_wait(request.headers.get("Prefer"))
    with reads.one_connection_per_request(services):
        result = retry(services, caller, path.account, path.invoice_id, idempotency_key=key)
        return _accepted(services, caller, path.account, result, asked)


def _accepted(services, caller, account: str, result, asked: int):
    """201 finished, 202 pending or running, 200 an idempotent replay; with Location."""
    shown = getattr(result, "shown", None)  # a cache hit's answer, finished already
    with limits.wait_slot(caller.key_id, asked) as wait:
        if shown is None:
            invoice = reads.wait_for_result(services, caller, account, result.invoice_id, wait,
                                            work_job_id=getattr(result, "work_job_id", None),
                                            watching=getattr(result, "watching", None))
    location = url_for("invoices.get_invoice", account=account, invoice_id=result.invoice_id)
    if result.replayed:
        status = 200
    elif shown is not None:
        status = 201
    else:
        status = 202 if invoice["status"] in ("pending", "running") else 201
    resp = jsonify(invoice) if shown is None else _hit_response(shown)
    resp.status_code = status
    resp.headers["Location"] = location
    if result.replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    else:
        resp.headers["Ledgerline-Cache"] = result.outcome.value
    if wait:
        resp.headers["Preference-Applied"] = f"wait={wait}"
    return resp


def _hit_response(shown) -> Response:
    """The invoice of a cache hit, as a read would show it, with its extraction (the cached
    document as stored) and possible duplicates put in as the JSON they already are: never
    parsed and written again."""
    head = json.dumps(shown.invoice, separators=(",", ":"))
    body = (f'{head[:-1]},"extraction":{shown.document_json},'
            f'"possible_duplicates":{shown.duplicates_json}}}\n')
    return Response(body, mimetype="application/json")


def _body_stream(services):
    """The upload's bytes, and how many its Content-Length announced (None: chunked, or a
    form, whose parser checks its own framing)."""
    limit = services.settings.max_upload_bytes
    if request.content_length is not None and request.content_length > limit:
        raise TooLarge(f"the upload is larger than {limit} bytes")
    if request.mimetype == "multipart/form-data":
        request.max_content_length = limit + 64 * 1024  # the form's own framing
        files = request.files.getlist("file")
        if not files:
            raise BadRequest("multipart uploads need a form field named 'file'")
        if len(files) > 1:
            raise OneFilePerRequest(f"this request carries {len(files)} 'file' parts; upload "
                                    "one invoice per request (`ledgerline upload` sends a "
                                    "folder that way)")
        return files[0].stream, None
    return request.stream, request.content_length


# --- reads ---------------------------------------------------------------------------------------

ETAG = header({"type": "string", "pattern": '^"[0-9]+"$'},
              "A completed invoice's version as a strong entity tag: send it back as "
              "`If-Match` with a correction or a review resolution.")


@bp.get("/v1/accounts/<account>/invoices/<invoice_id>", operation_id="getInvoice",
        summary="One invoice with its extraction.",
        responses={200: json_response(Invoice, "The invoice.", ETag=ETAG),
                   **problems(400, 401, 404, 429)})
def get_invoice(path: InvoicePath):
    return _with_etag(reads.invoice(_services(), current_caller(), path.account,
                                    path.invoice_id))


def _with_etag(invoice: dict) -> Response:
    """The invoice, with its version as the ETag once it completed (the version of an
    invoice still in progress or failed names no state a correction could start from)."""
    resp = jsonify(invoice)
    if invoice["status"] == "completed":
        resp.set_etag(rules.etag(invoice["version"]))
    return resp


def _if_match() -> rules.IfMatch | None:
    """The request's If-Match (strong comparison, RFC 9110), or None without one."""
    if not request.headers.get("If-Match", "").strip():
        return None  # absent, or empty: no precondition
    given = request.if_match
    return rules.IfMatch(frozenset(given.as_set()), any=given.star_tag)


class PreconditionHeaders(ApiModel):
    """Documents the precondition a change may carry; the view reads it."""
    if_match: Annotated[str | SkipJsonSchema[None], Field(
        alias="If-Match", description="The `ETag` of the invoice as read (`\"3\"`), or `*`. "
        "When the invoice's version moved on since, the answer is 412 "
        "`precondition_failed` and nothing changes. Without it the change applies to "
        "whatever version is current.")] = None


FILE_TYPES = ("application/pdf", "image/jpeg", "image/png", "image/tiff", "image/webp",
              "image/heif", "application/xml")


@bp.get("/v1/accounts/<account>/invoices/<invoice_id>/file", operation_id="getInvoiceFile",
        summary="The original bytes, with the media type their content shows.",
        responses={200: {"description": "The document as uploaded (an XML invoice as "
                                        "application/xml).",
                         "content": {kind: {"schema": {"type": "string", "format": "binary"}}
                                     for kind in FILE_TYPES}},
                   **problems(400, 401, 404, 429, 503)})
def get_file(path: InvoicePath):
    body = reads.original(_services(), current_caller(), path.account, path.invoice_id)
    head = body.read(HEAD_BYTES)  # what the original is decides how it is served
    kind = detect(head)

    def chunks():
        try:
            yield head
            while chunk := body.read(256 * 1024):
                yield chunk
        finally:
            body.close()

    resp = Response(stream_with_context(chunks()), mimetype=kind.media_type)
    resp.headers["Content-Disposition"] = (f'attachment; filename="{path.invoice_id}'
                                           f'{kind.suffix}"')
    return resp


def _iso_date(value: str | None) -> str | None:
    if value is None:
        return None
    if not ISO_DATE.fullmatch(value):  # fromisoformat also takes 20260101 and 2026-W01-1
        raise ValueError("must be an ISO date (YYYY-MM-DD)")
    return date.fromisoformat(value).isoformat()


# No control characters (PostgreSQL cannot even compare text holding NUL), not only spaces.
SELLER = "^[^\\u0000-\\u001f\\u007f]*[^\\u0000-\\u0020\\u007f][^\\u0000-\\u001f\\u007f]*$"
IsoDate = Annotated[str | None, WithJsonSchema(component("Date")), AfterValidator(_iso_date)]


class Filters(Strict):
    """What an invoice must be to be listed or exported."""
    status: Status | SkipJsonSchema[None] = None
    issued_from: IsoDate = None
    issued_to: IsoDate = None
    seller: Annotated[
        Annotated[str, Field(min_length=1, max_length=200, pattern=SELLER)]
        | SkipJsonSchema[None],
        Field(description="Part of the seller name, compared without case and white space; no "
                          "control characters, not only spaces.")] = None
    review: Annotated[Literal[reads.REVIEW_STATES] | SkipJsonSchema[None], Field(
        description="`required`: completed invoices whose extraction asks for review that "
                    "nobody resolved yet (the review queue); `resolved`: those resolved.")] = None
    duplicates: Annotated[Literal["only", "exclude"] | SkipJsonSchema[None], Field(
        description="`only`: invoices with possible duplicates (`possible_duplicate` true, "
                    "the oldest copy included); `exclude`: those without any.")] = None

    def list_filter(self, **page) -> reads.ListFilter:
        return reads.ListFilter(
            status=self.status and self.status.value, issued_from=self.issued_from,
            issued_to=self.issued_to, seller=self.seller, review=self.review,
            duplicates=self.duplicates, **page)


ROWS = Annotated[Literal["invoices", "line_items"], Field(
    description="`invoices` (one row each) or `line_items` (one row per line item, the "
                "invoice's columns repeated).")]
EXCEL = Annotated[bool, Field(description="CSV for spreadsheet programs: a UTF-8 byte order "
                                          "mark and `;` between values.")]


class ExportQuery(Filters):
    """Any query parameter other than those below is refused with 400."""
    rows: ROWS = "invoices"
    excel: EXCEL = False


class ListQuery(ExportQuery):
    """Any query parameter other than those below is refused with 400."""
    limit: Annotated[Limit, Field(description="JSON only: invoices per page.")] = 50
    cursor: cursor_field(200) = None
    format: Annotated[Literal["json", "csv", "xlsx"], Field(
        description="`csv` and `xlsx` export every matching invoice, as "
                    "`invoices.csv` and `invoices.xlsx` do; `limit` and `cursor` page "
                    "JSON only.")] = "json"


class InvoicePage(Strict):
    items: list[InvoiceSummary]
    next_cursor: str | None


def _after(created: str, invoice_id: str):
    if not CURSOR_TIME.fullmatch(created) or not INVOICE_ID.fullmatch(invoice_id):
        raise ValueError(created)
    return datetime.fromisoformat(created.replace("Z", "+00:00")), invoice_id


EXPORT_DESCRIPTION = (
    "Every invoice the filters match, newest first, whatever the count: streamed, in the "
    "columns and order of docs/api.md, \"Exports\" (new columns only ever come at the end). "
    "Booleans are `true`/`false`, dates ISO, amounts decimal strings signed as the "
    "document signs them (a credit note's negative). XLSX cells are typed: dates as dates, "
    "amounts as numbers, booleans as booleans.")
CSV_CONTENT = {"text/csv": {"schema": {"type": "string"}}}
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
XLSX_CONTENT = {XLSX_TYPE: {"schema": {"type": "string", "format": "binary"}}}
ATTACHMENT = {"Content-Disposition": header({"type": "string"})}


@bp.get("/v1/accounts/<account>/invoices", operation_id="listInvoices",
        summary="List the invoices the caller may see, newest first.",
        description="Any query parameter other than those below is refused with 400. "
                    "`format=csv` and `format=xlsx` answer as `invoices.csv` and "
                    "`invoices.xlsx`: every matching invoice, not a page.",
        responses={200: {"description": "One page of invoices (JSON), or the export.",
                         "content": {"application/json": {"schema": documented_ref(InvoicePage)},
                                     **CSV_CONTENT, **XLSX_CONTENT},
                         "headers": ATTACHMENT},
                   **problems(400, 401, 404, 429)})
def list_invoices(path: AccountPath, query: ListQuery):
    if query.format != "json":
        # An export holds every matching invoice; `limit` and `cursor` page the JSON list
        # only, and a client that always sends them still gets every row, not an error.
        return _export(path.account, query, query.format)
    flt = query.list_filter(after=decode_cursor(query.cursor, _after), limit=query.limit)
    rows = reads.invoices(_services(), current_caller(), path.account, flt)
    return jsonify(page(rows, flt.limit, lambda row: (row["created_at"], row["id"])))


@bp.get("/v1/accounts/<account>/invoices.csv", operation_id="exportInvoicesCsv",
        summary="Every invoice the caller may see that the filters match, as CSV.",
        description=EXPORT_DESCRIPTION,
        responses={200: {"description": "The CSV, streamed.", "content": CSV_CONTENT,
                         "headers": ATTACHMENT},
                   **problems(400, 401, 404, 429)})
def export_csv(path: AccountPath, query: ExportQuery):
    return _export(path.account, query, "csv")


@bp.get("/v1/accounts/<account>/invoices.xlsx", operation_id="exportInvoicesXlsx",
        summary="Every invoice the caller may see that the filters match, as an Excel "
                "workbook.",
        description=EXPORT_DESCRIPTION + " `excel` is for CSV and changes nothing here.",
        responses={200: {"description": "The workbook (one sheet, `invoices`), streamed.",
                         "content": XLSX_CONTENT, "headers": ATTACHMENT},
                   **problems(400, 401, 404, 429)})
def export_xlsx(path: AccountPath, query: ExportQuery):
    return _export(path.account, query, "xlsx")


def _export(account: str, query: ExportQuery, kind: str) -> Response:
    services = _services()
    invoices = reads.export(services, current_caller(), account, query.list_filter())
    root = request.host_url.rstrip("/")

    def url_of(invoice_id: str) -> str:
        return f"{root}/v1/accounts/{account}/invoices/{invoice_id}"

    by_line = query.rows == "line_items"
    if kind == "csv":
        body = exports.csv_chunks(invoices, url_of, by_line=by_line, excel=query.excel)
        mimetype = "text/csv"
    else:
        body = exports.xlsx_chunks(invoices, url_of, by_line=by_line,
                                   spool_dir=services.settings.spool_dir)
        mimetype = XLSX_TYPE
    # Everything the stream needs is captured above: it holds no request context, which an
    # unclosed response would keep pushed (and with it the caller, for the next request).
    resp = Response(body, mimetype=mimetype)
    if kind == "csv":
        resp.mimetype_params["charset"] = "utf-8"
    resp.headers["Content-Disposition"] = f"attachment; filename=invoices.{kind}"
    return resp


# --- after extraction: corrections, review, history, deletion --------------------------------

def _text(width: int | None = None) -> dict:
    return {**NULLABLE_STRING, **({"maxLength": width} if width else {})}


class CorrectionRequest(Strict):
    """Documents the body; corrections.parse_patch checks it (422 `invalid_correction`)."""
    model_config = {"json_schema_extra": {"minProperties": 1}}
    fields: Annotated[dict | None, WithJsonSchema({
        "description": "invoice-v2 field names to their new value (its invoice-v2 form) or "
                       "null to clear it.",
        "type": "object", "additionalProperties": False, "properties": {
            "document_type": {**_text(), "enum": [*KINDS_OF_INVOICE, None]},
            "invoice_number": _text(200), "preceding_invoice_number": _text(200),
            "issue_date": {**_text(), "format": "date"},
            "due_date": {**_text(), "format": "date"},
            "currency": {**_text(), "pattern": "^[A-Z]{3}$"}, "seller_name": _text(300),
            "seller_vat_id": _text(40), "buyer_name": _text(300), "buyer_vat_id": _text(40),
            "purchase_order": _text(200), "iban": _text(), "net_total": _text(),
            "tax_total": _text(), "gross_total": _text(), "amount_due": _text()}})] = None
    line_items: Annotated[list[dict] | None, WithJsonSchema({
        "description": "Replaces the invoice's line items.", "type": "array", "maxItems": 1000,
        "items": {"type": "object", "additionalProperties": False, "properties": {
            "description": _text(1000), "quantity": _text(), "unit_price": _text(),
            "net_amount": _text(), "vat_rate": _text()}}})] = None
    reason: Annotated[str | SkipJsonSchema[None], Field(max_length=500)] = None


@bp.patch("/v1/accounts/<account>/invoices/<invoice_id>", operation_id="correctInvoice",
          summary="Correct a completed invoice (a customer; a supplier its own uploads).",
          description="Sets or clears the named fields and, when given, replaces the line "
          "items. Each value must take its field's invoice-v2 form (422 `invalid_correction` "
          "names the field otherwise; nothing changes). The correction becomes a new `version` "
          "of the invoice, with its author, time and the previous values, readable at "
          "`…/history`; an `invoice.corrected` webhook event follows. The model's cached result "
          "is never changed: another invoice of the same file still shows what the model read. "
          "A field that already shows the value is no change (no new version). 409 "
          "`invoice_not_completed` for an invoice that is pending, running or failed.\n\n"
          "Every check then runs again on the corrected values: the EN 16931 arithmetic "
          "rules (BR-CO-10, -13, -14, -15, -16), the VAT identifiers' and the IBAN's "
          "checksums (`LL-SELLER-VATID`, `LL-BUYER-VATID`, `LL-IBAN`), the dates "
          "(`LL-DATES`) and duplicates (`LL-DUPLICATE`: an earlier invoice of the account "
          "with the same file, or the same seller and number, or the same seller, gross and "
          "date); a check none of whose inputs changed keeps the extraction's result. "
          "`extraction.validations` and `extraction.review` describe the values as they now "
          "are. A value that fails a checksum is accepted and flagged; a correction that "
          "breaks a rule sends the invoice back to review (`review.state` `required`, even "
          "after a resolution) with the rule named in `extraction.review.reasons`. With "
          "`If-Match` the correction applies only to that version (412 otherwise).",
          openapi_extensions={**json_body(CorrectionRequest),
                              **header_parameters(PreconditionHeaders)},
          responses={200: json_response(Invoice, "The invoice as it now shows, corrected fields "
                                                 "with `source` `correction`.", ETag=ETAG),
                     **problems(400, 401, 403, 404, 409, 412, 413, 415, 422, 429, 503)})
def correct_invoice(path: InvoicePath):
    patch = corrections.parse_patch(json_object())
    return _with_etag(corrections.correct(_services(), current_caller(), path.account,
                                          path.invoice_id, patch, _if_match()))


class ReviewRequest(Strict):
    reasons: Annotated[list[str] | SkipJsonSchema[None], Field(
        description="The review reasons resolved (each one of `extraction.review.reasons`); "
                    "default all.")] = None
    note: Annotated[str | SkipJsonSchema[None], Field(max_length=500)] = None


@bp.post("/v1/accounts/<account>/invoices/<invoice_id>/review", operation_id="resolveReview",
         summary="Mark the invoice's review resolved (a customer; a supplier its own uploads).",
         description="For the review reasons named (default: all the extraction gave); recorded "
         "in the history with its author. Resolving a resolved review again answers the same. "
         "409 `review_not_required` when the extraction asked for no review, "
         "`invoice_not_completed` before it completed; 422 for a reason the invoice does not "
         "have.",
         openapi_extensions={**json_body(ReviewRequest, required=False),
                             **header_parameters(PreconditionHeaders)},
         responses={200: json_response(Invoice, "The invoice, its `review.state` now "
                                                "`resolved`.", ETag=ETAG),
                    **problems(400, 401, 403, 404, 409, 412, 413, 415, 422, 429, 503)})
def resolve_review(path: InvoicePath):
    return _with_etag(corrections.resolve_review(_services(), current_caller(), path.account,
                                                 path.invoice_id, optional_json_object(),
                                                 _if_match()))


class Author(ApiModel):
    key_id: str
    role: str
    name: str | None


class Change(ApiModel):
    field: str
    previous: Annotated[object, WithJsonSchema({})]
    value: Annotated[object, WithJsonSchema({})]
    machine: Annotated[object | SkipJsonSchema[None], WithJsonSchema({
        "description": "A correction's: what the model read for the field, whatever people "
                       "changed since."})] = None
    reasons: list[str] | SkipJsonSchema[None] = None


class HistoryEntry(Strict):
    version: Annotated[int, Field(ge=1)]
    kind: Literal["correction", "review"]
    author: Author
    created_at: datetime
    reason: str | None
    changes: Annotated[list[Change], Field(
        description="Each change with the value before and after (`field` is a field name, "
                    "`line_items` or `review`).")]


class History(Strict):
    items: list[HistoryEntry]


@bp.get("/v1/accounts/<account>/invoices/<invoice_id>/history", operation_id="invoiceHistory",
        summary="Every correction and review resolution of the invoice, oldest first.",
        responses={200: json_response(History, "The audit trail."),
                   **problems(400, 401, 404, 429)})
def invoice_history(path: InvoicePath):
    items = corrections.history(_services(), current_caller(), path.account, path.invoice_id)
    return jsonify({"items": items})



@bp.delete("/v1/accounts/<account>/invoices/<invoice_id>", operation_id="deleteInvoice",
           summary="Delete an invoice and everything only it used (a customer; a supplier its "
                   "own uploads).",
           description="The invoice, its corrections and history, its idempotency record, and "
           "— when no other invoice of the account uses them — its original (every version of "
           "the object in a versioned bucket), its result and cache entry. The call ledger keeps "
           "its cost rows (ids, hashes, costs; no content, no file name). Afterwards the invoice "
           "is 404 for everyone, and an `invoice.deleted` webhook event follows.",
           responses={204: {"description": "Deleted."},
                      **problems(400, 401, 403, 404, 429, 503)})
def delete_invoice(path: InvoicePath):
    deletion.delete_invoice(_services(), current_caller(), path.account, path.invoice_id)
    return Response(status=204)


MAX_JSON_BODY = 4 * 1024 * 1024  # a thousand line items fit easily


def optional_json_object():
    """The request's JSON object, or None when it has no body."""
    sent = request.content_length or request.headers.get("Transfer-Encoding")
    return json_object() if sent else None


def json_object():
    """The request's JSON body; 415 for another media type, 413 too large, 400 not JSON."""
    if request.mimetype != "application/json":
        raise UnsupportedFormat("send Content-Type: application/json")
    if request.content_length is not None and request.content_length > MAX_JSON_BODY:
        raise TooLarge(f"a JSON body is at most {MAX_JSON_BODY} bytes")
    request.max_content_length = MAX_JSON_BODY
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # no body of this API nests more than a few levels
        raise BadRequest("the JSON body nests too deeply") from None
    if body is None:
        raise BadRequest("the body is not JSON")
    return body
