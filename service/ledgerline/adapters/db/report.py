"""The duplicate-work report, computed inside the database.

One pass over a day's model calls, sorted by (day, operation, request hash, start), gives
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
of that day (a pair straddling midnight is not counted).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

from sqlalchemy import Connection, Interval, bindparam, text

from .tables import UTC

_CALLS_SQL = """
WITH timed AS (
    SELECT date(started_at) AS day, operation, request_hash, cost, started_at, id,
           {ended} AS ended_at
    FROM model_calls
    WHERE started_at >= :start AND started_at < :stop
), ranked AS (
    SELECT day, operation, cost, started_at, ended_at,
           row_number() OVER w AS nth,
           max(ended_at) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end,
           lead(started_at) OVER w AS next_start
    FROM timed
    WINDOW w AS (PARTITION BY day, operation, request_hash{collate} ORDER BY started_at, id)
), flagged AS (
    SELECT day, operation, cost, nth,
           CASE WHEN prev_end > started_at OR next_start < ended_at THEN 1 ELSE 0 END AS in_flight_together
    FROM ranked
)
SELECT day, operation,
       count(*) AS calls,
       sum(CASE WHEN nth = 1 THEN 1 ELSE 0 END) AS distinct_hashes,
       sum(cost) AS cost,
       sum(CASE WHEN nth > 1 THEN cost ELSE 0 END) AS repeat_cost,
       sum(in_flight_together) AS overlapping_calls,
       sum(CASE WHEN in_flight_together = 1 THEN cost ELSE 0 END) AS overlapping_cost,
       sum(CASE WHEN in_flight_together = 1 AND nth > 1 THEN 1 ELSE 0 END) AS overlapping_repeat_calls
FROM flagged
GROUP BY day, operation
ORDER BY day, operation
"""

_REQUESTS_SQL = """
SELECT date(created_at) AS day,
       count(*) AS total,
       sum(CASE WHEN outcome = 'hit' THEN 1 ELSE 0 END) AS cache_hits,
       sum(CASE WHEN outcome = 'joined' THEN 1 ELSE 0 END) AS joined,
       sum(CASE WHEN outcome = 'bypass' THEN 1 ELSE 0 END) AS bypass,
       sum(CASE WHEN would_be = 'hit' THEN 1 ELSE 0 END) AS would_be_hits,
       sum(CASE WHEN would_be = 'joined' THEN 1 ELSE 0 END) AS would_be_joined
FROM jobs
WHERE created_at >= :start AND created_at < :stop
GROUP BY date(created_at)
"""


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


@dataclass(frozen=True)
class RequestRow:
    day: date
    total: int
    cache_hits: int
    joined: int
    bypass: int
    would_be_hits: int
    would_be_joined: int


def operation_rows(conn: Connection, first: date, last: date, *,
                   lease_seconds: float) -> list[OperationRow]:
    """Per UTC day in [first, last] and operation: calls, repeats and overlaps."""
    postgres = conn.dialect.name == "postgresql"
    if postgres:
        ended = "coalesce(finished_at, started_at + :lease)"
        # Hashes are hex: byte order sorts them correctly and much faster than a locale.
        collate = ' COLLATE "C"'
        conn.exec_driver_sql("SET LOCAL work_mem = '256MB'")
    else:
        # SQLite keeps datetimes as ISO text; this renders the same shape (to milliseconds).
        ended = ("coalesce(finished_at, strftime('%Y-%m-%d %H:%M:%f', started_at, "
                 f"'+{float(lease_seconds):.3f} seconds'))")
        collate = ""
    stmt = text(_CALLS_SQL.format(ended=ended, collate=collate))
    params = _window(first, last)
    if postgres:
        stmt = stmt.bindparams(bindparam("lease", type_=Interval()))
        params["lease"] = timedelta(seconds=lease_seconds)
    stmt = stmt.bindparams(bindparam("start", type_=UTC()), bindparam("stop", type_=UTC()))
    return [OperationRow(day=_day(r.day), operation=r.operation, calls=int(r.calls),
                         distinct_hashes=int(r.distinct_hashes), cost=_money(r.cost),
                         repeat_cost=_money(r.repeat_cost),
                         overlapping_calls=int(r.overlapping_calls),
                         overlapping_cost=_money(r.overlapping_cost),
                         overlapping_repeat_calls=int(r.overlapping_repeat_calls))
            for r in conn.execute(stmt, params)]


def request_rows(conn: Connection, first: date, last: date) -> list[RequestRow]:
    """Per UTC day in [first, last]: uploads by cache outcome, and shadow mode's would-bes."""
    stmt = text(_REQUESTS_SQL).bindparams(bindparam("start", type_=UTC()),
                                          bindparam("stop", type_=UTC()))
    return [RequestRow(day=_day(r.day), total=int(r.total), cache_hits=int(r.cache_hits),
                       joined=int(r.joined), bypass=int(r.bypass),
                       would_be_hits=int(r.would_be_hits),
                       would_be_joined=int(r.would_be_joined))
            for r in conn.execute(stmt, _window(first, last))]


def _window(first: date, last: date) -> dict:
    start = datetime.combine(first, time.min, tzinfo=timezone.utc)
    stop = datetime.combine(last + timedelta(days=1), time.min, tzinfo=timezone.utc)
    return {"start": start, "stop": stop}


def _day(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _money(value) -> Decimal:
    if value is None:
        return Decimal(0)
    return Decimal(str(value)).quantize(Decimal("0.000001"))
