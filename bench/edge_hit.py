"""What the HTTP edge costs on the cache-hit path, in process: one upload answered from the
cache, a read and a page of the list, each through the Flask app (test client) on SQLite.
Prints the median CPU time of each (process time: on a shared, busy machine wall time mostly
measures the neighbours).

    .venv/bin/python bench/edge_hit.py [--source CHECKOUT] [--rounds N] [--hit-only]

`--source` runs another checkout's service package against the same harness (another
branch's edge, for a before/after comparison in one sitting).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--hit-only", action="store_true", help="time the cache hit alone")
    args = parser.parse_args()
    sys.path[:0] = [str(args.source / "service"), str(ROOT)]

    from ledgerline.adapters.db.migrate import upgrade
    from ledgerline.bootstrap import bootstrap
    from ledgerline.config import Settings
    from ledgerline.http.app import create_app
    from ledgerline.service_layer.worker import Worker
    from tests.conftest import make_tenant
    from tests.fakes import ControlledExtractor, pdf_bytes

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/ledgerline.sqlite3"
        upgrade(url)
        services = bootstrap(Settings(database_url=url, storage_url=f"file://{tmp}/objects",
                                      rate_limit_per_minute=0),
                             extractor=ControlledExtractor())
        tenant = make_tenant(services, "acme")
        client = create_app(services).test_client()
        key = {"Authorization": f"Bearer {tenant.keys['customer']}"}
        body = pdf_bytes("edge bench")
        first = client.post("/v1/accounts/acme/invoices", data=body,
                            headers={**key, "Content-Type": "application/pdf"})
        Worker(services, name="bench").run_once()
        invoice = f"/v1/accounts/acme/invoices/{first.json['id']}"
        requests = {
            "upload, cache hit": lambda: client.post(
                "/v1/accounts/acme/invoices", data=body,
                headers={**key, "Content-Type": "application/pdf"}),
            "GET invoice": lambda: client.get(invoice, headers=key),
            "GET list?limit=20&status=completed": lambda: client.get(
                "/v1/accounts/acme/invoices?limit=20&status=completed", headers=key),
        }
        assert requests["upload, cache hit"]().headers["Ledgerline-Cache"] == "hit"
        if args.hit_only:
            requests = {"upload, cache hit": requests["upload, cache hit"]}
        print(f"{'request':40} {'CPU µs':>10} {'p90':>10}   ({args.source.name})")
        for name, send in requests.items():
            for _ in range(50):
                send()
            times = []
            for _ in range(args.rounds):
                start = time.process_time()
                resp = send()
                times.append(time.process_time() - start)
                assert resp.status_code in (200, 201), resp.get_data()
            times.sort()
            print(f"{name:40} {statistics.median(times) * 1e6:10.0f} "
                  f"{times[int(len(times) * 0.9)] * 1e6:10.0f}")
        services.engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
