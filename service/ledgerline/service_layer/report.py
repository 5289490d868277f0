"""The duplicate-work report: how much model spend repeats work, and what caching saves.

The database does the counting (adapters.db.report); this module checks the days asked
for, fills in days without traffic, and shapes the contract's JSON document.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from ..adapters.db import report as queries
from ..adapters.db.engine import transaction, unhurried
from ..domain.errors import BadRequest

MAX_DAYS = 366
# The days a report can be about: a ledger starts no earlier, and a range's last day plus one
# (the SQL's exclusive end) still exists.
FIRST_DAY, LAST_DAY = date(1970, 1, 1), date(9998, 12, 31)
# One day's report on a million calls takes about a second; allow a busy server far more.
REPORT_STATEMENT_SECONDS = 120.0
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class InvalidDay(BadRequest):
    code = "invalid_day"
    title = "Not a day in the form YYYY-MM-DD"
    explanation = "Report days are ISO dates between 1970-01-01 and 9998-12-31."


class InvalidRange(BadRequest):
    code = "invalid_range"
    title = "Not a usable range of days"
    explanation = ("Ask for one `day`, or for `from` and `to` together, `to` not before `from`, "
                   "at most 366 days.")


def parse_day(value: str | None, name: str = "day") -> date:
    if not value or not _DAY.match(value):
        raise InvalidDay(f"{name} must be a date in the form YYYY-MM-DD, e.g. 2026-11-29")
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise InvalidDay(f"{name} {value!r} is not a calendar day") from None
    if not FIRST_DAY <= day <= LAST_DAY:
        raise InvalidDay(f"{name} must lie between {FIRST_DAY} and {LAST_DAY}")
    return day


@dataclass(frozen=True)
class Days:
    first: date
    last: date

    def __iter__(self):
        day = self.first
        while day <= self.last:
            yield day
            day += timedelta(days=1)


def days(*, day: str | None = None, first: str | None = None, last: str | None = None) -> Days:
    """One day, or an inclusive range of at most MAX_DAYS days."""
    if day is not None:
        if first is not None or last is not None:
            raise InvalidRange("ask for one day, or for a range with from and to, not both")
        one = parse_day(day)
        return Days(one, one)
    if first is None or last is None:
        raise InvalidDay("give a day (YYYY-MM-DD), or both from and to for a range")
    span = Days(parse_day(first, "from"), parse_day(last, "to"))
    if span.last < span.first:
        raise InvalidRange("to must not be before from")
    if (span.last - span.first).days + 1 > MAX_DAYS:
        raise InvalidRange(f"a range covers at most {MAX_DAYS} days")
    return span


def duplicate_report(engine, settings, span: Days) -> list[dict]:
    """One report document per day of the span, oldest first (days without calls included)."""
    documents = []
    with transaction(engine, write=False) as conn, unhurried(conn, REPORT_STATEMENT_SECONDS):
        for day in span:
            ops = queries.operation_rows(conn, day, lease_seconds=settings.lease_seconds)
            req = queries.request_row(conn, day)
            providers = queries.provider_rows(conn, day)
            documents.append(_document(day, ops, req, settings.price_per_call, providers))
    return documents


def _document(day: date, ops: list, req, price: Decimal, providers: list = ()) -> dict:
    model_calls = sum(op.calls for op in ops)
    hits, joined = req.cache_hits, req.joined
    would_hits, would_joined = req.would_be_hits, req.would_be_joined
    return {
        "day": day.isoformat(),
        "operations": [_operation(op) for op in ops],
        # Not in the contract: real spend per operation and provider, in the provider's units.
        "spend": [_provider(row) for row in providers],
        "requests": {
            "total": req.total,
            # Not in the contract: new attempts for failed invoices, asked for on purpose
            # (POST …/retry); not uploads, so not in `total`.
            "retries": req.retries,
            "cache_hits": hits,
            "joined": joined,
            "bypass": req.bypass,
            "model_calls": model_calls,
            "cost_avoided": money((hits + joined) * price),
            "would_be_hits": would_hits,
            "would_be_joined": would_joined,
            "cost_would_be_avoided": money((would_hits + would_joined) * price),
        },
    }


def _operation(op) -> dict:
    repeats = op.calls - op.distinct_hashes
    return {
        "operation": op.operation,
        "calls": op.calls,
        "distinct_hashes": op.distinct_hashes,
        "repeat_calls": repeats,
        "repeat_share": round(repeats / op.calls, 4) if op.calls else 0.0,
        "cost": money(op.cost),
        "repeat_cost": money(op.repeat_cost),
        "overlapping_calls": op.overlapping_calls,
        "overlapping_cost": money(op.overlapping_cost),
        # Not in the contract: the overlapping calls that in-flight joining would remove
        # (each overlapping group keeps its first call).
        "overlapping_repeat_calls": op.overlapping_repeat_calls,
        # Not in the contract: attempts that never reached a model (the pre-flight refused the
        # file, or a cancellation came before the extraction started). Cost 0; not in `calls`.
        "unbilled_calls": op.unbilled_calls,
    }


def _provider(row) -> dict:
    return {"operation": row.operation, "provider": row.provider, "calls": row.calls, "cost": money(row.cost),
            "throttled_calls": row.throttled_calls, "provider_requests": row.provider_requests,
            "input_tokens": row.input_tokens, "output_tokens": row.output_tokens,
            "pages": row.pages, "estimated_calls": row.estimated_calls}


def agreement_report(engine, span: Days) -> list[dict]:
    """Per day, per candidate provider: how often each field agreed with the serving provider
    in the shadow comparison, and what the candidate cost (shadow spend)."""
    from ..domain.providers import SHADOW_OPERATION, Agreement, FieldAgreement
    from ..extraction.document import FIELD_NAMES

    documents = []
    with transaction(engine, write=False) as conn, unhurried(conn, REPORT_STATEMENT_SECONDS):
        for day in span:
            counts: dict[tuple, dict] = {}
            serving: dict[tuple, str] = {}
            for r in queries.agreement_rows(conn, day):
                key = (r.candidate_provider, r.candidate_model)
                serving[key] = r.serving_provider
                counts.setdefault(key, {}).setdefault(r.field, {})[r.agreement] = int(r.n)
            spend = {row.provider: row for row in queries.provider_rows(conn, day)
                     if row.operation == SHADOW_OPERATION}
            candidates = []
            for (provider, model), fields in sorted(counts.items()):
                rows = [FieldAgreement(name, sum(f.values()), *(f.get(a.value, 0) for a in Agreement))
                        for name in FIELD_NAMES if (f := fields.get(name))]
                candidates.append(_candidate(provider, model, serving[(provider, model)], rows,
                                             spend.pop(provider, None)))
            # A candidate that was paid but never compared (every run failed) still cost.
            candidates += [_candidate(provider, None, None, [], row)
                           for provider, row in sorted(spend.items())]
            documents.append({"day": day.isoformat(), "candidates": candidates})
    return documents


def _candidate(provider, model, serving_provider, rows, spend) -> dict:
    return {"provider": provider, "model": model, "serving_provider": serving_provider,
            "comparisons": max((r.compared for r in rows), default=0),
            "calls": spend.calls if spend else 0,
            "cost": money(spend.cost) if spend else 0.0,
            "fields": [{"field": r.field, "compared": r.compared, "agree": r.agree,
                        "differ": r.differ, "only_serving": r.only_serving,
                        "only_candidate": r.only_candidate, "neither": r.neither,
                        "agreement": None if r.rate is None else round(r.rate, 4)}
                       for r in rows]}


def money(value) -> float:
    """USD as a JSON number, to the micro-dollar the ledger keeps (160.0, 0.48)."""
    return float(Decimal(value).quantize(Decimal("0.000001")))
