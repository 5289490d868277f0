"""The review screen: an account's review queue and each invoice's page beside its fields, for
customers (who correct) and dashboard keys (who look), server-rendered with Jinja.

Signed in through the dashboard's form (a session cookie) or with `Authorization: Bearer`;
what a caller sees and may change is exactly what the API lets it (the same service calls:
reads, corrections, page images). A correction is a form per field: posted as a form it works
without any script (`POST`, the version as a hidden field); assets/review.js turns Enter into a
`PATCH` with `If-Match` and reloads the page with the checks run again. Forms carry a CSRF
token bound to the session, and come only from this site (dashboard.same_origin). The page
image is PDFium's rendering of the original, cached per page, served only to a caller who may
read the invoice; each field read from a page has a box drawn around its `bbox`.
"""
from __future__ import annotations

from typing import Annotated

from flask import Response, current_app, redirect, render_template, request
from flask_openapi3 import APIBlueprint
from pydantic import Field

from ..domain import corrections as rules
from ..domain.errors import LedgerlineError, NotFound
from ..domain.document_types import CREDIT_NOTE, document_type_of
from ..extraction.validation import RULE_FIELDS
from ..service_layer import corrections, page_images, reads
from . import dashboard
from .auth import current_caller
from .invoices import (
    CorrectionRequest,
    Invoice,
    PreconditionHeaders,
    _after,
    _if_match,
    _with_etag,
    json_object,
)
from .models import (
    HTML_PAGE,
    AccountPath,
    ApiModel,
    InvoicePath,
    header_parameters,
    json_body,
    json_response,
    problems,
)
from .pagination import cursor_field, decode_cursor, encode_cursor

bp = APIBlueprint("review_screen", __name__, template_folder="templates")
HOME = dashboard.REVIEW_HOME
QUEUE_PAGE = 50
# Fields a possible duplicate is judged on (domain.duplicates), for the field's failing checks.
DUPLICATE_FIELDS = ("invoice_number", "seller_name", "gross_total", "issue_date")
SIGNED_IN = [{"bearer": []}, {"operatorCookie": []}]
SEE_OTHER = {303: {"description": "To the sign-in page without a session, or on to the "
                                  "page asked for.",
                   "headers": {"Location": {"schema": {"type": "string"}}}}}


def _services():
    return current_app.extensions["ledgerline"]


class SignInFirst(Exception):
    """No key and no session: the browser goes to the sign-in form."""


def _caller():
    """A bearer key follows the API's rules; else the session cookie's caller."""
    if request.headers.get("Authorization"):
        return current_caller(), False
    if request.cookies.get(dashboard.COOKIE) is None:
        raise SignInFirst()
    caller = dashboard.signed_in()
    if caller is None:
        raise SignInFirst()
    return caller, True


@bp.errorhandler(SignInFirst)
def _sign_in(_):
    resp = redirect("/dashboard", code=303)
    resp.delete_cookie(dashboard.COOKIE, path=dashboard.COOKIE_PATH)
    return resp


def _page(template: str, status: int = 200, **context) -> Response:
    return dashboard.html_page(render_template(template, **context), status)


@bp.get(HOME, operation_id="reviewHome", summary="The signed-in account's review queue.",
        security=SIGNED_IN, responses={**SEE_OTHER, **problems(400, 401, 404, 429)})
def home():
    caller, _ = _caller()
    if caller.account is None:
        raise NotFound("the review screen shows an account's invoices; an operator has none")
    return redirect(f"{HOME}/{caller.account}", code=303)


class QueueQuery(ApiModel):
    cursor: cursor_field(200) = None


@bp.get(f"{HOME}/<account>", operation_id="reviewQueue",
        summary="The account's review queue, newest first, with the reasons per invoice.",
        description="Invoices whose checks ask for review that nobody resolved, 50 a page; "
                    "each with its reasons, whether it is a credit note and whether it has "
                    "possible duplicates.",
        security=SIGNED_IN, responses={200: HTML_PAGE, **SEE_OTHER, **problems(400, 401, 404,
                                                                              429)})
def queue(path: AccountPath, query: QueueQuery):
    caller, by_cookie = _caller()
    flt = reads.ListFilter(review="required", limit=QUEUE_PAGE,
                           after=decode_cursor(query.cursor, _after))
    items = reads.invoices(_services(), caller, path.account, flt, with_document=True)
    more = (encode_cursor(items[-1]["created_at"], items[-1]["id"])
            if len(items) == QUEUE_PAGE else None)
    return _page("review_queue.html", account=path.account, items=[_row(i) for i in items],
                 more=more, caller=caller, by_cookie=by_cookie,
                 csrf=dashboard.csrf_token() if by_cookie else None)


def _row(invoice: dict) -> dict:
    extraction = invoice.get("extraction") or {}
    fields = extraction.get("fields", {})
    return {**invoice, "value": lambda name: (fields.get(name) or {}).get("value"),
            "reasons": (extraction.get("review") or {}).get("reasons", []),
            "credit_note": document_type_of(extraction) == CREDIT_NOTE}


@bp.get(f"{HOME}/<account>/invoices/<invoice_id>", operation_id="reviewInvoice",
        summary="One invoice: its pages with a box around each field read from them, and its "
                "fields with their confidence and failing checks, each a form to correct it.",
        security=SIGNED_IN, responses={200: HTML_PAGE, **SEE_OTHER, **problems(400, 401, 404, 429)})
def invoice_page(path: InvoicePath):
    caller, by_cookie = _caller()
    return _invoice_page(caller, by_cookie, path.account, path.invoice_id)


def _invoice_page(caller, by_cookie, account, invoice_id, message=None, status=200):
    services = _services()
    invoice = reads.invoice(services, caller, account, invoice_id)
    extraction = invoice.get("extraction") or {}
    shown_pages = []
    if invoice["status"] == "completed" and extraction.get("document", {}).get("pages"):
        shown_pages = page_images.pages(services, caller, account, invoice)
    fields = _fields(extraction)
    boxes = {p.number: [f for f in fields if f["page"] == p.number and f["box"]]
             for p in shown_pages}
    for page in shown_pages:
        for f in boxes[page.number]:
            x0, y0, x1, y1 = f["box"]
            f["rect"] = (x0, page.height - y1, x1 - x0, y1 - y0)
    return _page("review_invoice.html", status, invoice=invoice, account=account,
                 fields=fields, pages=shown_pages, boxes=boxes,
                 checks=extraction.get("validations", []),
                 reasons=(extraction.get("review") or {}).get("reasons", []),
                 credit_note=document_type_of(extraction) == CREDIT_NOTE,
                 next_id=_next_in_queue(services, caller, account, invoice),
                 editable=caller.can_upload() and invoice["status"] == "completed",
                 by_cookie=by_cookie, message=message,
                 csrf=dashboard.csrf_token() if by_cookie else None)


def _fields(extraction: dict) -> list[dict]:
    failing: dict[str, list[str]] = {}
    for check in extraction.get("validations", []):
        if check["status"] != "fail":
            continue
        names = DUPLICATE_FIELDS if check["rule"] == "LL-DUPLICATE" else RULE_FIELDS.get(
            check["rule"], ())
        for name in names:
            failing.setdefault(name, []).append(f"{check['rule']}: {check['detail']}")
    out = []
    for name, entry in extraction.get("fields", {}).items():
        bbox = entry.get("bbox")
        box = None
        if bbox and entry.get("page"):
            box = (min(bbox[0], bbox[2]), min(bbox[1], bbox[3]), max(bbox[0], bbox[2]),
                   max(bbox[1], bbox[3]))
        out.append({"name": name, "value": entry.get("value"),
                    "confidence": entry.get("confidence"), "source": entry.get("source"),
                    "page": entry.get("page"), "box": box, "failing": failing.get(name, [])})
    return out


def _next_in_queue(services, caller, account, invoice) -> str | None:
    """The next invoice of the queue after this one (older), whether or not this one is
    still in it."""
    after = _after(invoice["created_at"], invoice["id"])
    found = reads.invoices(services, caller, account,
                           reads.ListFilter(review="required", limit=1, after=after))
    return found[0]["id"] if found else None


class PageImagePath(InvoicePath):
    number: Annotated[int, Field(ge=1, le=10_000)]


@bp.get(f"{HOME}/<account>/invoices/<invoice_id>/pages/<number>.png",
        operation_id="reviewPageImage",
        summary="A page of the invoice's original as a PNG (PDFium's rendering, cached per "
                "page), for a caller who may read the invoice.",
        security=SIGNED_IN,
        responses={200: {"description": "The page.", "content": {"image/png": {"schema": {
            "type": "string", "format": "binary"}}}}, **SEE_OTHER,
                   **problems(400, 401, 404, 429)})
def page_image(path: PageImagePath):
    caller, _ = _caller()
    png = page_images.page_png(_services(), caller, path.account, path.invoice_id, path.number)
    resp = Response(png.read_bytes(), mimetype="image/png")  # a page is a few hundred kB
    resp.headers["Cache-Control"] = "private, no-store"
    return resp


class CorrectionForm(ApiModel):
    """The form of one field (the page's script sends the same as a PATCH)."""
    field: str
    value: str
    version: Annotated[int, Field(ge=0, description="The version the form was shown at: the "
                                                    "correction applies only to it.")]
    csrf: str


FORM_BODY = {"requestBody": {"required": True, "content": {
    "application/x-www-form-urlencoded": {"schema": {
        "type": "object", "required": ["field", "value", "version", "csrf"],
        "properties": {"field": {"type": "string"}, "value": {"type": "string"},
                       "version": {"type": "integer", "minimum": 0},
                       "csrf": {"type": "string"}}}}}}}


@bp.post(f"{HOME}/<account>/invoices/<invoice_id>", operation_id="reviewCorrectByForm",
         summary="Correct one field from the review screen's form (no script needed).",
         description="As `PATCH /v1/…/invoices/{id}` with `If-Match` of the version shown; "
         "back to the invoice page (303), or the page again with why not (409, 412, 422). An "
         "empty value clears the field.",
         security=SIGNED_IN, openapi_extensions=FORM_BODY,
         responses={**SEE_OTHER, 409: HTML_PAGE, 412: HTML_PAGE, 422: HTML_PAGE,
                    **problems(400, 401, 403, 404, 429)})
def correct_by_form(path: InvoicePath):
    caller, by_cookie = _caller()
    if by_cookie:
        dashboard.same_origin()
        dashboard.check_csrf(request.form.get("csrf"))
    name = request.form.get("field", "")
    value = request.form.get("value", "").strip() or None
    version = request.form.get("version", "")
    try:
        patch = corrections.parse_patch({"fields": {name: value}})
        corrections.correct(_services(), caller, path.account, path.invoice_id, patch,
                            rules.IfMatch(frozenset({version})))
    except LedgerlineError as exc:
        if exc.status not in (409, 412, 422):
            raise
        return _invoice_page(caller, by_cookie, path.account, path.invoice_id,
                             message=exc.detail, status=exc.status)
    return redirect(f"{HOME}/{path.account}/invoices/{path.invoice_id}#field-{name}", code=303)


@bp.patch(f"{HOME}/<account>/invoices/<invoice_id>", operation_id="reviewCorrect",
          summary="Correct the invoice from the review screen's script.",
          description="The API's correction (`PATCH /v1/…/invoices/{id}`: the same body, "
          "`If-Match`, checks and answers) for a signed-in session, with its CSRF token in "
          "`X-CSRF-Token`.",
          security=SIGNED_IN,
          openapi_extensions={**json_body(CorrectionRequest),
                              **header_parameters(PreconditionHeaders)},
          responses={200: json_response(Invoice, "The invoice as it now shows."),
                     **problems(400, 401, 403, 404, 409, 412, 413, 415, 422, 429)})
def correct(path: InvoicePath):
    caller, by_cookie = _caller()
    if by_cookie:
        dashboard.same_origin()
        dashboard.check_csrf(request.headers.get("X-CSRF-Token"))
    patch = corrections.parse_patch(json_object())
    return _with_etag(corrections.correct(_services(), caller, path.account, path.invoice_id,
                                          patch, _if_match()))

