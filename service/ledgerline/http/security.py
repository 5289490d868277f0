"""Security headers and the per-key rate limit, in one place for every response.

Rate limit: a token bucket per API key, held in the memory of each API process. A shared
(database) bucket would be exact across processes and hosts, but it costs a write on a hot
row for every request, a cache hit included, and the design keeps a hit cheaper than a store.
So LEDGERLINE_RATE_LIMIT_PER_MINUTE is per process: with P API processes behind a balancer a
key gets at most P times the limit; divide by P when a cluster-wide figure matters. The
limit protects the service from one runaway client; it is not a billing quota.
"""
from __future__ import annotations

from flask import Flask, current_app, g, request

from ..domain.errors import RateLimited
from ..domain.identity import Caller
from ..domain.ratelimit import RateLimiter, retry_after_header

EXTENSION = "ledgerline.rate_limiter"

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
}
# JSON, CSV and PDF responses are never meant to be rendered as documents.
API_CSP = "default-src 'none'; frame-ancestors 'none'"
# HTML pages: same-origin resources only, no plugins, never framed, no inline script.
HTML_CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")


def install(app: Flask, per_minute: int) -> None:
    app.extensions[EXTENSION] = RateLimiter(per_minute)
    app.after_request(_headers)


def rate_limit(caller: Caller) -> None:
    """Spend one of the caller's tokens, or answer 429 with Retry-After."""
    wait = current_app.extensions[EXTENSION].take(caller.key_id)
    if wait:
        raise RateLimited(f"too many requests for this API key; retry in {retry_after_header(wait)} s",
                          retry_after=retry_after_header(wait))


def _headers(response):
    for name, value in COMMON.items():
        response.headers.setdefault(name, value)
    html = response.mimetype in ("text/html", "application/xhtml+xml")
    if html:  # a page may declare a stricter policy of its own (the dashboard does)
        response.headers.setdefault("Content-Security-Policy", HTML_CSP)
    else:
        response.headers["Content-Security-Policy"] = API_CSP
    if "Authorization" in request.headers or "Cookie" in request.headers or "caller" in g:
        # Per-caller answers must not be kept by shared caches or the browser's disk cache.
        response.headers["Cache-Control"] = "no-store"
        response.vary.add("Authorization")
        response.vary.add("Cookie")
    return response
