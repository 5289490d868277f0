"""Errors the service layer raises; the HTTP edge maps each to one problem type."""
from __future__ import annotations


class LedgerlineError(Exception):
    status = 500
    code = "internal_error"
    title = "Internal error"

    def __init__(self, detail: str | None = None):
        super().__init__(detail or self.title)
        self.detail = detail or self.title


def _error(name: str, status: int, code: str, title: str) -> type[LedgerlineError]:
    return type(name, (LedgerlineError,), {"status": status, "code": code, "title": title})


BadRequest = _error("BadRequest", 400, "bad_request", "Malformed request")
EmptyBody = _error("EmptyBody", 400, "empty_body", "The request body is empty")
Unauthenticated = _error("Unauthenticated", 401, "unauthenticated", "Missing or unknown API key")
Forbidden = _error("Forbidden", 403, "forbidden", "Your role may not do this")
NotFound = _error("NotFound", 404, "not_found", "No such resource")
TooLarge = _error("TooLarge", 413, "too_large", "The upload is larger than allowed")
UnsupportedFormat = _error("UnsupportedFormat", 415, "unsupported_media_type",
                           "The body is not an accepted document format")
InvoiceNotFailed = _error("InvoiceNotFailed", 409, "invoice_not_failed",
                          "Only a failed invoice can be retried")
InvoiceNotCompleted = _error("InvoiceNotCompleted", 409, "invoice_not_completed",
                             "Only a completed invoice can be corrected or reviewed")
ReviewNotRequired = _error("ReviewNotRequired", 409, "review_not_required",
                           "This invoice has no review to resolve")
InvalidCorrection = _error("InvalidCorrection", 422, "invalid_correction",
                           "The correction is not a valid invoice-v1 value")
WebhookUrlRefused = _error("WebhookUrlRefused", 422, "webhook_url_refused",
                           "Deliveries to this URL are not allowed")
OneFilePerRequest = _error("OneFilePerRequest", 400, "one_file_per_request",
                           "One invoice per request")
IdempotencyKeyReused = _error("IdempotencyKeyReused", 422, "idempotency_key_reused",
                              "This Idempotency-Key was used for a different request")
Unavailable = _error("Unavailable", 503, "unavailable", "Storage or database unavailable")


class RateLimited(LedgerlineError):
    status, code, title = 429, "rate_limited", "Too many requests"

    def __init__(self, detail: str | None = None, *, retry_after: str = "1"):
        super().__init__(detail)
        self.headers = {"Retry-After": retry_after}
