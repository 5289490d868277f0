"""How long the duplicate-work report takes on PostgreSQL, and how that grows with the ledger.

Seeds one day of N model calls (15 % repeats, 0.3 % of calls in identical pairs in flight
together, an upload per call) plus a quarter of that on the day before, so the report
has to pick its day out of a bigger table; then times the whole report (calls and uploads)
several times and prints the median. Runs against a private throwaway PostgreSQL server
started the same way the test suite starts one, or an existing database (--url).

    .venv/bin/python bench/report_bench.py                   # 10^5 and 10^6 calls
    .venv/bin/python bench/report_bench.py --sizes 100000 --explain
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from sqlalchemy import text

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ledgerline.adapters.db import report as queries  # noqa: E402
from ledgerline.adapters.db.engine import make_engine, transaction  # noqa: E402
from ledgerline.adapters.db.migrate import upgrade  # noqa: E402
from ledgerline.config import Settings  # noqa: E402
from ledgerline_tools.synthetic_day import Shape, generate, synthetic_caller, write  # noqa: E402
from ledgerline.service_layer.report import Days, duplicate_report  # noqa: E402

DAY = date(2026, 11, 29)
PRICE = Decimal("0.004")


def shape(calls: int) -> Shape:
    repeats = calls * 15 // 100
    return Shape(calls=calls, repeats=repeats, overlapping_pairs=calls * 15 // 10_000,
                 bypass=calls // 4_000, hits=calls // 10, joined=calls // 1_000, shadow=True)


@contextlib.contextmanager
def database(url: str | None, name: str):
    if url:
        yield url
        return
    from tests.servers import postgres_server

    with postgres_server() as pg:
        yield pg.create_database(name)


def seed(url: str, calls: int) -> float:
    engine = make_engine(url)
    began = time.perf_counter()
    caller = synthetic_caller(engine, "bench")
    for day, n, seed_ in ((DAY - timedelta(days=1), calls // 4, 1), (DAY, calls, 2)):
        write(engine, generate(day, shape(n), price=PRICE, account="bench", caller_id=caller,
                               seed=seed_))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("VACUUM ANALYZE model_calls")
        conn.exec_driver_sql("VACUUM ANALYZE jobs")
    engine.dispose()
    return time.perf_counter() - began


def server_cpu_seconds(pid: int) -> float | None:
    """CPU time the server backend used: on a busy host, steadier than the wall clock."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # a server on another host
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_report(url: str, runs: int) -> tuple[list[float], list[float], dict]:
    """Wall-clock and server CPU seconds of each run, and the report itself."""
    engine = make_engine(url)
    settings = Settings(price_per_call=PRICE)
    walls, cpus, doc = [], [], None
    with engine.connect() as conn:  # the pool's one connection: the backend the report uses
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    for _ in range(runs):
        cpu, began = server_cpu_seconds(pid), time.perf_counter()
        [doc] = duplicate_report(engine, settings, Days(DAY, DAY))
        walls.append(time.perf_counter() - began)
        if cpu is not None:
            cpus.append(server_cpu_seconds(pid) - cpu)
    engine.dispose()
    return walls, cpus, doc


def explain(url: str) -> str:
    """The plans of the two report queries, as PostgreSQL ran them."""
    engine = make_engine(url)
    lines = []
    with transaction(engine, write=False) as conn:
        original = conn.execute

        def capture(stmt, params=None):
            plan = text("EXPLAIN (ANALYZE, BUFFERS) " + stmt.text)
            rows = original(plan.bindparams(*stmt._bindparams.values()), params)
            lines.extend(r[0] for r in rows)
            lines.append("")
            return original(stmt, params)

        conn.execute = capture
        queries.operation_rows(conn, DAY, lease_seconds=30)
        queries.request_row(conn, DAY)
    engine.dispose()
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--url", help="an existing, empty PostgreSQL database (default: a "
                                      "private throwaway server)")
    parser.add_argument("--explain", action="store_true", help="print the query plans")
    args = parser.parse_args()
    results = []
    for n in args.sizes:
        with database(args.url, f"bench_{n}") as url:
            upgrade(url)
            seeded = seed(url, n)
            timings, cpus, doc = time_report(url, args.runs)
            if args.explain:
                print(explain(url))
        op = doc["operations"][0]
        results.append((n, seeded, timings, cpus, op))
        print(f"{n:>9,} calls seeded in {seeded:.1f} s; report median "
              f"{statistics.median(timings) * 1000:.0f} ms", file=sys.stderr)
    print()
    print("| calls on the day | rows in model_calls | report median | best | server CPU "
          "median | repeats | overlapping |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, _, timings, cpus, op in results:
        cpu = f"{statistics.median(cpus) * 1000:.0f} ms" if cpus else "n/a"
        print(f"| {n:,} | {n + n // 4:,} | {statistics.median(timings) * 1000:.0f} ms | "
              f"{min(timings) * 1000:.0f} ms | {cpu} | {op['repeat_calls']:,} "
              f"({op['repeat_share']:.0%}) | {op['overlapping_calls']:,} |")
    if len(results) > 1:
        (n0, _, t0, _, _), (n1, _, t1, _, _) = results[0], results[-1]
        growth = statistics.median(t1) / statistics.median(t0)
        print(f"\n{n1 / n0:.0f}x the calls took {growth:.1f}x the time.")


if __name__ == "__main__":
    main()
