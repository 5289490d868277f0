"""The lease and fencing rules are stated once in plain Python (domain.jobs) and applied by the
database in conditional statements (adapters.db.jobs). These tests hold the two equal on every
combination of job state, on every backend."""
from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import update

from ledgerline.adapters.db import jobs as job_table
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import jobs
from ledgerline.domain.cache import CacheKey, UploadRequest
from ledgerline.domain.jobs import CacheOutcome, Claim, JobStatus, claimable, may_publish
from tests.conftest import make_tenant
from tests.fakes import VERSIONS, ControlledExtractor

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
S = timedelta(seconds=1)


class Rollback(Exception):
    pass


@pytest.fixture
def one_job(make_services):
    """A job row whose state each case sets and then rolls back."""
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    caller = tenant.caller(services, "customer")
    content_hash = "blake3:" + "ab" * 32
    new = job_table.NewJob(
        account="acme", caller_id=caller.key_id, idempotency_key=None,
        request_hash=UploadRequest("acme", content_hash, False).request_hash,
        cache_key=CacheKey("acme", content_hash, VERSIONS).digest, content_hash=content_hash,
        fresh=False)
    with transaction(services.engine, write=True) as conn:
        job_id, _ = job_table.insert_job(conn, new, outcome=CacheOutcome.MISS, now=NOW)
    return services, job_id


def in_state(conn, job_id, **state):
    conn.execute(update(jobs).where(jobs.c.id == job_id).values(**state))


def test_publishing_conditions_match_the_rule(one_job):
    services, job_id = one_job
    mine = Claim(job_id, "w1", 3, NOW + 30 * S)
    cases = itertools.product([JobStatus.PENDING, JobStatus.RUNNING, JobStatus.COMPLETED],
                              ["w1", "w2"], [3, 4], [NOW - S, NOW, NOW + 5 * S])
    for status, owner, token, expires in cases:
        expected = may_publish(mine, current_owner=owner, current_token=token, status=status,
                               lease_expires_at=expires, now=NOW)
        try:
            with transaction(services.engine, write=True) as conn:
                in_state(conn, job_id, status=status.value, lease_owner=owner,
                         fencing_token=token, lease_expires_at=expires)
                held = job_table.renew(conn, mine, NOW, 30) is not None
                raise Rollback
        except Rollback:
            pass
        assert held is expected, (status, owner, token, expires)


def test_claiming_conditions_match_the_rule(one_job):
    services, job_id = one_job
    cases = itertools.product([JobStatus.PENDING, JobStatus.RUNNING, JobStatus.COMPLETED,
                               JobStatus.FAILED],
                              [NOW - S, NOW, NOW + S], [None, NOW - S, NOW, NOW + S])
    for status, run_after, expires in cases:
        expected = claimable(status, run_after, expires, NOW)
        try:
            with transaction(services.engine, write=True) as conn:
                in_state(conn, job_id, status=status.value, run_after=run_after,
                         lease_expires_at=expires, lease_owner="w0" if expires else None)
                claimed = job_table.claim_next(conn, "w1", NOW, 30) is not None
                raise Rollback
        except Rollback:
            pass
        assert claimed is expected, (status, run_after, expires)
