"""The lease keeper: a failed renewal is retried at once, not a third of a lease later; a
lease that is really lost stops the local work immediately."""
from __future__ import annotations

import threading
import time

from sqlalchemy.exc import OperationalError

from ledgerline.adapters.db import jobs as job_table
from ledgerline.service_layer.worker import LeaseKeeper
from tests.fakes import ControlledExtractor
from tests.integration.test_engine_promises import Env
from tests.integration.test_jobs_and_workers import claim, expire_leases

LEASE = 1.5


def held_job(make_services):
    env = Env(make_services(extractor=ControlledExtractor(), lease_seconds=LEASE), None)
    env.upload("lease")
    return env, claim(env.services, "keeper", lease=LEASE)


def test_a_failed_renewal_is_retried_at_once_and_the_lease_kept(make_services, monkeypatch):
    env, job = held_job(make_services)
    real, failures = job_table.renew, []

    def flaky(conn, claim_, lease):
        if not failures:
            failures.append(time.monotonic())
            raise OperationalError("UPDATE", {}, ConnectionError("blip"))
        return real(conn, claim_, lease)

    monkeypatch.setattr(job_table, "renew", flaky)
    lost = threading.Event()
    keeper = LeaseKeeper(env.services, job, on_lost=lost.set)
    keeper.start()
    time.sleep(3 * LEASE)  # several renewals, the first of which failed
    keeper.stop()
    keeper.join(5)
    assert failures and not lost.is_set() and not keeper.lost.is_set()
    assert keeper.claim.expires_at > job.claim.expires_at
    assert claim(env.services, "other", lease=LEASE) is None  # still ours


def test_a_lease_taken_over_stops_the_local_work_at_once(make_services):
    env, job = held_job(make_services)
    stopped = threading.Event()
    keeper = LeaseKeeper(env.services, job, on_lost=stopped.set)
    keeper.start()
    expire_leases(env.services)
    assert claim(env.services, "rescuer", lease=30) is not None
    assert stopped.wait(LEASE)  # at the next renewal, a third of a lease later
    assert keeper.lost.is_set()
    keeper.stop()


def test_a_database_that_never_answers_ends_the_lease_not_the_keeper(make_services,
                                                                     monkeypatch):
    env, job = held_job(make_services)

    def away(conn, claim_, lease):
        raise OperationalError("UPDATE", {}, ConnectionError("no answer"))

    monkeypatch.setattr(job_table, "renew", away)
    stopped = threading.Event()
    keeper = LeaseKeeper(env.services, job, on_lost=stopped.set)
    started = time.monotonic()
    keeper.start()
    assert stopped.wait(3 * LEASE)
    assert time.monotonic() - started < LEASE + 0.5  # given up when the lease would run out
    keeper.join(2)
    assert not keeper.is_alive()
