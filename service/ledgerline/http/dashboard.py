"""The operator dashboard: the last 30 days of the duplicate-work report, spend per provider and
the shadow comparison, as HTML and SVG, and the review queue of every account; and the sign-in
every dashboard page shares (the review screen of customers and dashboard keys is
http/review_screen.py).

Sign-in: an operator, customer or dashboard key, either as `Authorization: Bearer` or through
the login form. The form opens a server-side session (adapters/db/sessions.py); the cookie —
HttpOnly, SameSite=Strict, scoped to /dashboard, and Secure whenever the request came over
https (directly, or as a trusted proxy's X-Forwarded-Proto says) or
LEDGERLINE_DASHBOARD_SECURE_COOKIE asks for it — holds only the session's random id, signed,
never the key. A Secure cookie on a plain-http page is one a browser drops without a word, so
over http it is not Secure unless the setting says so. Signing out deletes the session on the
server, so a copied cookie is worthless after it; revoking the key ends its sessions too.
A wrong key at sign-in counts as a failed authentication (http/key_guard.py: guessing is
throttled, a working key never refused); one key signs in at most SIGN_INS_PER_MINUTE times a
minute. A refused sign-in says why on the form, and form posts from another origin (an
`Origin` of `null` included) are refused. Pages load no inline script or style
(Content-Security-Policy); the charts are SVG drawn on the server.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Annotated

from flask import (Response, current_app, make_response, redirect, render_template, request,
                   send_from_directory)
from flask_openapi3 import APIBlueprint
from itsdangerous import BadSignature, URLSafeTimedSerializer
from markupsafe import Markup
from pydantic import Field

from ..domain.errors import Forbidden, NotFound, RateLimited
from ..domain.ratelimit import RateLimiter, retry_after_header
from ..service_layer import operator_sessions, reads, report
from . import charts
from .auth import caller_for_secret, current_caller
from .models import (
    HTML_PAGE,
    PROBLEM,
    PUBLIC,
    RESPONSES,
    ApiModel,
    component,
    documented,
    problems,
    ref,
)
from .reports import require_operator

bp = APIBlueprint("dashboard", __name__, template_folder="templates")
COOKIE = "ledgerline_operator"   # a signed session id, never the key
COOKIE_PATH = "/dashboard"
REVIEW_HOME = "/dashboard/review"
SESSION_SECONDS = 8 * 3600
SALT = "ledgerline.dashboard.session"
SIGNER, SIGN_IN_LIMITER = "ledgerline.session_signer", "ledgerline.sign_ins"
SIGN_INS_PER_MINUTE = 10   # per key and API process: sessions are rows
MAX_COOKIE = 400
DAYS = 30
# Security headers for every page come from http.security; a signed-in page, whichever
# way the key came, must not be kept by any cache.
NO_STORE = {"Cache-Control": "no-store", "Vary": "Cookie, Authorization"}


def _services():
    return current_app.extensions["ledgerline"]


class TooManySignIns(RateLimited):
    code, title = "too_many_sign_ins", "Too many dashboard sign-ins with this key"
    explanation = ("A key signs in at most 10 times a minute (each sign-in is a "
                   "session); retry after `Retry-After` seconds. Wrong keys count as failed "
                   "authentications instead, which never refuse a working key.")


NO_KEY = "Enter an API key."
UNKNOWN_KEY = "That key is unknown, revoked or expired."
SUPPLIER_KEY = ("A supplier key cannot sign in here: use an operator key for the reports, or a "
                "customer or dashboard key for the account's review screen.")
SESSION_ENDED = "Your session has ended; sign in again."


def _sign_in_refusal(caller) -> str | None:
    """Why this key may not sign in; None when it may."""
    if caller is None:
        return UNKNOWN_KEY
    if caller.role not in operator_sessions.SIGN_IN_ROLES:
        return SUPPLIER_KEY
    return None


def secure_cookie() -> bool:
    """Secure on https (directly, or by a trusted proxy's X-Forwarded-Proto, which ProxyFix
    turns into the request's scheme), or everywhere when the setting says so."""
    return request.is_secure or _services().settings.dashboard_secure_cookie


def _signer() -> URLSafeTimedSerializer:
    """Signs session ids with the secret every process reads from the database once."""
    signer = current_app.extensions.get(SIGNER)
    if signer is None:
        secret = operator_sessions.signing_secret(_services())
        signer = current_app.extensions[SIGNER] = URLSafeTimedSerializer(secret, salt=SALT)
    return signer


def _session_id() -> str | None:
    """The session id of a cookie this service signed, unless it is older than a session."""
    raw = request.cookies.get(COOKIE)
    if not raw or len(raw) > MAX_COOKIE:
        return None
    try:
        return _signer().loads(raw, max_age=SESSION_SECONDS)
    except BadSignature:
        return None


def signed_in():
    """The caller whose live session the cookie names (an operator, a customer or a dashboard
    key). Only a cookie this service signed is looked up: a forged one costs nothing, so it
    needs no limit (and a real session is never refused for someone else's failures)."""
    session_id = _session_id()
    if not session_id:
        return None
    return operator_sessions.caller_of(_services(), session_id)


def csrf_token() -> str:
    """The token every form of a signed-in page carries: bound to the session, so a page of
    another site can neither read nor forge it (on top of SameSite=Strict and the origin
    check)."""
    return _signer().dumps(["csrf", _session_id() or ""])


def check_csrf(token: str | None) -> None:
    try:
        kind, session_id = _signer().loads(token or "", max_age=SESSION_SECONDS)
    except (BadSignature, ValueError, TypeError):
        raise Forbidden("the form's CSRF token is missing or not this session's") from None
    if kind != "csrf" or not session_id or session_id != _session_id():
        raise Forbidden("the form's CSRF token is missing or not this session's")


def sign_in_page(error: str | None, status: int = 200, to=None) -> Response:
    return html_page(render_template("dashboard_login.html", error=error, to=to), status)


class DashboardQuery(ApiModel):
    to: Annotated[documented(component("ReportDay")), Field(
        description="The last day shown (UTC); default today.")] = None


@bp.get("/dashboard", operation_id="dashboard",
        summary="The operator dashboard, an HTML page of the last 30 days of the duplicate-work "
                "report.",
        description="Signed in with an operator key, as `Authorization: Bearer` or through the "
        "login form's cookie. Without either it is the sign-in page (200); a cookie that is not "
        "an operator key is 401 with the sign-in page; a bearer key follows the API's rules "
        "(401 unknown, 404 not an operator). The sign-in form carries `to` on, so that signing "
        "in opens the same days.",
        security=[{"bearer": []}, {"operatorCookie": []}, {}],
        responses={200: HTML_PAGE, 400: PROBLEM, 401: {
            "description": "An unknown bearer key (problem) or a cookie that is not an operator "
                           "key (sign-in page).",
            "content": {**RESPONSES["Html"]["content"], **RESPONSES["Problem"]["content"]}},
            **problems(404, 429)})
def dashboard(query: DashboardQuery):
    last = _last_day(request.args)
    if request.headers.get("Authorization"):
        require_operator(current_caller())  # a bearer key: the API's rules (401, 404)
    elif request.cookies.get(COOKIE) is None:
        return sign_in_page(None, to=request.args.get("to"))
    else:
        caller = signed_in()
        if caller is None:  # signed out, ran out, revoked, or forged
            resp = sign_in_page(SESSION_ENDED, 401, to=request.args.get("to"))
            resp.delete_cookie(COOKIE, path=COOKIE_PATH)
            return resp
        if not caller.is_operator():
            return redirect(REVIEW_HOME, code=303)
    last = last or datetime.now(timezone.utc).date()
    span = report.Days(max(report.FIRST_DAY, last - timedelta(days=DAYS - 1)), last)
    services = _services()
    documents = report.duplicate_report(services.engine, services.settings, span)
    agreement = report.agreement_report(services.engine, span)
    queue = reads.review_queue(services)
    return html_page(render_template("dashboard.html", span=span, days=documents,
                                     day_rows=collapse_empty_days(documents), review_queue=queue,
                       operations=_operation_totals(documents),
                       spend=_spend_totals(documents), candidates=_agreement_totals(agreement),
                       totals=_totals(documents), price=services.settings.price_per_call,
                       calls_chart=Markup(charts.calls_chart(documents)),
                       cost_chart=Markup(charts.cost_chart(documents)),
                       rate_chart=Markup(charts.hit_rate_chart(documents)),
                       calls_legend=Markup(charts.legend(charts.CALLS_LEGEND)),
                       cost_legend=Markup(charts.legend(charts.COST_LEGEND)),
                       rate_legend=Markup(charts.legend(charts.RATE_LEGEND)),
                       signed_in_by_cookie=not request.headers.get("Authorization")))


LOGIN_FORM = {"requestBody": {"required": True, "content": {
    "application/x-www-form-urlencoded": {"schema": {
        "type": "object", "required": ["key"],
        "properties": {"key": {"type": "string"}, "to": ref("ReportDay")}}}}}}


@bp.post("/dashboard/login", operation_id="dashboardLogin",
         summary="Sign in to the dashboard with an operator key; opens a server-side session.",
         description="The cookie (HttpOnly, Secure, SameSite=Strict, Path=/dashboard) holds the "
         "session's signed random id, never the key. A wrong key counts as a failed "
         "authentication (429 `too_many_auth_failures` past the budget; a working key is never "
         "refused for it); one key signs in at most 10 times a minute (429 "
         "`too_many_sign_ins`); a post from another origin, `Origin: null` included, is 403.",
         openapi_extensions={**PUBLIC, **LOGIN_FORM},
         responses={303: {"description": "Signed in; on to the dashboard (`/dashboard?to=DAY` "
                                         "when `to` was given).",
                          "headers": {"Location": {"schema": {"type": "string"}},
                                      "Set-Cookie": {"schema": {"type": "string"}}}},
                    400: PROBLEM, 401: {"description": "Not an operator key; the sign-in page "
                                                       "again.",
                                        "content": RESPONSES["Html"]["content"]},
                    **problems(403, 429)})
def login():
    same_origin()
    secret = (request.form.get("key") or "").strip()
    last = _last_day(request.form)
    to = request.form.get("to")
    if not secret:
        return sign_in_page(NO_KEY, 401, to=to)
    caller = caller_for_secret(secret)
    refusal = _sign_in_refusal(caller)
    if refusal:
        return sign_in_page(refusal, 401, to=to)
    _limit_sign_ins(caller.key_id)
    session_id = operator_sessions.open_session(_services(), caller.key_id, SESSION_SECONDS)
    if caller.is_operator():  # back to the days asked for before signing in
        target = f"/dashboard?to={last.isoformat()}" if last else "/dashboard"
    else:
        target = REVIEW_HOME
    resp = redirect(target, code=303)
    resp.set_cookie(COOKIE, _signer().dumps(session_id), max_age=SESSION_SECONDS,
                    path=COOKIE_PATH, secure=secure_cookie(), httponly=True, samesite="Strict")
    return resp


@bp.post("/dashboard/logout", operation_id="dashboardLogout",
         summary="Sign out of the dashboard (the session ends on the server; the cookie is "
                 "removed).",
         openapi_extensions=PUBLIC,
         responses={303: {"description": "Signed out; back to the sign-in page.",
                          "headers": {"Location": {"schema": {"type": "string"}}}},
                    **problems(403)})
def logout():
    # Ends the session on the server, then forgets the cookie.
    same_origin()
    session_id = _session_id()
    if session_id:
        operator_sessions.end_session(_services(), session_id)
    resp = redirect("/dashboard", code=303)
    resp.delete_cookie(COOKIE, path=COOKIE_PATH, secure=secure_cookie(), httponly=True,
                       samesite="Strict")
    return resp


def _last_day(values):
    """The `to` day of a query or form, validated (400 otherwise); None when not given."""
    return report.parse_day(values["to"], "to") if "to" in values else None


def same_origin() -> None:
    """Forms post only from this site (on top of the SameSite cookie). `Origin: null` (a
    sandboxed frame, a redirect across origins, a file) is another site, and so is a browser
    that says the request is cross-site."""
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") != request.host_url.rstrip("/"):
        raise Forbidden("cross-site form posts are not accepted")
    if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        raise Forbidden("cross-site form posts are not accepted")


def _limit_sign_ins(key_id: str) -> None:
    limiter = current_app.extensions.get(SIGN_IN_LIMITER)
    if limiter is None:
        limiter = current_app.extensions[SIGN_IN_LIMITER] = RateLimiter(SIGN_INS_PER_MINUTE)
    wait = limiter.take(key_id)
    if wait:
        raise TooManySignIns(f"too many sign-ins with this key; retry in "
                             f"{retry_after_header(wait)} s", retry_after=retry_after_header(wait))


def _operation_totals(documents: list[dict]) -> list[dict]:
    keys = ["calls", "distinct_hashes", "repeat_calls", "cost", "repeat_cost",
            "overlapping_calls", "overlapping_cost"]
    totals: dict[str, dict] = {}
    for doc in documents:
        for op in doc["operations"]:
            row = totals.setdefault(op["operation"], {k: 0 for k in keys})
            for k in keys:
                row[k] += op[k]
    return [{"operation": name, **row,
             "repeat_share": row["repeat_calls"] / row["calls"] if row["calls"] else 0.0}
            for name, row in sorted(totals.items())]


SPEND_KEYS = ("calls", "cost", "provider_requests", "input_tokens", "output_tokens", "pages",
              "throttled_calls")


def _spend_totals(documents: list[dict]) -> list[dict]:
    """Real spend per operation and provider over the days shown."""
    totals: dict[tuple, dict] = {}
    for doc in documents:
        for row in doc.get("spend", []):
            total = totals.setdefault((row["operation"], row["provider"]),
                                      dict.fromkeys(SPEND_KEYS, 0))
            for key in SPEND_KEYS:
                total[key] += row[key]
    return [{"operation": op, "provider": provider, **row}
            for (op, provider), row in sorted(totals.items())]


def _agreement_totals(documents: list[dict]) -> list[dict]:
    """Per candidate provider: its shadow cost and, per field, agreement over the days shown."""
    candidates: dict[tuple, dict] = {}
    for doc in documents:
        for c in doc["candidates"]:
            total = candidates.setdefault((c["provider"], c["model"]), {
                "provider": c["provider"], "model": c["model"], "calls": 0, "cost": 0.0,
                "comparisons": 0, "fields": {}})
            total["calls"] += c["calls"]
            total["cost"] += c["cost"]
            total["comparisons"] += c["comparisons"]
            for f in c["fields"]:
                field = total["fields"].setdefault(f["field"], {"agree": 0, "found": 0})
                field["agree"] += f["agree"]
                field["found"] += f["compared"] - f["neither"]
    for total in candidates.values():
        total["fields"] = [{"field": name, "agree": f["agree"], "found": f["found"],
                            "rate": f["agree"] / f["found"] if f["found"] else None}
                           for name, f in total["fields"].items()]
    return list(candidates.values())


def _totals(documents: list[dict]) -> dict:
    reqs = [d["requests"] for d in documents]
    total = sum(r["total"] for r in reqs)
    hits = sum(r["cache_hits"] for r in reqs)
    return {"uploads": total, "model_calls": sum(r["model_calls"] for r in reqs),
            "cost": sum(op["cost"] for d in documents for op in d["operations"]),
            "cost_avoided": sum(r["cost_avoided"] for r in reqs),
            "cost_would_be_avoided": sum(r["cost_would_be_avoided"] for r in reqs),
            "hit_rate": hits / total if total else None}


def collapse_empty_days(documents: list[dict]) -> list[dict]:
    """The days of the uploads table, newest first, a run of days without uploads or model
    calls as one row (`first`, `last`, `days`) instead of a row of zeros each."""
    out: list[dict] = []
    for doc in reversed(documents):
        r = doc["requests"]
        if r["total"] or r["model_calls"] or r["would_be_hits"] or r["would_be_joined"]:
            out.append({"day": doc["day"], "requests": r})
        elif out and "empty" in out[-1]:
            out[-1]["empty"]["first"] = doc["day"]
            out[-1]["empty"]["days"] += 1
        else:
            out.append({"empty": {"first": doc["day"], "last": doc["day"], "days": 1}})
    return out


# Every dashboard page: its own stylesheet and script only, nothing inline.
DASHBOARD_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                 "connect-src 'self'; base-uri 'none'; form-action 'self'; "
                 "frame-ancestors 'none'")
ASSETS = Path(__file__).with_name("assets")
ASSET_TYPES = {".css": "text/css", ".js": "text/javascript"}


class AssetPath(ApiModel):
    name: Annotated[str, Field(pattern=r"^[a-z_]+\.(css|js)$")]


@bp.get("/dashboard/assets/<name>", operation_id="dashboardAsset",
        summary="The dashboard's stylesheet and script.",
        openapi_extensions=PUBLIC,
        responses={200: {"description": "The file.", "content": {
            "text/css": {"schema": {"type": "string"}},
            "text/javascript": {"schema": {"type": "string"}}}}, 400: PROBLEM, 404: PROBLEM})
def asset(path: AssetPath):
    if not (ASSETS / path.name).is_file():
        raise NotFound("no such asset")
    resp = send_from_directory(ASSETS, path.name, mimetype=ASSET_TYPES[Path(path.name).suffix],
                               max_age=300)
    return resp


def html_page(page: str, status: int = 200) -> Response:
    resp = make_response(page, status)
    resp.mimetype = "text/html"
    resp.headers.update(NO_STORE)
    resp.headers["Content-Security-Policy"] = DASHBOARD_CSP
    # Not the service's `no-referrer`: under it a browser sends `Origin: null` on every form
    # post, same-origin ones included, and same_origin() could not tell this site's own
    # sign-in from a sandboxed frame's. `same-origin` still gives other sites no referrer.
    resp.headers["Referrer-Policy"] = "same-origin"
    return resp
