"""The queue's peer: procrastinate running no-op jobs on the same PostgreSQL.

    python bench/peer_procrastinate.py DSN --jobs N --concurrency C [--apply-schema]

DSN names a database of its own on the benchmark's server. Defers N no-op jobs in one batch,
then runs one procrastinate worker in this process (`wait=False`: it stops once the queue is
empty) and prints {"jobs", "seconds", "jobs_per_second", "peak_rss_mib"} as JSON. The time
counted is the worker's, from its start to its end, as for Ledgerline's workers.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time

import procrastinate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dsn")
    parser.add_argument("--jobs", type=int, required=True)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--apply-schema", action="store_true")
    args = parser.parse_args()
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=args.dsn))

    @app.task(name="noop")
    async def noop() -> None:
        return None

    async def run() -> float:
        async with app.open_async():
            if args.apply_schema:
                await app.schema_manager.apply_schema_async()
            await noop.batch_defer_async(*({} for _ in range(args.jobs)))
            started = time.perf_counter()
            await app.run_worker_async(concurrency=args.concurrency, wait=False,
                                       install_signal_handlers=False)
            return time.perf_counter() - started

    seconds = asyncio.run(run())
    print(json.dumps({"jobs": args.jobs, "seconds": seconds,
                      "jobs_per_second": args.jobs / seconds,
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
