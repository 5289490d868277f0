"""Fixtures for the production-shape tests: real gunicorn and worker processes on the
suite's real PostgreSQL and SeaweedFS S3, with short leases so that recovery takes seconds."""
from __future__ import annotations

import pytest

from tests.conftest import BUCKET, TEMPLATE_DB
from tests.e2e.service import SPAWNED_OCR
from tests.production.cluster import build_long_pdf, cluster

LEASE_SECONDS = "3"


@pytest.fixture(scope="session")
def long_pdf(tmp_path_factory) -> bytes:
    """About 36 real invoice pages: one extraction takes seconds, long enough to crash into."""
    path = build_long_pdf(tmp_path_factory.mktemp("long-pdf") / "long.pdf", pages=36)
    return path.read_bytes()


@pytest.fixture
def production(pg_server, s3_server, tmp_path):
    """An empty cluster (a fresh database and S3 prefix, one tenant); the test starts the
    API and worker processes it needs, and they are all stopped at the end."""
    with cluster(pg_server, s3_server, BUCKET, tmp_path / "cluster", template=TEMPLATE_DB,
                 LEDGERLINE_LEASE_SECONDS=LEASE_SECONDS, **SPAWNED_OCR) as c:
        c.create_tenant()
        yield c
