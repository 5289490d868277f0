"""Every HTTP request, as operators follow it: its request id, one log line, and its metrics.

- `X-Request-Id`: the caller's (1 to 128 letters, digits and `._:-/+=`), else a new one; it
  is sent back on the response, it is on every log line written while the request runs, and
  an upload stores it with the job it creates, so the worker's line for that job names it.
- One log line per request (logs.py): method, route template, status, duration, account, the
  caller's key id (never the key), the cache outcome of an upload, the request id.
- `ledgerline_http_requests_total` and `ledgerline_http_request_duration_seconds` by method,
  route template and status. Templates, never paths: an invoice id in a label would make a
  series per invoice.

The duration runs until the response is ready: the body of a streamed export or file is sent
after it.
"""
from __future__ import annotations

import re
import time
import uuid

from flask import Flask, g, request
from prometheus_client import Counter, Histogram

from .. import logs

REQUEST_ID_HEADER = "X-Request-Id"
_ACCEPTED_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
_RULE_PARAMETER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
UNMATCHED = "unmatched"  # the route of a request no rule matched (404, 405)

REQUESTS = Counter("ledgerline_http_requests_total", "HTTP requests by route and status",
                   ["method", "route", "status"])
LATENCY = Histogram("ledgerline_http_request_duration_seconds",
                    "Time to answer an HTTP request, by route and status",
                    ["method", "route", "status"],
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
log = logs.get("ledgerline.request")


def install(app: Flask, *, log_requests: bool = True) -> None:
    app.before_request(_begin)
    app.after_request(_answered if log_requests else _counted)
    app.teardown_request(_end)


def route_template(rule) -> str:
    """`/v1/accounts/<account>/invoices/<invoice_id>` as OpenAPI writes it:
    `/v1/accounts/{account}/invoices/{invoice_id}`."""
    return UNMATCHED if rule is None else _RULE_PARAMETER.sub(r"{\1}", rule.rule)


def request_id_of(given: str | None) -> str:
    return given if given and _ACCEPTED_ID.fullmatch(given) else uuid.uuid4().hex


def _begin() -> None:
    g.request_started = time.perf_counter()
    g.request_id = request_id_of(request.headers.get(REQUEST_ID_HEADER))
    logs.bind_request(g.request_id)


def _counted(response):
    response.headers[REQUEST_ID_HEADER] = g.get("request_id") or request_id_of(None)
    seconds = time.perf_counter() - g.get("request_started", time.perf_counter())
    route = route_template(request.url_rule)
    labels = (request.method, route, str(response.status_code))
    REQUESTS.labels(*labels).inc()
    LATENCY.labels(*labels).observe(seconds)
    g.request_line = dict(method=request.method, route=route, status=response.status_code,
                          duration_ms=round(seconds * 1000, 1))
    return response


def _answered(response):
    response = _counted(response)
    caller = g.get("caller")
    log.info("request", **g.request_line,
             account=(request.view_args or {}).get("account") or getattr(caller, "account", None),
             key_id=getattr(caller, "key_id", None),
             cache=response.headers.get("Ledgerline-Cache"), request_id=g.request_id)
    return response


def _end(_error=None) -> None:
    logs.bind_request(None)
