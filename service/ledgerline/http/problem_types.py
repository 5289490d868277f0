"""Every problem `type` this service answers with, and what it means to the caller.

A problem's `type` is `/problems/<code>`, a page served by this service (http/docs.py) with
the text below; `code` is the same name, stable for programs. schemas/openapi.yaml lists the
same codes, and a test keeps the two in step.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProblemType:
    status: int
    title: str
    explanation: str


TYPES: dict[str, ProblemType] = {
    "bad_request": ProblemType(400, "Malformed request", "A parameter, header or body is not in "
                               "the form this endpoint takes; `detail` names which. Fix the "
                               "request; sending it again unchanged gives the same answer."),
    "empty_body": ProblemType(400, "The request body is empty", "An upload needs the PDF as the "
                              "body (or as the multipart field `file`)."),
    "invalid_day": ProblemType(400, "Not a day in the form YYYY-MM-DD", "Report days are ISO "
                               "dates between 1970-01-01 and 9998-12-31."),
    "invalid_range": ProblemType(400, "Not a usable range of days", "Ask for one `day`, or for "
                                 "`from` and `to` together, `to` not before `from`, at most 366 "
                                 "days."),
    "one_file_per_request": ProblemType(400, "One invoice per request", "A multipart upload "
                                        "carries exactly one `file` part; send each invoice in "
                                        "its own request (`ledgerline upload` does)."),
    "unauthenticated": ProblemType(401, "Missing or unknown API key", "Send `Authorization: "
                                   "Bearer <API key>` with a key created by `ledgerline keys "
                                   "create`."),
    "forbidden": ProblemType(403, "Your role may not do this", "The key is known and may see the "
                             "account, but its role may not do this here (a dashboard key "
                             "uploading, a form posted from another site)."),
    "not_found": ProblemType(404, "No such resource", "It does not exist, or it is outside what "
                             "this key may see: the two are answered alike, on purpose."),
    "method_not_allowed": ProblemType(405, "Method not allowed", "The path exists but not with "
                                      "this method; the `Allow` header lists those it takes."),
    "request_timeout": ProblemType(408, "The request body did not arrive in time", "The whole "
                                   "body must arrive within LEDGERLINE_BODY_TIMEOUT_SECONDS; "
                                   "nothing was accepted. Send it again, faster."),
    "too_large": ProblemType(413, "The upload is larger than allowed", "Bodies above "
                             "LEDGERLINE_MAX_UPLOAD_BYTES are refused while they stream; nothing "
                             "was accepted."),
    "unsupported_media_type": ProblemType(415, "The body is not an accepted document format",
                                          "Upload a PDF, a JPEG, PNG, TIFF, WebP or HEIF image, "
                                          "or an e-invoice XML (UBL, CII, KSeF): the format is "
                                          "told by the bytes, not by the Content-Type."),
    "invoice_not_failed": ProblemType(409, "Only a failed invoice can be retried", "The invoice "
                                      "is pending, running or completed; retry asks for a new "
                                      "attempt at a failed one."),
    "invoice_not_completed": ProblemType(409, "Only a completed invoice can be corrected or "
                                         "reviewed", "Wait for the extraction to finish (a "
                                         "failed invoice can be retried first)."),
    "review_not_required": ProblemType(409, "This invoice has no review to resolve", "Its "
                                       "extraction did not ask for review, so there is nothing "
                                       "to resolve."),
    "invalid_correction": ProblemType(422, "The correction is not a valid invoice-v1 value",
                                      "Each corrected field must take the form its field takes "
                                      "in invoice-v1 (ISO dates, decimal strings, ISO 4217 "
                                      "currencies, IBANs, texts within their width); `detail` "
                                      "names the field and why. Nothing was changed."),
    "webhook_url_refused": ProblemType(422, "Deliveries to this URL are not allowed",
                                       "Webhooks go to public HTTPS addresses. Loopback, "
                                       "private, link-local and metadata addresses, and plain "
                                       "HTTP, are allowed only inside the operator's "
                                       "LEDGERLINE_WEBHOOK_ALLOW_NETWORKS."),
    "idempotency_key_reused": ProblemType(422, "This Idempotency-Key was used for a different "
                                          "request", "A key names one operation. Retry that "
                                          "operation with it, or use a new key for a new one."),
    "rate_limited": ProblemType(429, "Too many requests", "The key spent its requests for the "
                                "minute (LEDGERLINE_RATE_LIMIT_PER_MINUTE); retry after "
                                "`Retry-After` seconds."),
    "too_many_in_flight": ProblemType(429, "Too many requests in flight for this API key",
                                      "At most LEDGERLINE_MAX_REQUESTS_PER_KEY requests of one "
                                      "key are served at once; retry when one has finished."),
    "too_many_sign_ins": ProblemType(429, "Too many dashboard sign-ins from this address",
                                     "Sign-in attempts are limited per address; retry after "
                                     "`Retry-After` seconds."),
    "too_many_auth_failures": ProblemType(429, "Too many failed authentications from this "
                                          "address", "Unknown keys from one address are limited "
                                          "(LEDGERLINE_AUTH_FAILURES_PER_MINUTE); retry after "
                                          "`Retry-After` seconds with a valid key."),
    "http_error": ProblemType(400, "HTTP error", "An error of the HTTP layer itself; `status` "
                              "and `title` say which."),
    "internal_error": ProblemType(500, "Internal error", "A fault of the service, logged with "
                                  "its traceback; nothing about it is shown to the caller."),
    "unavailable": ProblemType(503, "Storage or database unavailable", "Nothing was accepted or "
                               "changed; retry later."),
}


def code_for_http_status(status: int, werkzeug_name: str) -> str:
    """The catalogue's code for an error raised by the HTTP layer (routing, methods, …)."""
    code = werkzeug_name.lower().replace(" ", "_")
    if code in TYPES and TYPES[code].status == status:
        return code
    return "internal_error" if status >= 500 else "http_error"
