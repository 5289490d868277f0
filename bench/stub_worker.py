"""A worker process whose model call is a stand-in of fixed latency.

Everything else is the real worker: `ledgerline.service_layer.worker.Worker` claiming from the
real database (the claim opens the call's ledger row), fetching the original from the real
object store, keeping its lease (a job this short is never renewed) and publishing under its
fencing token (the publish ends the call). Used where the benchmark measures
the queue, or counts model calls over thousands of jobs, and the extractor's own seconds would
only drown the figure (the miss-path benchmark uses the real extractor).

    python bench/stub_worker.py [--delay-ms 0] [--concurrency 1] [--no-original]
"""
from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))

from ledgerline.adapters.extractor import PdfExtractor  # noqa: E402
from ledgerline.bootstrap import bootstrap  # noqa: E402
from ledgerline.domain.providers import Provider  # noqa: E402
from ledgerline.workers import run_workers  # noqa: E402


class StandInModel:
    """The extractor port: same versions as the real one, a fixed delay, a fixed answer.
    `needs_original=False`: the worker fetches nothing for it (the job-engine benchmark)."""

    provider = Provider.RULES
    health = None

    def __init__(self, delay: float, *, needs_original: bool = True):
        self.versions = PdfExtractor().versions
        self.delay = delay
        self.needs_original = needs_original

    def warm(self, stop=None) -> None:
        pass

    def cancel(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def extract(self, path: str, content_hash: str, context=None) -> dict:
        if self.delay:
            time.sleep(self.delay)
        return {"schema_version": "invoice-v2", "source": "text_layer",
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
    parser.add_argument("--no-original", action="store_true",
                        help="the stand-in declares it needs no original: nothing is fetched")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    services = bootstrap(extractor=StandInModel(args.delay_ms / 1000,
                                                needs_original=not args.no_original))
    # The real worker loop, woken by NOTIFY when work arrives, as `ledgerline worker` is; its
    # threads share the stand-in, and deliver no webhooks.
    run_workers(services, concurrency=args.concurrency, deliveries=0,
                another_extractor=lambda: services.extractor).wait()


if __name__ == "__main__":
    main()
