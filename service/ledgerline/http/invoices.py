"""Invoice endpoints: upload, get, list (JSON or CSV), the original file, corrections,
review, history and deletion."""
from __future__ import annotations

import base64
import csv
import io
import json
import re
import time
from datetime import date, datetime
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context, url_for

from ..adapters.db import invoices as reads
from ..adapters.db.engine import let_go, one_connection, transaction
from ..adapters.storage import ObjectNotFound, StorageUnavailable
from ..domain.errors import (BadRequest, NotFound, OneFilePerRequest, TooLarge, Unavailable,
                             UnsupportedFormat)
from ..domain.identity import valid_account_name
from ..domain.jobs import JobStatus
from ..formats import HEAD_BYTES, detect
from ..service_layer.intake import authorise_upload, retry, upload
from ..service_layer import corrections, deletion
from . import exports, headers, limits
from .auth import current_caller

bp = Blueprint("invoices", __name__)
MAX_PAGE = 200
INVOICE_ID = re.compile(r"inv_[A-Za-z0-9]{1,28}")
# No control characters (PostgreSQL cannot even compare text holding NUL), not only spaces;
# the same rule as the seller parameter's pattern in schemas/openapi.yaml.
SELLER = re.compile(r"[^\x00-\x1f\x7f]*[^\x00-\x20\x7f][^\x00-\x1f\x7f]*")
ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
LIST_PARAMETERS = ("status", "issued_from", "issued_to", "seller", "review", "cursor", "limit",
                   "format", "rows")
CSV_ROWS = ("invoices", "line_items")
MAX_CURSOR = 200
# A cursor holds a creation time exactly as this service writes it: UTC, no other offset.
CURSOR_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z?")


def _services():
    return current_app.extensions["ledgerline"]


def _account(account: str) -> str:
    if not valid_account_name(account):
        raise BadRequest("account names are 2-63 characters of a-z, 0-9 and '-'")
    return account


def _invoice_id(invoice_id: str) -> str:
    """An id this service could not have issued names nothing: 404, like any missing one."""
    if not INVOICE_ID.fullmatch(invoice_id):
        raise NotFound("no such invoice")
    return invoice_id


@bp.post("/v1/accounts/<account>/invoices")
def create_invoice(account: str):
    services, caller = _services(), current_caller()
    authorise_upload(caller, _account(account))
    key = headers.idempotency_key(request.headers.get("Idempotency-Key"))
    fresh = headers.wants_fresh(request.headers.get("Cache-Control"))
    asked = headers.prefer_wait(request.headers.get("Prefer"))
    body = _body_stream(services)
    with one_connection(services.engine):  # connected only once the body is in
        result = upload(services, caller, account, body, idempotency_key=key, fresh=fresh)
        return _accepted(services, caller, account, result, asked)


@bp.post("/v1/accounts/<account>/invoices/<invoice_id>/retry")
def retry_invoice(account: str, invoice_id: str):
    """A new attempt for a failed invoice (its uploader, or a customer of the account)."""
    services, caller = _services(), current_caller()
    authorise_upload(caller, _account(account))
    key = headers.idempotency_key(request.headers.get("Idempotency-Key"))
    asked = headers.prefer_wait(request.headers.get("Prefer"))
    with one_connection(services.engine):
        result = retry(services, caller, account, _invoice_id(invoice_id), idempotency_key=key)
        return _accepted(services, caller, account, result, asked)


def _accepted(services, caller, account: str, result, asked: int):
    """201 finished, 202 pending or running, 200 an idempotent replay; with Location."""
    shown = getattr(result, "shown", None)  # a cache hit's answer, finished already
    with limits.wait_slot(caller.key_id, asked) as wait:
        if shown is None:
            invoice = _wait_for(services, caller, account, result.invoice_id, wait)
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
        return files[0].stream
    return request.stream


def _wait_for(services, caller, account, invoice_id, seconds: int) -> dict:
    """The invoice, once finished or after `seconds`. A finished one (a cache hit) costs one
    read. Otherwise wait for the job doing its work to end (adapters/job_endings.py: a worker
    in this process, NOTIFY on PostgreSQL, the doorbell on SQLite), reading the status only
    when told to look, never on a timer; then read the whole invoice once."""
    with transaction(services.engine, write=False) as conn:
        invoice = reads.get_invoice(conn, caller, account, invoice_id)
    if JobStatus(invoice["status"]).finished or seconds <= 0:
        return invoice
    deadline = time.monotonic() + seconds
    with transaction(services.engine, write=False) as conn:
        work_job_id = reads.invoice_progress(conn, caller, account, invoice_id).work_job_id
    with services.job_endings.watch(work_job_id) as ended:
        while True:
            ended.clear()  # before the look: an end announced after it wakes the next wait
            with transaction(services.engine, write=False) as conn:
                progress = reads.invoice_progress(conn, caller, account, invoice_id)
            if JobStatus(progress.status).finished:
                break
            let_go(services.engine)  # a wait holds no pooled connection
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not ended.wait(remaining):
                break
    with transaction(services.engine, write=False) as conn:
        return reads.get_invoice(conn, caller, account, invoice_id)


@bp.get("/v1/accounts/<account>/invoices/<invoice_id>")
def get_invoice(account: str, invoice_id: str):
    services, caller = _services(), current_caller()
    with transaction(services.engine, write=False) as conn:
        invoice = reads.get_invoice(conn, caller, _account(account), _invoice_id(invoice_id))
    if invoice is None:
        raise NotFound("no such invoice")
    return jsonify(invoice)


@bp.get("/v1/accounts/<account>/invoices/<invoice_id>/file")
def get_file(account: str, invoice_id: str):
    services, caller = _services(), current_caller()
    with transaction(services.engine, write=False) as conn:
        key = reads.file_location(conn, caller, _account(account), _invoice_id(invoice_id))
    if key is None:
        raise NotFound("no such invoice")
    try:
        body = services.store.open_stream(key)
    except ObjectNotFound:
        raise NotFound("the original is missing") from None
    except StorageUnavailable as exc:
        raise Unavailable("storage is unavailable") from exc

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
    resp.headers["Content-Disposition"] = f'attachment; filename="{invoice_id}{kind.suffix}"'
    return resp


@bp.get("/v1/accounts/<account>/invoices")
def list_invoices(account: str):
    services, caller = _services(), current_caller()
    if not caller.can_enter(_account(account)):
        raise NotFound(f"no account {account!r}")
    flt = _list_filter(request.args)
    as_csv = request.args.get("format") == "csv"
    with transaction(services.engine, write=False) as conn:
        rows = reads.list_invoices(conn, caller, account, flt, with_document=as_csv)
    next_cursor = _cursor(rows[-1]) if len(rows) == flt.limit else None
    if as_csv:
        return _csv(rows, next_cursor, by_line=request.args.get("rows") == "line_items")
    return jsonify({"items": rows, "next_cursor": next_cursor})


def _list_filter(args) -> reads.ListFilter:
    unknown = sorted(set(args) - set(LIST_PARAMETERS))
    if unknown:
        raise BadRequest(f"unknown query parameter {unknown[0][:40]!r}; use "
                         + ", ".join(LIST_PARAMETERS))
    status = args.get("status")
    if status is not None and status not in {s.value for s in JobStatus}:
        raise BadRequest("status must be one of pending, running, completed, failed")
    fmt = args.get("format", "json")
    if fmt not in ("json", "csv"):
        raise BadRequest("format must be json or csv")
    if args.get("rows", "invoices") not in CSV_ROWS:
        raise BadRequest("rows must be invoices or line_items (CSV: one row per line item)")
    review = args.get("review")
    if review is not None and review not in reads.REVIEW_STATES:
        raise BadRequest("review must be required or resolved")
    limit = _list_limit(args)
    seller = args.get("seller")
    if seller is not None and (len(seller) > 200 or not SELLER.fullmatch(seller)):
        raise BadRequest("seller must be 1-200 printable characters, not only spaces")
    return reads.ListFilter(status=status, issued_from=_iso_date(args, "issued_from"),
                            issued_to=_iso_date(args, "issued_to"), seller=seller, review=review,
                            after=_parse_cursor(args.get("cursor")), limit=limit)


def _list_limit(args) -> int:
    """`limit`: 1 to MAX_PAGE, default 50."""
    raw = args.get("limit", "50")
    if not raw.isascii() or not raw.isdigit() or len(raw) > 4:  # int() also takes " 5", "1_0"
        raise BadRequest("limit must be an integer")
    limit = int(raw)
    if not 1 <= limit <= MAX_PAGE:
        raise BadRequest(f"limit must be between 1 and {MAX_PAGE}")
    return limit


def _iso_date(args, name: str) -> str | None:
    value = args.get(name)
    if value is None:
        return None
    try:
        if not ISO_DATE.fullmatch(value):  # fromisoformat also takes 20260101 and 2026-W01-1
            raise ValueError(value)
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise BadRequest(f"{name} must be an ISO date (YYYY-MM-DD)") from None


def _cursor(row: dict) -> str:
    raw = f"{row['created_at']}|{row['id']}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _parse_cursor(value: str | None):
    if not value:
        return None
    try:
        if len(value) > MAX_CURSOR:
            raise ValueError(value)
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        created, invoice_id = raw.split("|")
        if not CURSOR_TIME.fullmatch(created) or not INVOICE_ID.fullmatch(invoice_id):
            raise ValueError(raw)
        ts = datetime.fromisoformat(created.replace("Z", "+00:00"))
        return ts, invoice_id
    except ValueError:
        raise BadRequest("cursor is not one this service issued") from None


def _csv(rows: list[dict], next_cursor: str | None, *, by_line: bool) -> Response:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(exports.header(by_line=by_line))
    for row in rows:
        for line in exports.rows(row, by_line=by_line):
            writer.writerow([_csv_safe(value) for value in line])
    resp = Response(out.getvalue(), mimetype="text/csv")
    resp.headers["Content-Disposition"] = "attachment; filename=invoices.csv"
    if next_cursor:
        query = urlencode({**request.args.to_dict(), "cursor": next_cursor})
        resp.headers["Link"] = f'<{request.path}?{query}>; rel="next"'
    return resp


def _csv_safe(value) -> str:
    """Neutralise spreadsheet formulas in text that came from someone else's PDF."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


# --- after extraction: corrections, review, history, deletion --------------------------------

@bp.patch("/v1/accounts/<account>/invoices/<invoice_id>")
def correct_invoice(account: str, invoice_id: str):
    """Set or clear fields (and the line items): a new version of the invoice."""
    services, caller = _services(), current_caller()
    patch = corrections.parse_patch(_json_body())
    return jsonify(corrections.correct(services, caller, _account(account),
                                       _invoice_id(invoice_id), patch))


@bp.post("/v1/accounts/<account>/invoices/<invoice_id>/review")
def resolve_review(account: str, invoice_id: str):
    services, caller = _services(), current_caller()
    body = _json_body() if request.content_length else None
    return jsonify(corrections.resolve_review(services, caller, _account(account),
                                              _invoice_id(invoice_id), body))


@bp.get("/v1/accounts/<account>/invoices/<invoice_id>/history")
def invoice_history(account: str, invoice_id: str):
    services, caller = _services(), current_caller()
    items = corrections.history(services, caller, _account(account), _invoice_id(invoice_id))
    return jsonify({"items": items})


@bp.delete("/v1/accounts/<account>/invoices/<invoice_id>")
def delete_invoice(account: str, invoice_id: str):
    services, caller = _services(), current_caller()
    deletion.delete_invoice(services, caller, _account(account), _invoice_id(invoice_id))
    return Response(status=204)


MAX_JSON_BODY = 4 * 1024 * 1024  # a thousand line items fit easily


def _json_body():
    """The request's JSON object; 400 for anything else."""
    if request.mimetype != "application/json":
        raise UnsupportedFormat("send Content-Type: application/json")
    if request.content_length is not None and request.content_length > MAX_JSON_BODY:
        raise TooLarge(f"a JSON body is at most {MAX_JSON_BODY} bytes")
    request.max_content_length = MAX_JSON_BODY
    body = request.get_json(silent=True)
    if body is None:
        raise BadRequest("the body is not JSON")
    return body
