"""Errors the service raises. Each one is declared once, here or beside the code that raises it:
its HTTP status, its stable `code`, its title and what it means to the caller. The HTTP edge
answers with it as a problem (http/problems.py), serves its explanation at `/problems/<code>`
and lists every code in the OpenAPI document, all from this declaration.
"""
from __future__ import annotations


class LedgerlineError(Exception):
    status = 500
    code = "internal_error"
    title = "Internal error"
    explanation = ("A fault of the service, logged with its traceback; nothing about it is shown "
    "to the caller.")
    # Every problem type, by code, in the order declared (the first class declaring a code).
    catalogue: dict[str, type[LedgerlineError]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        LedgerlineError.catalogue.setdefault(cls.code, cls)

    def __init__(self, detail: str | None = None):
        super().__init__(detail or self.title)
        self.detail = detail or self.title


LedgerlineError.catalogue["internal_error"] = LedgerlineError


def _error(name: str, status: int, code: str, title: str,
           explanation: str) -> type[LedgerlineError]:
    return type(name, (LedgerlineError,), {"status": status, "code": code, "title": title,
    "explanation": explanation})


BadRequest = _error("BadRequest", 400, "bad_request", "Malformed request",
    "A parameter, header or body is not in the form this endpoint takes; `detail` "
    "names which. Fix the request; sending it again unchanged gives the same answer.")
EmptyBody = _error("EmptyBody", 400, "empty_body", "The request body is empty",
    "An upload needs the PDF as the body (or as the multipart field `file`).")
BodyIncomplete = _error("BodyIncomplete", 400, "body_incomplete",
    "The request body ended before it was complete",
    "The connection ended before the whole body arrived (fewer bytes than its "
    "`Content-Length`, or a chunked body without its last chunk). Nothing was accepted: no "
    "invoice, job, charge or `Idempotency-Key` record. Send it again, with the same key.")
Unauthenticated = _error("Unauthenticated", 401, "unauthenticated", "Missing or unknown API key",
    "Send `Authorization: Bearer <API key>` with a key created by `ledgerline keys "
    "create`.")
Forbidden = _error("Forbidden", 403, "forbidden", "Your role may not do this",
    "The key is known and may see the account, but its role may not do this here (a "
    "dashboard key uploading, a form posted from another site).")
NotFound = _error("NotFound", 404, "not_found", "No such resource",
    "It does not exist, or it is outside what this key may see: the two are answered "
    "alike, on purpose.")
TooLarge = _error("TooLarge", 413, "too_large", "The upload is larger than allowed",
    "Bodies above LEDGERLINE_MAX_UPLOAD_BYTES are refused while they stream; nothing "
    "was accepted.")
UnsupportedFormat = _error("UnsupportedFormat", 415, "unsupported_media_type",
    "The body is not an accepted document format",
    "Upload a PDF, a JPEG, PNG, TIFF, WebP or HEIF image, or an e-invoice XML (UBL, "
    "CII, KSeF): the format is told by the bytes, not by the Content-Type.")
InvoiceNotFailed = _error("InvoiceNotFailed", 409, "invoice_not_failed",
    "Only a failed invoice can be retried",
    "The invoice is pending, running or completed; retry asks for a new attempt at a "
    "failed one.")
InvoiceNotCompleted = _error("InvoiceNotCompleted", 409, "invoice_not_completed",
    "Only a completed invoice can be corrected or reviewed",
    "Wait for the extraction to finish (a failed invoice can be retried first).")
ReviewNotRequired = _error("ReviewNotRequired", 409, "review_not_required",
    "This invoice has no review to resolve",
    "Its extraction did not ask for review, so there is nothing to resolve.")
PreconditionFailed = _error("PreconditionFailed", 412, "precondition_failed",
    "The invoice changed since you read it",
    "`If-Match` named a version (the `ETag` of a read) that is no longer the invoice's: "
    "someone corrected it or resolved its review meanwhile. Nothing was changed; read it "
    "again and decide on its current values.")
InvalidCorrection = _error("InvalidCorrection", 422, "invalid_correction",
    "The correction is not a valid invoice-v2 value",
    "Each corrected field must take the form its field takes in invoice-v2 (ISO "
    "dates, decimal strings, ISO 4217 currencies, IBANs, texts within their width); "
    "`detail` names the field and why. Nothing was changed.")
InvalidText = _error("InvalidText", 422, "invalid_text",
    "A text in the body holds characters that cannot be stored",
    "`detail` names the field and the character: NUL and other control characters, or a "
    "lone surrogate (`\\ud800` in JSON, which no UTF-8 text can hold). Free text (a "
    "description, a reason, a note) is cleaned instead; this is for text kept exactly, such "
    "as a webhook URL.")
WebhookUrlRefused = _error("WebhookUrlRefused", 422, "webhook_url_refused",
    "Deliveries to this URL are not allowed",
    "Webhooks go to public HTTPS addresses. Loopback, private, link-local and "
    "metadata addresses, and plain HTTP, are allowed only inside the operator's "
    "LEDGERLINE_WEBHOOK_ALLOW_NETWORKS.")
OneFilePerRequest = _error("OneFilePerRequest", 400, "one_file_per_request",
    "One invoice per request",
    "A multipart upload carries exactly one `file` part; send each invoice in its own "
    "request (`ledgerline upload` does).")
IdempotencyKeyReused = _error("IdempotencyKeyReused", 422, "idempotency_key_reused",
    "This Idempotency-Key was used for a different request",
    "A key names one operation. Retry that operation with it, or use a new key for a "
    "new one.")
BodyTimeout = _error("BodyTimeout", 408, "request_timeout",
    "The request body did not arrive in time",
    "The whole body must arrive within LEDGERLINE_BODY_TIMEOUT_SECONDS; nothing was "
    "accepted. Send it again, faster.")
Unavailable = _error("Unavailable", 503, "unavailable", "Storage or database unavailable",
    "Nothing was accepted or changed; retry later.")


class RateLimited(LedgerlineError):
    status, code, title = 429, "rate_limited", "Too many requests"
    explanation = ("The key spent its requests for the minute (LEDGERLINE_RATE_LIMIT_PER_MINUTE); "
    "retry after `Retry-After` seconds.")

    def __init__(self, detail: str | None = None, *, retry_after: str = "1"):
        super().__init__(detail)
        self.headers = {"Retry-After": retry_after}


class SpoolUnavailable(LedgerlineError):
    """This server cannot write an upload to its own disk (full, gone): its trouble, not the
    client's, so a 503 to retry, on this server later or on another."""
    status, code, title = 503, "spool_unavailable", "The server cannot take uploads right now"
    explanation = ("This API process could not write the upload to its own disk "
    "(LEDGERLINE_SPOOL_DIR full or gone). Nothing was accepted; retry after `Retry-After` "
    "(another process may take it). `/readyz` reports `spool: unavailable` until it can write "
    "again.")
    RETRY_AFTER = "30"

    def __init__(self, detail: str | None = None):
        super().__init__(detail)
        self.headers = {"Retry-After": self.RETRY_AFTER}


class TooManyConnections(LedgerlineError):
    """Answered by the gevent worker itself (http/gevent_worker.py) to a connection past its
    cap, before any request is read."""
    status, code, title = 503, "too_many_connections", "Too many connections"
    explanation = ("This API process holds as many connections as LEDGERLINE_API_CONNECTIONS "
    "allows, so a new one is answered at once rather than queued; retry (another process or a "
    "moment later will take it).")
