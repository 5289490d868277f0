"""What a new file's upload costs the API, in process, on PostgreSQL + S3: CPU and statements.

N new files are uploaded with `Prefer: wait` through the service's WSGI app (Flask's test
client) against a private PostgreSQL and SeaweedFS S3, while a worker thread in the same
process claims each job and publishes a stand-in's answer at once. The request thread's own CPU
(thread time: it holds on a loaded machine, where wall clocks do not) is what the API spends on
a miss upload outside gunicorn; the statements the server ran (pg_stat_statements, top level)
are counted over the same uploads, the worker's claims and publishes included.

    .venv/bin/python bench/miss_cpu.py [--source CHECKOUT] [--uploads 300] [--profile OUT]

`--source` runs another checkout's service package against the same harness (a before/after
comparison in one sitting); `--profile` writes a cProfile of the request thread.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUCKET = "ledgerline-miss-cpu"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--uploads", type=int, default=300)
    parser.add_argument("--profile", type=Path)
    args = parser.parse_args()
    sys.path[:0] = [str(args.source / "service"), str(ROOT)]

    from ledgerline.adapters.db.migrate import upgrade
    from ledgerline.bootstrap import bootstrap
    from ledgerline.config import Settings
    from ledgerline.http.app import create_app
    from ledgerline.workers import run_workers
    from tests.conftest import make_tenant
    from tests.fakes import ControlledExtractor, pdf_bytes
    from tests.servers import postgres_server, seaweed_s3_server

    class OwnSellers(ControlledExtractor):
        """Each file from a seller of its own, as a backfill's are mostly: one seller for all
        would make every earlier upload a possible duplicate to judge."""

        def extract(self, path, content_hash, context=None):
            answer = super().extract(path, content_hash, context)
            answer["fields"]["seller_name"]["value"] = f"Seller {len(self.calls)}"
            return answer

    with tempfile.TemporaryDirectory() as tmp, \
            postgres_server(shared_preload_libraries="'pg_stat_statements'") as pg, \
            seaweed_s3_server() as s3:
        s3.create_bucket(BUCKET)
        url = pg.create_database("misscpu")
        upgrade(url)
        pg.execute("CREATE EXTENSION pg_stat_statements", database="misscpu")
        os.environ.update(s3.env)
        services = bootstrap(Settings(database_url=url, storage_url=f"s3://{BUCKET}/misscpu",
                                      spool_dir=tmp, rate_limit_per_minute=0),
                             extractor=OwnSellers())
        tenant = make_tenant(services, "acme")
        workers = run_workers(services, concurrency=1, deliveries=0, embedded=True)
        client = create_app(services).test_client()
        headers = {"Authorization": f"Bearer {tenant.keys['customer']}",
                   "Content-Type": "application/pdf", "Prefer": "wait=10"}

        def send(tag: str) -> float:
            start = time.thread_time()
            resp = client.post("/v1/accounts/acme/invoices", data=pdf_bytes(tag),
                               headers={**headers, "Idempotency-Key": f"key-{tag}"})
            took = time.thread_time() - start
            assert resp.status_code == 201 and resp.headers["Ledgerline-Cache"] == "miss", \
                (resp.status_code, resp.get_data())
            assert resp.json["status"] == "completed", resp.json
            return took

        for i in range(30):  # warm-up: caches, prepared statements, pools
            send(f"warm-{i}")
        pg.execute("SELECT pg_stat_statements_reset()", database="misscpu")
        profiler = cProfile.Profile(time.thread_time) if args.profile else None
        if profiler:
            profiler.enable()
        times = [send(f"timed-{i}") for i in range(args.uploads)]
        if profiler:
            profiler.disable()
            profiler.dump_stats(str(args.profile))
        statements = pg.execute(
            "SELECT sum(calls) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            "WHERE d.datname = 'misscpu'", database="misscpu")[0][0]
        top = pg.execute(
            "SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) "
            "FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            "WHERE d.datname = 'misscpu' ORDER BY calls DESC LIMIT 30", database="misscpu")
        workers.stop(timeout=10)
        services.engine.dispose()
    times.sort()
    print(f"{args.source.name}: {args.uploads} miss uploads with Prefer: wait, request thread CPU "
          f"median {statistics.median(times) * 1000:.2f} ms, mean "
          f"{statistics.mean(times) * 1000:.2f} ms, p90 "
          f"{times[int(len(times) * 0.9)] * 1000:.2f} ms; statements a miss (worker's "
          f"included) {statements / args.uploads:.1f}")
    for calls, query in top:
        print(f"{calls / args.uploads:6.2f}  {query}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
