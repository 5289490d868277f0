"""Generate a day of model calls and uploads of a chosen shape, straight into the database.

For the worked example of docs/operations.md and the report benchmark: "40,000 calls, 6,000 of them
repeats, 60 identical pairs in flight together" becomes ledger and job rows whose report
must show exactly those numbers. Nothing is extracted; rows only.

    python -m ledgerline_tools.synthetic_day --day 2026-11-29 --calls 40000 --repeats 6000 \
        --overlapping-pairs 60 --mode shadow
"""
from __future__ import annotations

import argparse
import hashlib
import random
import sys
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

from sqlalchemy import Engine, select

from ledgerline.adapters.db.accounts import account_exists, create_account, create_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import api_keys, jobs, model_calls
from ledgerline.domain.identity import Role
from ledgerline.domain.ids import new_id
from ledgerline.service_layer.worker import OPERATION

DAY_SECONDS = 86_400
LONGEST_CALL, LONGEST_GAP = 20.0, 600.0


@dataclass(frozen=True)
class Shape:
    calls: int                   # model calls that day
    repeats: int                 # calls whose hash was already seen that day
    overlapping_pairs: int = 0   # repeats started while their predecessor was in flight
    hits: int = 0                # uploads served from the cache (no call)
    joined: int = 0              # uploads attached to an extraction in flight (no call)
    bypass: int = 0              # repeats asked for fresh processing (Cache-Control: no-cache)
    shadow: bool = False         # mark would-be hits and joins on the repeats' uploads

    def __post_init__(self):
        if not 0 <= self.repeats < max(self.calls, 1):
            raise ValueError("repeats must be fewer than calls")
        if self.overlapping_pairs + self.bypass > self.repeats:
            raise ValueError("overlapping pairs and bypasses are repeats: too many of them")


@dataclass
class Traffic:
    calls: list[dict] = field(default_factory=list)
    jobs: list[dict] = field(default_factory=list)


def generate(day: date, shape: Shape, *, price: Decimal, account: str, caller_id: str,
             seed: int = 0) -> Traffic:
    rng = random.Random(seed)
    midnight = datetime.combine(day, time.min, tzinfo=timezone.utc)
    distinct = shape.calls - shape.repeats
    per_hash = [1] * distinct
    # The first `overlapping_pairs` hashes get at least one repeat: their second call overlaps.
    for n in range(shape.overlapping_pairs):
        per_hash[n] += 1
    for _ in range(shape.repeats - shape.overlapping_pairs):
        per_hash[rng.randrange(distinct)] += 1
    traffic = Traffic()
    bypass_left = shape.bypass
    for n, count in enumerate(per_hash):
        digest = hashlib.sha256(f"{seed}:{day}:{n}".encode()).hexdigest()
        latest = DAY_SECONDS - count * (LONGEST_CALL + LONGEST_GAP) - LONGEST_CALL
        start = rng.uniform(0, max(latest, 0))
        end = start + rng.uniform(1, LONGEST_CALL)
        frontier = end
        for i in range(count):
            if i == 0:
                overlapping, kind = False, None
            else:
                overlapping = n < shape.overlapping_pairs and i == 1
                if overlapping:  # starts while the first call is still running
                    start = start + (end - start) * rng.uniform(0.1, 0.9)
                else:
                    start = frontier + rng.uniform(1, LONGEST_GAP)
                end = start + rng.uniform(1, LONGEST_CALL)
                frontier = max(frontier, end)
                kind = "joined" if overlapping else "hit"
            outcome = "miss"
            if kind and bypass_left and not overlapping:
                outcome, kind, bypass_left = "bypass", None, bypass_left - 1
            job_id = new_id("job")
            started = midnight + timedelta(seconds=start)
            traffic.calls.append(_call(job_id, account, digest, started,
                                       midnight + timedelta(seconds=end), price))
            traffic.jobs.append(_job(job_id, account, caller_id, digest, outcome,
                                     kind if shape.shadow else None, started))
    for outcome, count in (("hit", shape.hits), ("joined", shape.joined)):
        for _ in range(count):
            at = midnight + timedelta(seconds=rng.uniform(0, DAY_SECONDS - 1))
            digest = hashlib.sha256(f"{seed}:{day}:{outcome}:{rng.random()}".encode()).hexdigest()
            traffic.jobs.append(_job(new_id("job"), account, caller_id, digest, outcome, None, at))
    return traffic


def _call(job_id, account, digest, started, finished, price) -> dict:
    return dict(operation=OPERATION, account=account, job_id=job_id, request_hash=digest,
                started_at=started, finished_at=finished, outcome="published", cost=price,
                worker="synthetic", fencing_token=1)


def _job(job_id, account, caller_id, digest, outcome, would_be, at) -> dict:
    return dict(id=job_id, account=account, caller_id=caller_id, idempotency_key=None,
                request_hash=digest, cache_key=digest, content_hash=f"blake3:{digest}",
                status="completed", outcome=outcome, would_be=would_be,
                fresh=outcome == "bypass", leader_id=None, inflight_key=None, result_id=None,
                lease_owner=None, lease_expires_at=None, fencing_token=1, attempts=1,
                run_after=at, error_code=None, error_message=None, created_at=at,
                updated_at=at, finished_at=at)


def synthetic_caller(engine: Engine, account: str) -> str:
    """The key the generated uploads are recorded under (created once per account)."""
    now = datetime.now(timezone.utc)
    with transaction(engine, write=True) as conn:
        if not account_exists(conn, account):
            create_account(conn, account, now)
        found = conn.execute(select(api_keys.c.id).where(
            api_keys.c.account == account, api_keys.c.name == "synthetic traffic")).scalar()
        return found or create_key(conn, Role.CUSTOMER, account, "synthetic traffic", now)[0]


def write(engine: Engine, traffic: Traffic, batch: int = 10_000) -> None:
    """Insert the rows: COPY on PostgreSQL, batched executemany elsewhere."""
    if engine.dialect.name == "postgresql":
        return _copy(engine, traffic)
    with transaction(engine, write=True) as conn:
        for table, rows in ((model_calls, traffic.calls), (jobs, traffic.jobs)):
            for i in range(0, len(rows), batch):
                conn.execute(table.insert(), rows[i:i + batch])


def _copy(engine: Engine, traffic: Traffic) -> None:
    def naive(value):
        return value.astimezone(timezone.utc).replace(tzinfo=None) if isinstance(value, datetime) else value

    with engine.begin() as conn:
        cursor = conn.connection.driver_connection.cursor()
        for table, rows in (("model_calls", traffic.calls), ("jobs", traffic.jobs)):
            if not rows:
                continue
            columns = list(rows[0])
            with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row([naive(row[c]) for c in columns])


def main(argv: list[str] | None = None) -> None:
    from ledgerline.cli import engine_or_exit, settings_or_exit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--day", required=True, type=date.fromisoformat)
    parser.add_argument("--calls", type=int, required=True)
    parser.add_argument("--repeats", type=int, required=True)
    parser.add_argument("--overlapping-pairs", type=int, default=0)
    parser.add_argument("--hits", type=int, default=0)
    parser.add_argument("--joined", type=int, default=0)
    parser.add_argument("--bypass", type=int, default=0)
    parser.add_argument("--mode", choices=["on", "shadow"], default="on",
                        help="shadow: mark what caching would have saved on the repeats")
    parser.add_argument("--account", default="synthetic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    settings = settings_or_exit()  # a bad variable: one line and exit 2, as the CLI says
    shape = Shape(calls=args.calls, repeats=args.repeats, overlapping_pairs=args.overlapping_pairs,
                  hits=args.hits, joined=args.joined, bypass=args.bypass,
                  shadow=args.mode == "shadow")
    engine = engine_or_exit(settings)  # "run `ledgerline db upgrade`" on a bare database
    try:
        caller = synthetic_caller(engine, args.account)
        traffic = generate(args.day, shape, price=settings.price_per_call, account=args.account,
                           caller_id=caller, seed=args.seed)
        write(engine, traffic)
    finally:
        engine.dispose()
    print(f"wrote {len(traffic.calls)} model calls and {len(traffic.jobs)} uploads "
          f"on {args.day}", file=sys.stderr)


if __name__ == "__main__":
    main()
