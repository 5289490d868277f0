"""The lease and fencing rules are stated once in plain Python (domain.jobs) and applied by the
database in conditional statements (adapters/db/claims.py), by the database's clock. These tests
hold the two equal on every combination of job state, on every backend."""
from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from ledgerline.adapters.db.clock import db_now
from ledgerline.adapters.db.tables import cache_entries, jobs, results
from ledgerline.domain.cache import CacheKey, UploadRequest, supersedes
from ledgerline.domain.jobs import (MAX_ATTEMPTS, CacheOutcome, Claim, JobStatus, claimable,
                                    exhausted, may_publish)
from ledgerline.ports.jobs import ClaimedJob, Exhausted, NewJob
from tests.conftest import make_tenant
from tests.fakes import VERSIONS, ControlledExtractor

S = timedelta(seconds=2)  # well apart from "now": the database's clock moves while we test


class Rollback(Exception):
    pass


@pytest.fixture
def one_job(make_services):
    """A job row whose state each case sets and then rolls back."""
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    caller = tenant.caller(services, "customer")
    content_hash = "blake3:" + "ab" * 32
    new = NewJob(
        account="acme", caller_id=caller.key_id, idempotency_key=None,
        request_hash=UploadRequest("acme", content_hash, False).request_hash,
        cache_key=CacheKey("acme", content_hash, VERSIONS).digest, content_hash=content_hash,
        fresh=False, extractor_versions=VERSIONS.label)
    with services.db.transaction(write=True) as tx:
        job_id = tx.arrival.insert_job(new, outcome=CacheOutcome.MISS)
        now = tx.conn.execute(select(db_now())).scalar()
    return services, job_id, now


def in_state(tx, job_id, **state):
    tx.conn.execute(update(jobs).where(jobs.c.id == job_id).values(**state))


def rolled_back(services, action):
    try:
        with services.db.transaction(write=True) as tx:
            result = action(tx)
            raise Rollback
    except Rollback:
        return result


def test_publishing_conditions_match_the_rule(one_job):
    services, job_id, now = one_job
    mine = Claim(job_id, "w1", 3, now + 30 * S)
    cases = itertools.product([JobStatus.PENDING, JobStatus.RUNNING, JobStatus.COMPLETED],
                              ["w1", "w2"], [3, 4], [now - S, now + 30 * S])
    for status, owner, token, expires in cases:
        expected = may_publish(mine, current_owner=owner, current_token=token, status=status,
                               lease_expires_at=expires, now=now)

        def held(tx):
            in_state(tx, job_id, status=status.value, lease_owner=owner, fencing_token=token,
                     lease_expires_at=expires)
            return tx.claims.renew(mine, 30) is not None

        assert rolled_back(services, held) is expected, (status, owner, token, expires)


def test_claiming_conditions_match_the_rule(one_job):
    services, job_id, now = one_job
    cases = itertools.product([JobStatus.PENDING, JobStatus.RUNNING, JobStatus.COMPLETED,
                               JobStatus.FAILED],
                              [now - S, now + 30 * S], [None, now - S, now + 30 * S],
                              [0, MAX_ATTEMPTS - 1, MAX_ATTEMPTS])
    for status, run_after, expires, attempts in cases:
        expected = claimable(status, run_after, expires, now)

        def claimed(tx):
            in_state(tx, job_id, status=status.value, run_after=run_after, attempts=attempts,
                     lease_expires_at=expires, lease_owner="w0" if expires else None)
            return tx.claims.claim_next("w1", 30, VERSIONS.label)

        got = rolled_back(services, claimed)
        case = (status, run_after, expires, attempts)
        if not expected:
            assert got is None, case
        elif exhausted(attempts):
            assert isinstance(got, Exhausted), case
        else:
            assert isinstance(got, ClaimedJob) and got.attempts == attempts + 1, case


def test_a_worker_claims_only_jobs_keyed_with_its_own_extractor(one_job):
    services, job_id, _ = one_job
    other = VERSIONS.label.replace("test-c1", "test-c2")
    with services.db.transaction(write=True) as tx:
        assert tx.claims.claim_next("w-other", 30, other) is None
        assert tx.claims.claim_next("w-same", 30, VERSIONS.label).claim.job_id == job_id


def test_the_cache_keeps_the_later_started_extraction_as_the_rule_says(one_job):
    services, job_id, now = one_job
    later, earlier = now, now - 10 * S
    with services.db.transaction(write=True) as tx:
        job = tx.claims.claim_next("w1", 30, VERSIONS.label)
    for first, second in [(earlier, later), (later, earlier)]:
        def current(tx):
            for started, result_id in ((first, "res_first"), (second, "res_second")):
                claimed = ClaimedJob(**{**job.__dict__, "claimed_at": started})
                tx.conn.execute(results.insert().values(
                    id=result_id, account="acme", cache_key=job.cache_key,
                    content_hash=job.content_hash, job_id=job_id, document="{}",
                    created_at=now))
                tx.claims.make_current(claimed, result_id)
            return tx.conn.execute(select(cache_entries.c.result_id)).scalar()

        expected = "res_second" if supersedes(second, first) else "res_first"
        assert rolled_back(services, current) == expected
