"""The operator dashboard: the last 30 days of the duplicate-work report, spend per provider and
the shadow comparison, as HTML and SVG, and the review queue of every account.

Sign-in: an operator key, either as `Authorization: Bearer` or through the login form. The
form opens a server-side session (adapters/db/sessions.py); the cookie — Secure, HttpOnly,
SameSite=Strict, scoped to /dashboard — holds only the session's random id, signed, never the
key. Signing out deletes the session on the server, so a copied cookie is worthless after it;
revoking the operator key ends its sessions too. Sign-ins are limited per address, and form
posts from another origin (an `Origin` of `null` included) are refused. The page runs no
scripts: the charts are SVG drawn on the server.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from flask import (
    Blueprint,
    Response,
    current_app,
    make_response,
    redirect,
    render_template_string,
    request,
)
from markupsafe import Markup

from itsdangerous import BadSignature, URLSafeTimedSerializer

from ..adapters.db import invoices as reads
from ..adapters.db import sessions
from ..adapters.db.engine import transaction
from ..adapters.db.keys import session_secret
from ..domain.errors import Forbidden, RateLimited
from ..domain.ratelimit import RateLimiter, retry_after_header
from ..service_layer import report
from . import charts, limits
from .auth import caller_for_secret, current_caller
from .reports import require_operator

bp = Blueprint("dashboard", __name__)
COOKIE = "ledgerline_operator"   # a signed session id, never the key
COOKIE_PATH = "/dashboard"
SESSION_SECONDS = 8 * 3600
SALT = "ledgerline.dashboard.session"
SIGNER, SIGN_IN_LIMITER = "ledgerline.session_signer", "ledgerline.sign_ins"
SIGN_INS_PER_MINUTE = 10   # per client address and API process, successful ones included
MAX_COOKIE = 400
DAYS = 30
# Security headers for every page come from http.security; a signed-in page, whichever
# way the key came, must not be kept by any cache.
NO_STORE = {"Cache-Control": "no-store", "Vary": "Cookie, Authorization"}


def _services():
    return current_app.extensions["ledgerline"]


class TooManySignIns(RateLimited):
    code, title = "too_many_sign_ins", "Too many dashboard sign-ins from this address"


def _operator(secret: str | None):
    """The operator this key belongs to; None for no key, an unknown one or another role."""
    if not secret:
        return None
    caller = caller_for_secret(secret)
    return caller if caller is not None and caller.is_operator() else None


def _signer() -> URLSafeTimedSerializer:
    """Signs session ids with the secret every process reads from the database once."""
    signer = current_app.extensions.get(SIGNER)
    if signer is None:
        with transaction(_services().engine, write=False) as conn:
            secret = session_secret(conn)
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


def _operator_from_cookie():
    """The operator whose live session the cookie names; an unknown or forged cookie counts
    as a failed authentication of the address."""
    limits.refuse_if_failing_too_often()
    session_id = _session_id()
    caller = None
    if session_id:
        with transaction(_services().engine, write=False) as conn:
            caller = sessions.operator_of(conn, session_id)
    if caller is None:
        limits.count_auth_failure()
    return caller


@bp.get("/dashboard")
def dashboard():
    last = _last_day(request.args)
    if request.headers.get("Authorization"):
        require_operator(current_caller())  # a bearer key: the API's rules (401, 404)
    elif request.cookies.get(COOKIE) is None:
        return _html(_page(LOGIN, error=None, to=request.args.get("to")))
    elif _operator_from_cookie() is None:  # signed out, ran out, revoked, or forged
        resp = _html(_page(LOGIN, error="Your session has ended; sign in with an operator "
                                        "key.", to=request.args.get("to")), 401)
        resp.delete_cookie(COOKIE, path=COOKIE_PATH)
        return resp
    last = last or datetime.now(timezone.utc).date()
    span = report.Days(max(report.FIRST_DAY, last - timedelta(days=DAYS - 1)), last)
    services = _services()
    documents = report.duplicate_report(services.engine, services.settings, span)
    agreement = report.agreement_report(services.engine, span)
    with transaction(services.engine, write=False) as conn:
        queue = reads.review_queue(conn)
    return _html(_page(DASHBOARD, span=span, days=documents, review_queue=queue,
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


@bp.post("/dashboard/login")
def login():
    _same_origin()
    _limit_sign_ins()
    secret = (request.form.get("key") or "").strip()
    last = _last_day(request.form)
    operator = _operator(secret)
    if operator is None:
        return _html(_page(LOGIN, error="That key is not an operator key.",
                           to=request.form.get("to")), 401)
    with transaction(_services().engine, write=True) as conn:
        session_id = sessions.open_session(conn, operator.key_id, SESSION_SECONDS)
    # Back to the days the operator asked for before signing in.
    resp = redirect(f"/dashboard?to={last.isoformat()}" if last else "/dashboard", code=303)
    resp.set_cookie(COOKIE, _signer().dumps(session_id), max_age=SESSION_SECONDS,
                    path=COOKIE_PATH, secure=True, httponly=True, samesite="Strict")
    return resp


@bp.post("/dashboard/logout")
def logout():
    """Ends the session on the server, then forgets the cookie."""
    _same_origin()
    session_id = _session_id()
    if session_id:
        with transaction(_services().engine, write=True) as conn:
            sessions.end_session(conn, session_id)
    resp = redirect("/dashboard", code=303)
    resp.delete_cookie(COOKIE, path=COOKIE_PATH, secure=True, httponly=True, samesite="Strict")
    return resp


def _last_day(values):
    """The `to` day of a query or form, validated (400 otherwise); None when not given."""
    return report.parse_day(values["to"], "to") if "to" in values else None


def _same_origin() -> None:
    """Forms post only from this site (on top of the SameSite cookie). `Origin: null` (a
    sandboxed frame, a redirect across origins, a file) is another site, and so is a browser
    that says the request is cross-site."""
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") != request.host_url.rstrip("/"):
        raise Forbidden("cross-site form posts are not accepted")
    if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        raise Forbidden("cross-site form posts are not accepted")


def _limit_sign_ins() -> None:
    limiter = current_app.extensions.get(SIGN_IN_LIMITER)
    if limiter is None:
        limiter = current_app.extensions[SIGN_IN_LIMITER] = RateLimiter(SIGN_INS_PER_MINUTE)
    wait = limiter.take(limits.client_address())
    if wait:
        raise TooManySignIns(f"too many sign-ins from this address; retry in "
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


def _page(body: str, **context) -> str:
    return render_template_string(LAYOUT, body=Markup(render_template_string(body, **context)))


def _html(page: str, status: int = 200) -> Response:
    resp = make_response(page, status)
    resp.mimetype = "text/html"
    resp.headers.update(NO_STORE)
    # Not the service's `no-referrer`: under it a browser sends `Origin: null` on every form
    # post, same-origin ones included, and _same_origin() could not tell this site's own
    # sign-in from a sandboxed frame's. `same-origin` still gives other sites no referrer.
    resp.headers["Referrer-Policy"] = "same-origin"
    return resp


LAYOUT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ledgerline · duplicate work</title>
<style>
 body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #fff; }
 header { background: #1f3a5f; color: #fff; padding: 12px 24px; display: flex;
          justify-content: space-between; align-items: center; }
 header h1 { font-size: 18px; margin: 0; }
 main { padding: 16px 24px 40px; max-width: 1000px; }
 h2 { font-size: 16px; margin: 28px 0 6px; }
 .chart { display: block; max-width: 100%; height: auto; }
 .chart .axis { font-size: 11px; fill: #555; }
 .legend { font-size: 13px; margin: 4px 0 0; }
 .key { margin-right: 18px; white-space: nowrap; }
 .swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px;
           vertical-align: -1px; border-radius: 2px; }
 table { border-collapse: collapse; margin-top: 8px; font-variant-numeric: tabular-nums; }
 th, td { padding: 4px 10px; border-bottom: 1px solid #e3e3e3; }
 th { text-align: left; background: #f5f5f7; font-weight: 600; }
 td.n, th.n { text-align: right; }
 .summary { display: flex; gap: 28px; flex-wrap: wrap; margin: 12px 0 0; }
 .summary div { min-width: 150px; }
 .summary b { display: block; font-size: 20px; }
 .error { color: #b00020; }
 form.login { max-width: 420px; margin-top: 24px; }
 form.login input[type=password] { width: 100%; padding: 6px; font: inherit; }
 button { font: inherit; padding: 6px 14px; margin-top: 10px; }
 header button { margin: 0; }
</style></head>
<body>{{ body }}</body></html>
"""

LOGIN = """<header><h1>Ledgerline · duplicate work</h1></header>
<main>
<form class="login" method="post" action="/dashboard/login">
 <h2>Operator sign-in</h2>
 {% if error %}<p class="error" role="alert">{{ error }}</p>{% endif %}
 <label for="key">Operator API key</label>
 <input id="key" name="key" type="password" autocomplete="off" required>
 {% if to %}<input type="hidden" name="to" value="{{ to }}">{% endif %}
 <button type="submit">Sign in</button>
</form>
</main>
"""

DASHBOARD = """<header><h1>Ledgerline · duplicate work, {{ span.first }} to {{ span.last }} (UTC)</h1>
{% if signed_in_by_cookie %}<form method="post" action="/dashboard/logout">
<button type="submit">Sign out</button></form>{% endif %}</header>
<main>
<div class="summary" id="summary">
 <div>model calls<b>{{ "{:,}".format(totals.model_calls) }}</b></div>
 <div>spent<b>{{ "{:,.2f}".format(totals.cost) }} USD</b></div>
 <div>avoided<b>{{ "{:,.2f}".format(totals.cost_avoided) }} USD</b></div>
 <div>would be avoided (shadow)<b>{{ "{:,.2f}".format(totals.cost_would_be_avoided) }} USD</b></div>
 <div>cache hit rate<b>{% if totals.hit_rate is none %}–{% else %}{{ "{:.1%}".format(totals.hit_rate) }}{% endif %}</b></div>
</div>

<h2>Review queue</h2>
<table id="review-queue">
 <thead><tr><th>account</th><th class="n">invoices to review</th></tr></thead>
 <tbody>
 {% for account, waiting in review_queue %}<tr><td>{{ account }}</td><td class="n">{{ "{:,}".format(waiting) }}</td></tr>
 {% else %}<tr><td colspan="2">Nothing waits for review.</td></tr>{% endfor %}
 </tbody>
</table>

<h2>Model calls per day</h2>
{{ calls_chart }}
<p class="legend">{{ calls_legend }}</p>

<h2>Cost per day (USD, at {{ price }} USD a call for what was avoided)</h2>
{{ cost_chart }}
<p class="legend">{{ cost_legend }}</p>

<h2>Cache hit rate per day</h2>
{{ rate_chart }}
<p class="legend">{{ rate_legend }}</p>

<h2>Per operation, last {{ days|length }} days</h2>
<table id="operations">
 <thead><tr><th>operation</th><th class="n">calls</th><th class="n">distinct hashes</th>
  <th class="n">repeats</th><th class="n">repeat share</th><th class="n">cost USD</th>
  <th class="n">repeat cost USD</th><th class="n">overlapping</th>
  <th class="n">overlapping cost USD</th></tr></thead>
 <tbody>
 {% for op in operations %}<tr><td>{{ op.operation }}</td>
  <td class="n">{{ "{:,}".format(op.calls) }}</td><td class="n">{{ "{:,}".format(op.distinct_hashes) }}</td>
  <td class="n">{{ "{:,}".format(op.repeat_calls) }}</td><td class="n">{{ "{:.1%}".format(op.repeat_share) }}</td>
  <td class="n">{{ "{:,.2f}".format(op.cost) }}</td><td class="n">{{ "{:,.2f}".format(op.repeat_cost) }}</td>
  <td class="n">{{ "{:,}".format(op.overlapping_calls) }}</td><td class="n">{{ "{:,.2f}".format(op.overlapping_cost) }}</td></tr>
 {% else %}<tr><td colspan="9">No model calls in these days.</td></tr>{% endfor %}
 </tbody>
</table>

<h2>Spend per provider, last {{ days|length }} days</h2>
<table id="spend">
 <thead><tr><th>operation</th><th>provider</th><th class="n">calls</th><th class="n">cost USD</th>
  <th class="n">requests</th><th class="n">input tokens</th><th class="n">output tokens</th>
  <th class="n">pages</th><th class="n">throttled</th></tr></thead>
 <tbody>
 {% for s in spend %}<tr><td>{{ s.operation }}</td><td>{{ s.provider }}</td>
  <td class="n">{{ "{:,}".format(s.calls) }}</td><td class="n">{{ "{:,.4f}".format(s.cost) }}</td>
  <td class="n">{{ "{:,}".format(s.provider_requests) }}</td><td class="n">{{ "{:,}".format(s.input_tokens) }}</td>
  <td class="n">{{ "{:,}".format(s.output_tokens) }}</td><td class="n">{{ "{:,}".format(s.pages) }}</td>
  <td class="n">{{ "{:,}".format(s.throttled_calls) }}</td></tr>
 {% else %}<tr><td colspan="9">No model calls in these days.</td></tr>{% endfor %}
 </tbody>
</table>

<h2>Shadow comparison: candidate providers, last {{ days|length }} days</h2>
{% for c in candidates %}
<p class="candidate">{{ c.provider }}{% if c.model %} ({{ c.model }}){% endif %}:
 {{ "{:,}".format(c.comparisons) }} comparisons, {{ "{:,}".format(c.calls) }} calls,
 shadow spend {{ "{:,.4f}".format(c.cost) }} USD</p>
<table class="agreement">
 <thead><tr><th>field</th><th class="n">agree</th><th class="n">found by either</th>
  <th class="n">agreement</th></tr></thead>
 <tbody>
 {% for f in c.fields %}<tr><td>{{ f.field }}</td><td class="n">{{ "{:,}".format(f.agree) }}</td>
  <td class="n">{{ "{:,}".format(f.found) }}</td>
  <td class="n">{% if f.rate is none %}–{% else %}{{ "{:.1%}".format(f.rate) }}{% endif %}</td></tr>
 {% endfor %}
 </tbody>
</table>
{% else %}<p id="no-shadow">No shadow comparisons in these days (set LEDGERLINE_SHADOW_PROVIDER).</p>
{% endfor %}

<h2>Uploads per day</h2>
<table id="days">
 <thead><tr><th>day</th><th class="n">uploads</th><th class="n">hits</th><th class="n">joined</th>
  <th class="n">bypass</th><th class="n">model calls</th><th class="n">avoided USD</th>
  <th class="n">would-be hits</th><th class="n">would-be joined</th></tr></thead>
 <tbody>
 {% for d in days|reverse %}{% set r = d.requests %}<tr><td>{{ d.day }}</td>
  <td class="n">{{ "{:,}".format(r.total) }}</td><td class="n">{{ "{:,}".format(r.cache_hits) }}</td>
  <td class="n">{{ "{:,}".format(r.joined) }}</td><td class="n">{{ "{:,}".format(r.bypass) }}</td>
  <td class="n">{{ "{:,}".format(r.model_calls) }}</td><td class="n">{{ "{:,.2f}".format(r.cost_avoided) }}</td>
  <td class="n">{{ "{:,}".format(r.would_be_hits) }}</td><td class="n">{{ "{:,}".format(r.would_be_joined) }}</td></tr>
 {% endfor %}
 </tbody>
</table>
</main>
"""
