"""Exports hold every row in steady memory: the CSV and XLSX of 10,000 and 100,000 invoices.

    .venv/bin/python bench/export_bench.py [--sizes 10000 100000] [--formats csv xlsx]

Starts a private PostgreSQL, migrates a database and writes N completed invoices of one
account straight into its tables (tests/bulk_invoices.py: each with its own file, job and
result, 200 sellers, every 50th another file billing the same thing as the one before it).
Then, for each size and format, a fresh process builds the app on that database, streams
`GET /v1/accounts/acme/invoices.{csv,xlsx}` through it and reports its peak resident memory
(ru_maxrss), the answer's size, the rows and the time; the baseline row is the same process
answering one JSON page of 50. Prints one table; figures for the record go to
bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "service"), str(ROOT)]


def stream(url: str, key: str, path: str) -> dict:
    """In a process of its own: build the app, stream the answer, report the peak RSS."""
    from ledgerline.bootstrap import bootstrap
    from ledgerline.config import Settings
    from ledgerline.http.app import create_app

    services = bootstrap(Settings(database_url=url, storage_url="file:///tmp/unused"),
                         extractor=object())
    client = create_app(services).test_client()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    resp = client.get(path, headers={"Authorization": f"Bearer {key}"}, buffered=False)
    size = newlines = 0
    for chunk in resp.response:
        size += len(chunk)
        newlines += chunk.count(b"\n")
    resp.close()
    return {"seconds": time.perf_counter() - started, "bytes": size, "lines": newlines,
            "rss_before_kib": before,
            "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--formats", nargs="+", default=["csv", "xlsx"])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(stream(*args.child)))
        return

    from tests.bulk_invoices import insert_completed
    from tests.conftest import make_tenant
    from tests.servers import postgres_server

    from ledgerline.adapters.db.migrate import upgrade
    from ledgerline.bootstrap import bootstrap
    from ledgerline.config import Settings

    rows = []
    with postgres_server(fsync="off", synchronous_commit="off") as pg:
        url = pg.create_database("export_bench")
        upgrade(url)
        services = bootstrap(Settings(database_url=url, storage_url="file:///tmp/unused"),
                             extractor=object())
        tenant = make_tenant(services, "acme")
        customer = tenant.caller(services, "customer").key_id
        written = 0
        for size in sorted(args.sizes):
            started = time.perf_counter()
            insert_completed(services.engine, "acme", customer, size - written,
                             duplicate_every=50, prefix=f"n{size}")
            written = size
            with services.engine.connect().execution_options(
                    isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("VACUUM ANALYZE")  # as autovacuum would have by now
            loaded = time.perf_counter() - started
            paths = [("json page of 50", "/v1/accounts/acme/invoices")] + [
                (kind, f"/v1/accounts/acme/invoices.{kind}") for kind in args.formats]
            for label, path in paths:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", url, tenant.keys["customer"], path],
                    capture_output=True, text=True, env={**os.environ}, check=False)
                if out.returncode:
                    sys.exit(out.stderr)
                out = out.stdout
                rows.append({"invoices": size, "answer": label, "load_s": loaded,
                             **json.loads(out.strip().splitlines()[-1])})
        services.engine.dispose()
    print("| invoices | answer | rows | size | time | peak RSS | RSS before the request |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        lines = r["lines"] - 1 if r["answer"] == "csv" else "–"
        print(f"| {r['invoices']:,} | {r['answer']} | {lines if isinstance(lines, str) else f'{lines:,}'} "
              f"| {r['bytes'] / 1e6:,.1f} MB | {r['seconds']:,.1f} s "
              f"| {r['peak_rss_kib'] / 1024:,.0f} MiB | {r['rss_before_kib'] / 1024:,.0f} MiB |")


if __name__ == "__main__":
    main()
