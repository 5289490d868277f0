"""A worker process whose model call is a stand-in of fixed latency.

Everything else is the real worker: `ledgerline.service_layer.worker.Worker` claiming from the
real database (the claim opens the call's ledger row), fetching the original from the real
object store, keeping its lease (a job this short is never renewed) and publishing under its
fencing token (the publish ends the call). Used where the benchmark measures
the queue, or counts model calls over thousands of jobs, and the extractor's own seconds would
only drown the figure (the miss-path benchmark uses the real extractor).

    python bench/stub_worker.py [--delay-ms 0] [--concurrency 1]
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))

from ledgerline.adapters.db.notify import Listener  # noqa: E402
from ledgerline.adapters.extractor import PdfExtractor  # noqa: E402
from ledgerline.bootstrap import bootstrap  # noqa: E402
from ledgerline.service_layer.worker import Shutdown, Worker  # noqa: E402


class StandInModel:
    """The extractor port: same versions as the real one, a fixed delay, a fixed answer."""

    def __init__(self, delay: float):
        self.versions = PdfExtractor().versions
        self.delay = delay

    def extract(self, path: str, content_hash: str) -> dict:
        if self.delay:
            time.sleep(self.delay)
        return {"schema_version": "invoice-v1", "source": "text_layer",
                "versions": {"schema": self.versions.schema,
                             "preprocessing": self.versions.preprocessing,
                             "model": self.versions.model},
                "document": {"content_hash": content_hash, "pages": 1},
                "fields": {}, "line_items": [], "validations": [],
                "review": {"required": True, "reasons": ["benchmark stand-in"]}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    services = bootstrap(extractor=StandInModel(args.delay_ms / 1000))
    shutdown = Shutdown(services.extractor, grace=services.settings.lease_seconds)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, shutdown.request)
    # Woken by NOTIFY when work arrives, as `ledgerline worker` is.
    Listener.wake_workers(services.engine, services.work_available, shutdown.stop)
    threads = [threading.Thread(target=Worker(services).run,
                                args=(shutdown.stop,)) for _ in range(args.concurrency)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        for t in threads:
            t.join(timeout=0.5)


if __name__ == "__main__":
    main()
