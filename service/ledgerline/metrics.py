"""Prometheus metrics; multi-process aware when PROMETHEUS_MULTIPROC_DIR is set (gunicorn)."""
from __future__ import annotations

import os

from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram,
                               generate_latest, multiprocess, REGISTRY)

UPLOADS = Counter("ledgerline_uploads_total", "Uploads by outcome", ["outcome"])
CACHE = Counter("ledgerline_cache_total", "Upload cache outcomes", ["result"])
MODEL_CALLS = Counter("ledgerline_model_calls_total", "Model calls by outcome", ["outcome"])
EXTRACTION_SECONDS = Histogram("ledgerline_extraction_seconds", "Time spent in one model call",
                               buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60))


def render() -> tuple[bytes, str]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return generate_latest(registry), CONTENT_TYPE_LATEST
