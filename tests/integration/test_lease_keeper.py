"""The lease keeper: a failed renewal is retried at once, not a third of a lease later; a
lease that is really lost stops the local work immediately; a job that ends within a third of
its lease is never renewed."""
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
    keeper = LeaseKeeper(env.services, on_lost=lost.set)
    holding = keeper.hold(job)
    time.sleep(3 * LEASE)  # several renewals, the first of which failed
    keeper.let_go()
    assert failures and not lost.is_set() and not holding.lost.is_set()
    assert holding.claim.expires_at > job.claim.expires_at
    assert claim(env.services, "other", lease=LEASE) is None  # still ours


def test_a_lease_taken_over_stops_the_local_work_at_once(make_services):
    env, job = held_job(make_services)
    stopped = threading.Event()
    keeper = LeaseKeeper(env.services, on_lost=stopped.set)
    holding = keeper.hold(job)
    expire_leases(env.services)
    assert claim(env.services, "rescuer", lease=30) is not None
    assert stopped.wait(LEASE)  # at the next renewal, a third of a lease later
    assert holding.lost.is_set()
    keeper.let_go()


def test_a_database_that_never_answers_ends_the_lease_not_the_keeper(make_services,
                                                                     monkeypatch):
    env, job = held_job(make_services)

    def away(conn, claim_, lease):
        raise OperationalError("UPDATE", {}, ConnectionError("no answer"))

    monkeypatch.setattr(job_table, "renew", away)
    stopped = threading.Event()
    keeper = LeaseKeeper(env.services, on_lost=stopped.set)
    started = time.monotonic()
    holding = keeper.hold(job)
    assert stopped.wait(3 * LEASE)
    assert time.monotonic() - started < LEASE + 0.5  # given up when the lease would run out
    assert holding.lost.is_set()
    keeper.let_go()


def test_a_job_that_ends_within_a_third_of_its_lease_is_never_renewed(make_services,
                                                                     monkeypatch):
    env, job = held_job(make_services)
    renewals = []
    monkeypatch.setattr(job_table, "renew", lambda *args: renewals.append(args))
    keeper = LeaseKeeper(env.services)
    for _ in range(20):  # twenty short jobs, one keeper
        keeper.hold(job)
        keeper.let_go()
    time.sleep(LEASE / 2)  # past a third of the lease since the last of them
    assert renewals == []
    held = time.monotonic()
    keeper.hold(job)  # one held longer is renewed, a third of its lease after it was taken
    deadline = held + 3 * LEASE
    while not renewals and time.monotonic() < deadline:
        time.sleep(0.02)
    keeper.let_go()
    assert len(renewals) == 1 and time.monotonic() - held >= LEASE / 3


def test_the_keeper_thread_ends_when_idle_and_returns_with_the_next_job(make_services):
    env, job = held_job(make_services)
    keeper = LeaseKeeper(env.services)
    keeper.hold(job)
    first = keeper._thread
    keeper.let_go()
    first.join(2 * LEASE)
    assert not first.is_alive() and keeper._thread is None  # idle for a lease: gone
    keeper.hold(job)
    assert keeper._thread is not None and keeper._thread.is_alive()
    keeper.let_go()
