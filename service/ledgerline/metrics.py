"""Prometheus metrics; multi-process aware when PROMETHEUS_MULTIPROC_DIR is set (gunicorn)."""
from __future__ import annotations

import logging
import os
import threading
import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger(__name__)

UPLOADS = Counter("ledgerline_uploads_total", "Uploads by outcome", ["outcome"])
CACHE = Counter("ledgerline_cache_total", "Upload cache outcomes", ["result"])
MODEL_CALLS = Counter("ledgerline_model_calls_total", "Model calls by outcome", ["outcome"])
EXTRACTION_SECONDS = Histogram("ledgerline_extraction_seconds", "Time spent in one model call",
                               buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60))
CACHE_WOULD_BE = Counter("ledgerline_cache_would_be_total",
                         "Shadow mode: uploads the cache would have served or joined", ["result"])
MODEL_CALLS_STARTED = Counter("ledgerline_model_calls_started_total",
                              "Model calls started (each one is paid for)")
MODEL_COST = Counter("ledgerline_model_cost_usd_total", "What the model calls cost, in USD")
LEASES_LOST = Counter("ledgerline_leases_lost_total",
                      "Leases a working worker found expired or taken over")
PUBLISHES_REJECTED = Counter("ledgerline_publishes_rejected_total",
                             "Results discarded because the worker no longer held the lease")
WEBHOOK_DELIVERIES = Counter("ledgerline_webhook_deliveries_total",
                             "Webhook delivery attempts by outcome (domain.webhooks.OUTCOMES)",
                             ["outcome"])
WEBHOOK_DELIVERY_SECONDS = Histogram("ledgerline_webhook_delivery_seconds",
                                     "Time one webhook delivery attempt took, whatever its "
                                     "outcome", buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))


def count_upload(upload):
    """Count an accepted (committed) upload by cache outcome, or as a replay; returns it."""
    if upload.replayed:
        UPLOADS.labels("replayed").inc()
    else:
        UPLOADS.labels(upload.outcome.value).inc()
        CACHE.labels(upload.outcome.value).inc()
        if upload.would_be:
            CACHE_WOULD_BE.labels(upload.would_be).inc()
    return upload


def model_call_started(cost) -> None:
    MODEL_CALLS_STARTED.inc()
    MODEL_COST.inc(float(cost))


def webhook_attempt(outcome: str, seconds: float) -> None:
    WEBHOOK_DELIVERIES.labels(outcome).inc()
    WEBHOOK_DELIVERY_SECONDS.observe(seconds)


def timed_extraction(extract, *args):
    """Run one model call, observing how long it took (failed calls too)."""
    began = time.perf_counter()
    try:
        return extract(*args)
    finally:
        EXTRACTION_SECONDS.observe(time.perf_counter() - began)


# A scrape reads the queue's state from the database at most this often per API process;
# in between it is served from the last snapshot, so scrapes (or someone who holds the metrics
# token and loops) cost the database nothing.
QUEUE_SNAPSHOT_SECONDS = 15.0


class QueueSnapshot:
    """Queue depth, the oldest pending job's age and expired leases, as of the last reading.

    They describe shared state, so they come from the database, not from one process.
    """

    def __init__(self, services, max_age: float = QUEUE_SNAPSHOT_SECONDS,
                 monotonic=time.monotonic):
        self.services, self.max_age, self.monotonic = services, max_age, monotonic
        self._state, self._taken = None, float("-inf")
        self._lock = threading.Lock()

    def state(self):
        with self._lock:
            if self.monotonic() - self._taken >= self.max_age:
                self._state, self._taken = self._read(), self.monotonic()
            return self._state

    def _read(self):
        from .adapters.db.engine import transaction
        from .adapters.db.report import queue_state

        try:
            with transaction(self.services.engine, write=False) as conn:
                return queue_state(conn)
        except Exception as exc:  # noqa: BLE001 - the database away: the gauges are left out, not invented
            log.warning("metrics: cannot read the queue state: %r", exc)
            return None

    def collect(self):
        state = self.state()
        if state is None:
            return
        depth = GaugeMetricFamily("ledgerline_queue_depth",
                                  "Jobs in flight by state: pending (claimable), retrying "
                                  "(waiting out a backoff), running (a worker holds it)",
                                  labels=["state"])
        oldest = GaugeMetricFamily("ledgerline_queue_oldest_age_seconds",
                                   "How long the oldest job of each state has been in it "
                                   "(pending, retrying: since created; running: since claimed)",
                                   labels=["state"])
        for name, count in state.depth.items():
            depth.add_metric([name], count)
            oldest.add_metric([name], state.oldest_age[name])
        yield depth
        yield oldest
        yield GaugeMetricFamily("ledgerline_leases_expired",
                                "Running jobs whose lease ran out, awaiting takeover",
                                value=state.expired_leases)


class BuildInfo:
    """`ledgerline_build_info`: 1, labelled with what this process runs (the release, Python,
    and the extractor's schema, preprocessing and model versions)."""

    def __init__(self, versions=None):
        import platform

        from . import __version__

        self.labels = {"version": __version__, "python": platform.python_version()}
        if versions is not None:
            self.labels.update(schema=versions.schema, preprocessing=versions.preprocessing,
                               model=versions.model)

    def collect(self):
        info = GaugeMetricFamily("ledgerline_build_info", "What this process runs",
                                 labels=list(self.labels))
        info.add_metric(list(self.labels.values()), 1)
        yield info


def render(*collectors) -> tuple[bytes, str]:
    """Every process's counters and histograms, then `collectors` (the queue's snapshot, the
    build information), which this process answers for alone."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    body = generate_latest(registry)
    own = CollectorRegistry()
    for collector in collectors:
        if collector is not None:
            own.register(collector)
    return body + generate_latest(own), CONTENT_TYPE_LATEST
