"""The duplicate-work report, computed inside the database.

One pass over a day's model calls, sorted by (operation, request hash, start), gives
each call three window values: its position among calls with the same hash (> 1: it
repeats), the latest end of the earlier calls with that hash, and the start of the next
one. A call overlaps when an earlier identical call had not yet ended when it started, or
when the next identical call started before it ended; with both tests, every member of an
overlapping group is found without comparing pairs.

A call with no end written (its worker died first, or it is still running) counts as in
flight for one lease after its start. That is the least it can have lived: a dead worker's
lease runs out one lease after its last renewal, and only then may another worker take the
job over. Overlap is therefore understated rather than overstated.

Calls are attributed to the UTC day they started on; overlap is looked for among the calls
of that day (a pair straddling midnight is not counted). A range of days is one query per
day: each is an index range scan, and no day pays for the others' sort keys.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

from sqlalchemy import Connection, Date, Interval, bindparam, text

from ...domain.jobs import UNBILLED_OUTCOMES
from .tables import UTC

_CALLS_SQL = """
SELECT operation,
       count(*) AS calls,
       count(*) FILTER (WHERE nth = 1) AS distinct_hashes,
       sum(cost) AS cost,
       sum(cost) FILTER (WHERE nth > 1) AS repeat_cost,
       count(*) FILTER (WHERE {together}) AS overlapping_calls,
       sum(cost) FILTER (WHERE {together}) AS overlapping_cost,
       count(*) FILTER (WHERE {together} AND nth > 1) AS overlapping_repeat_calls
FROM (
    SELECT operation, cost, started_at, {ended} AS ended_at,
           row_number() OVER earlier AS nth,
           max({ended}) OVER earlier AS prev_end,
           lead(started_at) OVER earlier AS next_start
    FROM model_calls
    WHERE date(started_at) = :day AND outcome NOT IN {unbilled}
    -- One frame for all three, so that one pass computes them (row_number and lead
    -- ignore the frame); ix_model_calls_day_hash delivers the rows in this order.
    WINDOW earlier AS (PARTITION BY operation, request_hash ORDER BY started_at, id
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
) AS ranked
GROUP BY operation
ORDER BY operation
"""
_TOGETHER = "(prev_end > started_at OR next_start < ended_at)"
_UNBILLED = "(" + ", ".join(f"'{o}'" for o in UNBILLED_OUTCOMES) + ")"

# Work that never reached a model (pre-flight refusals, cancellations before the extraction
# process started): not model calls, cost 0, counted apart.
_UNBILLED_SQL = f"""
SELECT operation, count(*) AS unbilled
FROM model_calls
WHERE date(started_at) = :day AND outcome IN {_UNBILLED}
GROUP BY operation
"""

_REQUESTS_SQL = """
SELECT count(*) FILTER (WHERE outcome <> 'retry') AS total,
       count(*) FILTER (WHERE outcome = 'retry') AS retries,
       count(*) FILTER (WHERE outcome = 'hit') AS cache_hits,
       count(*) FILTER (WHERE outcome = 'joined') AS joined,
       count(*) FILTER (WHERE outcome = 'bypass') AS bypass,
       count(*) FILTER (WHERE would_be = 'hit') AS would_be_hits,
       count(*) FILTER (WHERE would_be = 'joined') AS would_be_joined
FROM jobs
WHERE created_at >= :start AND created_at < :stop
"""


# Real spend per operation and provider: what each provider's calls cost, with its own counts.
# Throttled attempts cost nothing and are counted apart.
_PROVIDERS_SQL = f"""
SELECT operation, coalesce(provider, 'rules') AS provider,
       count(*) FILTER (WHERE outcome NOT IN {_UNBILLED}) AS calls,
       count(*) FILTER (WHERE outcome = 'throttled') AS throttled_calls,
       coalesce(sum(cost), 0) AS cost,
       coalesce(sum(provider_requests), 0) AS provider_requests,
       coalesce(sum(input_tokens), 0) AS input_tokens,
       coalesce(sum(output_tokens), 0) AS output_tokens,
       coalesce(sum(pages), 0) AS pages,
       count(*) FILTER (WHERE cost_basis = 'estimate') AS estimated_calls
FROM model_calls
WHERE date(started_at) = :day
GROUP BY operation, coalesce(provider, 'rules')
ORDER BY operation, coalesce(provider, 'rules')
"""

# The shadow comparison of a day: per candidate and field, how often it agreed.
_AGREEMENT_SQL = """
SELECT candidate_provider, candidate_model, serving_provider, field, agreement, count(*) AS n
FROM shadow_fields
WHERE date(started_at) = :day
GROUP BY candidate_provider, candidate_model, serving_provider, field, agreement
"""


@dataclass(frozen=True)
class ProviderRow:
    operation: str
    provider: str
    calls: int
    throttled_calls: int
    cost: Decimal
    provider_requests: int
    input_tokens: int
    output_tokens: int
    pages: int
    estimated_calls: int


def provider_rows(conn: Connection, day: date) -> list[ProviderRow]:
    stmt = text(_PROVIDERS_SQL).bindparams(bindparam("day", type_=Date()))
    return [ProviderRow(operation=r.operation, provider=r.provider, calls=int(r.calls),
                        throttled_calls=int(r.throttled_calls), cost=_money(r.cost),
                        provider_requests=int(r.provider_requests),
                        input_tokens=int(r.input_tokens), output_tokens=int(r.output_tokens),
                        pages=int(r.pages), estimated_calls=int(r.estimated_calls))
            for r in conn.execute(stmt, {"day": day})]


def agreement_rows(conn: Connection, day: date) -> list:
    """(candidate provider, candidate model, serving provider, field, agreement, count)."""
    stmt = text(_AGREEMENT_SQL).bindparams(bindparam("day", type_=Date()))
    return list(conn.execute(stmt, {"day": day}))


@dataclass(frozen=True)
class OperationRow:
    day: date
    operation: str
    calls: int
    distinct_hashes: int
    cost: Decimal
    repeat_cost: Decimal
    overlapping_calls: int
    overlapping_cost: Decimal
    overlapping_repeat_calls: int
    unbilled_calls: int = 0


@dataclass(frozen=True)
class RequestRow:
    day: date
    total: int
    retries: int
    cache_hits: int
    joined: int
    bypass: int
    would_be_hits: int
    would_be_joined: int


def operation_rows(conn: Connection, day: date, *, lease_seconds: float) -> list[OperationRow]:
    """For one UTC day, per operation: calls, repeats and overlaps."""
    if conn.dialect.name == "postgresql":
        ended = "coalesce(finished_at, started_at + :lease)"
        lease = {"lease": timedelta(seconds=lease_seconds)}
    else:
        # SQLite keeps datetimes as ISO text; this renders the same shape (to milliseconds).
        ended = ("coalesce(finished_at, strftime('%Y-%m-%d %H:%M:%f', started_at, "
                 f"'+{float(lease_seconds):.3f} seconds'))")
        lease = {}
    stmt = text(_CALLS_SQL.format(ended=ended, together=_TOGETHER, unbilled=_UNBILLED))
    stmt = stmt.bindparams(bindparam("day", type_=Date()))
    if lease:
        stmt = stmt.bindparams(bindparam("lease", type_=Interval()))
    unbilled = {r.operation: int(r.unbilled) for r in conn.execute(
        text(_UNBILLED_SQL).bindparams(bindparam("day", type_=Date())), {"day": day})}
    rows = [OperationRow(day=day, operation=r.operation, calls=int(r.calls),
                         distinct_hashes=int(r.distinct_hashes), cost=_money(r.cost),
                         repeat_cost=_money(r.repeat_cost),
                         overlapping_calls=int(r.overlapping_calls),
                         overlapping_cost=_money(r.overlapping_cost),
                         overlapping_repeat_calls=int(r.overlapping_repeat_calls),
                         unbilled_calls=unbilled.pop(r.operation, 0))
            for r in conn.execute(stmt, {"day": day, **lease})]
    rows += [OperationRow(day=day, operation=op, calls=0, distinct_hashes=0, cost=Decimal(0),
                          repeat_cost=Decimal(0), overlapping_calls=0,
                          overlapping_cost=Decimal(0), overlapping_repeat_calls=0,
                          unbilled_calls=n) for op, n in sorted(unbilled.items())]
    return rows


def request_row(conn: Connection, day: date) -> RequestRow:
    """For one UTC day: uploads by cache outcome, and shadow mode's would-be savings."""
    start = datetime.combine(day, time.min, tzinfo=timezone.utc)
    stmt = text(_REQUESTS_SQL).bindparams(bindparam("start", type_=UTC()),
                                          bindparam("stop", type_=UTC()))
    r = conn.execute(stmt, {"start": start, "stop": start + timedelta(days=1)}).one()
    return RequestRow(day=day, total=int(r.total), retries=int(r.retries),
                      cache_hits=int(r.cache_hits),
                      joined=int(r.joined), bypass=int(r.bypass),
                      would_be_hits=int(r.would_be_hits),
                      would_be_joined=int(r.would_be_joined))


def _money(value) -> Decimal:
    if value is None:
        return Decimal(0)
    return Decimal(str(value)).quantize(Decimal("0.000001"))


QUEUE_STATES = ("pending", "retrying", "running")


@dataclass(frozen=True)
class QueueState:
    """Jobs in flight by state, and how long the oldest of each has been in it: `pending`
    (claimable now, since created), `retrying` (waiting out a backoff before its next attempt,
    since created), `running` (a worker holds it, since claimed)."""
    depth: dict[str, int]
    oldest_age: dict[str, float]
    expired_leases: int


_QUEUE_SQL = """
SELECT count(*) FILTER (WHERE status = 'pending' AND run_after <= {now}) AS pending,
       min(created_at) FILTER (WHERE status = 'pending' AND run_after <= {now})
           AS pending_since,
       count(*) FILTER (WHERE status = 'pending' AND run_after > {now}) AS retrying,
       min(created_at) FILTER (WHERE status = 'pending' AND run_after > {now})
           AS retrying_since,
       count(*) FILTER (WHERE status = 'running') AS running,
       min(claimed_at) FILTER (WHERE status = 'running') AS running_since,
       count(*) FILTER (WHERE status = 'running' AND lease_expires_at <= {now}) AS expired,
       {now} AS now
FROM jobs
WHERE status IN ('pending', 'running') AND leader_id IS NULL
"""
_NOW = {"postgresql": "timezone('UTC', statement_timestamp())",
        "sqlite": "strftime('%Y-%m-%d %H:%M:%f000', 'now')"}


def queue_state(conn: Connection) -> QueueState:
    """The work queue for the metrics, by the database's clock: joined uploads wait on their
    leader, not in the queue. Reads only the partial indexes of work in flight."""
    stmt = text(_QUEUE_SQL.format(now=_NOW[conn.dialect.name])).columns(
        pending_since=UTC(), retrying_since=UTC(), running_since=UTC(), now=UTC())
    r = conn.execute(stmt).one()._mapping

    def age(state: str) -> float:
        since = r[f"{state}_since"]
        return max((r["now"] - since).total_seconds(), 0.0) if since else 0.0

    return QueueState(depth={s: int(r[s]) for s in QUEUE_STATES},
                      oldest_age={s: age(s) for s in QUEUE_STATES},
                      expired_leases=int(r["expired"]))
