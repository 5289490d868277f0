"""Claims stay O(1) as history grows: the claim statement on a large job table.

    .venv/bin/python bench/claim_bench.py [--finished 2000000] [--joined 300000]
                                          [--calls 2000000] [--runs 50]

Starts a private PostgreSQL, loads one history with generate_series (finished jobs, joined
uploads that wait on a leader, ledger rows) into a database at migration 0002, copies it, and
migrates the copy to this release's schema (which also times migration 0003 on that history).
Then, on each database, times the claim as its release ran it:

- idle: a claim that finds no work;
- finds work: a reclaim of a job whose lease ran out, with the sweep that marks the lost
  worker's calls abandoned (the most a claim ever does); this release's claim also opens the
  new attempt's ledger row in the same statement;

next to the floor, `SELECT 1` over the same connection. Prints one table; the figures for the
record go to bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "service"), str(ROOT)]

from sqlalchemy import text  # noqa: E402

from ledgerline.adapters.db.database import SqlDatabase  # noqa: E402
from ledgerline.adapters.db.engine import make_engine, transaction  # noqa: E402
from ledgerline.adapters.db.migrate import upgrade  # noqa: E402
from ledgerline.domain.ids import new_id  # noqa: E402
from ledgerline.ports.jobs import CallOpening  # noqa: E402
from tests.servers import postgres_server  # noqa: E402

ACCOUNTS = 50
VERSIONS = "invoice-v2/bench-p/bench-m/" + "0" * 64
LEASE = 30.0

# The claim and the sweep as they were before migration 0003 (the baseline of this benchmark).
BASELINE_CLAIM = text("""
UPDATE jobs SET status = 'running', lease_owner = :owner,
       lease_expires_at = now() + interval '30 seconds', fencing_token = fencing_token + 1,
       attempts = attempts + 1, updated_at = now()
WHERE id = (SELECT id FROM jobs
            WHERE leader_id IS NULL
              AND ((status = 'pending' AND run_after <= now())
                   OR (status = 'running' AND lease_expires_at <= now()))
            ORDER BY run_after LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, fencing_token""")
BASELINE_SWEEP = text("""
UPDATE model_calls SET outcome = 'abandoned'
WHERE job_id = :id AND outcome = 'running' AND fencing_token < :token""")


def load(pg, database: str, finished: int, joined: int, calls: int) -> None:
    """The history, in a handful of set-based statements."""
    statements = [
        f"""INSERT INTO accounts SELECT 'acct-' || a, now()
            FROM generate_series(1, {ACCOUNTS}) a""",
        f"""INSERT INTO api_keys SELECT 'key_' || a, md5('key' || a), 'customer', 'acct-' || a,
            NULL, now() FROM generate_series(1, {ACCOUNTS}) a""",
        f"""INSERT INTO jobs (id, account, caller_id, request_hash, cache_key, content_hash,
                status, outcome, fresh, fencing_token, attempts, run_after, created_at,
                updated_at, finished_at)
            SELECT 'job_f' || g, 'acct-' || (g % {ACCOUNTS} + 1),
                'key_' || (g % {ACCOUNTS} + 1),
                md5('r' || g), md5('k' || g), 'blake3:' || md5('c' || g), 'completed', 'miss',
                false, 1, 1, t, t, t, t
            FROM generate_series(1, {finished}) g,
                 LATERAL (SELECT now() - (g || ' seconds')::interval AS t) s""",
        # Joined uploads keep status 'pending' for good: readers follow their leader.
        f"""INSERT INTO jobs (id, account, caller_id, request_hash, cache_key, content_hash,
                status, outcome, fresh, leader_id, fencing_token, attempts, run_after,
                created_at, updated_at)
            SELECT 'job_j' || g, 'acct-' || (g % {ACCOUNTS} + 1),
                'key_' || (g % {ACCOUNTS} + 1),
                md5('jr' || g), md5('k' || g), 'blake3:' || md5('c' || g), 'pending', 'joined',
                false, 'job_f' || (g % {finished} + 1), 0, 0, t, t, t
            FROM generate_series(1, {joined}) g,
                 LATERAL (SELECT now() - (g || ' seconds')::interval AS t) s""",
        f"""INSERT INTO model_calls (operation, account, job_id, request_hash, started_at,
                finished_at, outcome, cost, worker, fencing_token)
            SELECT 'extract_invoice', 'acct-' || (g % {ACCOUNTS} + 1),
                'job_f' || (g % {finished} + 1), md5('k' || g), t, t + interval '1 second',
                'published', 0.004, 'bench', 1
            FROM generate_series(1, {calls}) g,
                 LATERAL (SELECT now() - (g || ' seconds')::interval AS t) s""",
    ]
    for statement in statements:
        pg.execute(statement, database=database)


def measure(runs: int, action) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def reclaimable_job(engine, schema: str, n: int) -> str:
    """A job whose worker died: running, lease run out, one ledger row still 'running'."""
    job_id = f"job_bench_{schema}_{n}"
    digest = hashlib.sha256(job_id.encode()).hexdigest()
    extra_cols, extra_vals = ("", "")
    if schema == "head":
        extra_cols, extra_vals = ", extractor_versions, fair_position", f", '{VERSIONS}', 0"
    with engine.begin() as conn:
        conn.execute(text(f"""
            INSERT INTO jobs (id, account, caller_id, request_hash, cache_key, content_hash,
                status, outcome, fresh, fencing_token, attempts, run_after, created_at,
                updated_at, lease_owner, lease_expires_at{extra_cols})
            VALUES (:id, 'acct-1', 'key_1', :digest, :digest, :content,
                'running', 'miss', false, 1, 1, now(), now(), now(), 'gone',
                now() - interval '1 second'{extra_vals})"""),
            {"id": job_id, "digest": digest, "content": f"blake3:{digest}"})
        conn.execute(text("""
            INSERT INTO model_calls (operation, account, job_id, request_hash, started_at,
                outcome, cost, worker, fencing_token)
            VALUES ('extract_invoice', 'acct-1', :id, :digest, now(), 'running', 0.004,
                'gone', 1)"""), {"id": job_id, "digest": digest})
    return job_id


@functools.cache
def database(engine) -> SqlDatabase:
    return SqlDatabase(engine)


def baseline_claim(engine) -> None:
    with transaction(engine, write=True) as conn:
        row = conn.execute(BASELINE_CLAIM, {"owner": "bench"}).first()
        if row is not None and row.fencing_token > 1:
            conn.execute(BASELINE_SWEEP, {"id": row.id, "token": row.fencing_token})


def head_claim(engine) -> None:
    """As a worker claims now: one statement that also opens the attempt's ledger row."""
    opening = CallOpening(call_id=new_id("call"), operation="extract_invoice", cost=0.004)
    with database(engine).transaction(write=True, single_statement=True) as tx:
        tx.claims.claim_and_start("bench", LEASE, VERSIONS, opening)


def floor(engine) -> None:
    with transaction(engine, write=True) as conn:
        conn.execute(text("SELECT 1"))


def bench(engine, schema: str, runs: int) -> dict:
    claim = head_claim if schema == "head" else baseline_claim
    for _ in range(5):  # warm the pool and the caches
        claim(engine)
        floor(engine)
    idle = measure(runs, lambda: claim(engine))
    counter = iter(range(10 ** 6))
    work_times = []
    for _ in range(runs):
        reclaimable_job(engine, schema, next(counter))
        work_times.append(measure(1, lambda: claim(engine)))
    return {"floor": measure(runs, lambda: floor(engine)), "idle": idle,
            "work": statistics.median(work_times)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--finished", type=int, default=2_000_000)
    parser.add_argument("--joined", type=int, default=300_000)
    parser.add_argument("--calls", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args(argv)
    timings = {}
    with postgres_server() as pg:
        baseline_url = pg.create_database("baseline")
        upgrade(baseline_url, "0002")
        started = time.perf_counter()
        load(pg, "baseline", args.finished, args.joined, args.calls)
        timings["load"] = time.perf_counter() - started
        pg.execute("VACUUM ANALYZE", database="baseline")
        head_url = pg.create_database("head", template="baseline")
        started = time.perf_counter()
        upgrade(head_url)
        timings["migrate"] = time.perf_counter() - started
        pg.execute("VACUUM ANALYZE", database="head")
        results = {}
        for schema, url in (("baseline", baseline_url), ("head", head_url)):
            engine = make_engine(url)
            try:
                results[schema] = bench(engine, schema, args.runs)
            finally:
                engine.dispose()
    print(f"claim benchmark: {args.finished:,} finished jobs, {args.joined:,} joined jobs, "
          f"{args.calls:,} ledger rows; median of {args.runs} runs")
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}; load {timings['load']:.0f} s, "
          f"migration 0003 {timings['migrate']:.0f} s")
    print(f"{'':32} {'before 0003':>12} {'this release':>13} {'SELECT 1 floor':>15}")
    for name, label in (("idle", "idle claim (no work)"),
                        ("work", "claim that finds work + sweep")):
        print(f"{label:32} {results['baseline'][name]:>9.2f} ms {results['head'][name]:>10.2f} ms "
              f"{results['head']['floor']:>12.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
