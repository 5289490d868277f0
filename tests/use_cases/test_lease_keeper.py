"""The lease keeper, on a clock the test moves: a failed renewal is retried at once, not a third
of a lease later; a lease that is really lost stops the local work immediately; a job that ends
within a third of its lease is never renewed; an idle keeper's thread ends."""
from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from ledgerline.domain.ids import new_id
from ledgerline.domain.jobs import RENEWAL_RETRY_SECONDS
from ledgerline.ports.database import StoreUnavailable
from ledgerline.ports.jobs import CallOpening, ClaimedJob
from ledgerline.service_layer.worker import LeaseKeeper
from tests.faults import Faults
from tests.fakes import VERSIONS

LEASE = 1.5
THIRD = LEASE / 3


def claim(m, owner: str, lease: float = LEASE):
    with m.services.db.transaction(write=True) as tx:
        return tx.claims.claim_and_start(owner, lease, VERSIONS.label,
                                         CallOpening(new_id("call"), "extract_invoice", 0))


def held_job(memory):
    m = memory(lease_seconds=LEASE)
    m.upload(m.tenant("acme")["customer"], "lease")
    job = claim(m, "keeper")
    assert isinstance(job, ClaimedJob)
    return m, job


def watched_renewals(m, *, failing: int = 0):
    """Renewals through the port, the first `failing` of them refused as by an outage; each
    one's clock time and outcome, and an event set by each that succeeds."""
    renewals, renewed = [], threading.Event()

    def renew(real, claim_, lease):
        if len(renewals) < failing:
            renewals.append((m.clock.monotonic(), "failed"))
            raise StoreUnavailable("blip")
        got = real(claim_, lease)
        renewals.append((m.clock.monotonic(), got))
        renewed.set()
        return got

    Faults.around(m.services).replace("claims.renew", renew)
    return renewals, renewed


def test_a_failed_renewal_is_retried_at_once_and_the_lease_kept(memory):
    m, job = held_job(memory)
    renewals, renewed = watched_renewals(m, failing=1)
    lost = threading.Event()
    keeper = LeaseKeeper(m.services, on_lost=lost.set)
    holding = keeper.hold(job)
    m.clock.waiting()
    m.clock.advance(THIRD)  # the first renewal is due, and fails
    m.clock.waiting()
    m.clock.advance(RENEWAL_RETRY_SECONDS)
    assert renewed.wait(10)
    keeper.let_go()
    (failed_at, failed), (renewed_at, claim_) = renewals
    assert failed == "failed" and renewed_at - failed_at == pytest.approx(RENEWAL_RETRY_SECONDS)
    assert not lost.is_set() and not holding.lost.is_set()
    assert holding.claim == claim_ and claim_.expires_at > job.claim.expires_at
    assert claim(m, "other") is None  # still ours


def test_a_lease_taken_over_stops_the_local_work_at_once(memory):
    m, job = held_job(memory)
    stopped = threading.Event()
    keeper = LeaseKeeper(m.services, on_lost=stopped.set)
    holding = keeper.hold(job)
    m.clock.waiting()
    db, row = m.services.db, m.job(job.claim.job_id)  # its worker stalls past its lease ...
    db.tables.jobs[row.id] = replace(row, lease_expires_at=db.now())  # type: ignore
    assert claim(m, "rescuer", lease=30) is not None  # ... and another worker takes the job
    m.clock.advance(THIRD)  # the next renewal finds it gone
    assert stopped.wait(10)
    assert holding.lost.is_set()
    keeper.let_go()


def test_a_database_that_never_answers_ends_the_lease_not_the_keeper(memory):
    m, job = held_job(memory)

    def away(real, claim_, lease):
        raise StoreUnavailable("no answer")

    Faults.around(m.services).replace("claims.renew", away)
    lost_at = []
    keeper = LeaseKeeper(m.services, on_lost=lambda: lost_at.append(m.clock.monotonic()))
    holding = keeper.hold(job)
    m.clock.waiting()
    m.clock.advance(THIRD)
    while not holding.lost.is_set():  # retried every RENEWAL_RETRY_SECONDS ...
        m.clock.waiting()
        m.clock.advance(RENEWAL_RETRY_SECONDS)
    # ... and given up when the lease would run out, not later
    assert LEASE - RENEWAL_RETRY_SECONDS - 1e-9 <= lost_at[0] < LEASE
    keeper.let_go()


def test_a_job_that_ends_within_a_third_of_its_lease_is_never_renewed(memory):
    m, job = held_job(memory)
    renewals, renewed = watched_renewals(m)
    keeper = LeaseKeeper(m.services)
    for _ in range(20):  # twenty short jobs, one keeper
        keeper.hold(job)
        keeper.let_go()
    m.clock.waiting()
    m.clock.advance(LEASE / 2)  # past a third of the lease since the last of them
    held = m.clock.monotonic()
    keeper.hold(job)  # one held longer is renewed, a third of its lease after it was taken
    m.clock.waiting()
    m.clock.advance(THIRD)
    assert renewed.wait(10)
    keeper.let_go()
    [(renewed_at, _claim)] = renewals
    assert renewed_at == pytest.approx(held + THIRD)


def test_the_keeper_thread_ends_when_idle_and_returns_with_the_next_job(memory):
    m, job = held_job(memory)
    keeper = LeaseKeeper(m.services)
    keeper.hold(job)
    first = keeper._thread
    keeper.let_go()
    # The thread may still be waiting for the renewal's time of the job let go (it sees the
    # job gone at that look) or already idle: step the clock until it ends, not before a lease.
    idle_for, deadline = 0.0, time.monotonic() + 10
    while first.is_alive():
        assert time.monotonic() < deadline, "the keeper thread never ended"
        m.clock.advance(THIRD)
        idle_for += THIRD
        first.join(0.05)
    assert idle_for >= LEASE and keeper._thread is None
    keeper.hold(job)
    assert keeper._thread is not None and keeper._thread.is_alive()
    keeper.let_go()
