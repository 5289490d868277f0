"""Worker processes that die, pause or are told to stop in the middle of a real extraction:
another worker completes the job, exactly one result is published, every attempt is in the
ledger, and a paused worker that wakes up late cannot overwrite anything."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.production.cluster import children, owner_pid, wait_for
from tests.production.conftest import LEASE_SECONDS

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LEASE = float(LEASE_SECONDS)


def start(production, workers: int = 2):
    production.start_api(1)
    for _ in range(workers):
        production.start_worker()


def extracting(production, long_pdf: bytes):
    """Upload the long PDF; return (job id, pid of the worker now running its extraction)."""
    response = production.upload(long_pdf)
    assert response.status_code == 202, response.text
    job = production.job_of(response.json()["id"])
    pid = production.wait_for_owner(job.id)
    wait_for(lambda: production.sql(
        "SELECT 1 FROM model_calls WHERE job_id = :id AND outcome = 'running'", id=job.id),
        "the model call to start")
    # The claim opens the call before the original is fetched: the extraction itself runs once
    # a child of the sandbox's fork server (itself a child of the worker) has the original open
    # (a spare child waits there for the next document from the start).
    wait_for(lambda: any(holds_open(child, job.id) for server in children(pid)
                         for child in children(server)), "the extraction process to start")
    return response.json()["id"], job.id, pid


def holds_open(pid: int, name_part: str) -> bool:
    """Whether the process has a file open whose path holds `name_part`."""
    try:
        return any(name_part in os.readlink(entry) for entry in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:  # gone, or an fd closed while being read
        return False



def settled_calls(production) -> list:
    """The ledger once no call is still running (a worker ends its call just after it
    publishes)."""
    wait_for(lambda: not production.sql("SELECT 1 FROM model_calls WHERE outcome = 'running'"),
             "every model call to end", timeout=30)
    return production.model_calls()


def results_of(production, job_id: str) -> int:
    return production.scalar("SELECT count(*) FROM results WHERE job_id = :id", id=job_id)


def test_a_worker_killed_mid_extraction_is_replaced_once_its_lease_runs_out(production, long_pdf):
    start(production)
    invoice_id, job_id, victim = extracting(production, long_pdf)

    production.worker_by_pid(victim).signal_group(signal.SIGKILL)
    killed = time.monotonic()
    rescuer = production.wait_for_owner(job_id, not_pid=victim, timeout=LEASE + 15)
    taken_over_after = time.monotonic() - killed
    job = production.wait_for_job(job_id, "completed", timeout=90)

    assert rescuer != victim and production.worker_by_pid(rescuer).alive()
    assert taken_over_after < LEASE + 5  # the lease, not some longer timeout, decided
    assert job.fencing_token == 2 and job.attempts == 2 and job.lease_owner is None
    assert results_of(production, job_id) == 1
    calls = settled_calls(production)
    assert [(owner_pid(c.worker), c.fencing_token) for c in calls] == [(victim, 1), (rescuer, 2)]
    assert calls[0].outcome == "abandoned" and calls[1].outcome == "published"
    invoice = production.get(f"/v1/accounts/acme/invoices/{invoice_id}").json()
    assert invoice["status"] == "completed" and invoice["extraction"]["document"]["pages"] == 36


def test_a_paused_worker_that_wakes_after_the_takeover_cannot_publish(production, long_pdf):
    start(production)
    invoice_id, job_id, stale_pid = extracting(production, long_pdf)
    stale = production.worker_by_pid(stale_pid)

    stale.signal_group(signal.SIGSTOP)  # the whole process and its extraction child
    try:
        rescuer = production.wait_for_owner(job_id, not_pid=stale_pid, timeout=LEASE + 15)
        published = production.wait_for_job(job_id, "completed", timeout=90)
    finally:
        stale.signal_group(signal.SIGCONT)
    # Awake, the stale worker finds its lease gone: it stops its extraction at once
    # (cancelled) or, if it had finished, has its publish refused (discarded).
    late = wait_for(lambda: production.sql(
        "SELECT * FROM model_calls WHERE job_id = :id AND fencing_token = 1 "
        "AND outcome IN ('discarded', 'cancelled')", id=job_id), "the stale worker's end",
        timeout=90)

    job = production.sql("SELECT * FROM jobs WHERE id = :id", id=job_id)[0]
    assert (job.status, job.result_id, job.fencing_token) == ("completed", published.result_id, 2)
    assert results_of(production, job_id) == 1  # the discarded result left nothing behind
    assert owner_pid(late[0].worker) == stale_pid and stale.alive()
    calls = settled_calls(production)
    assert [(owner_pid(c.worker), c.fencing_token, c.outcome) for c in calls] == [
        (stale_pid, 1, late[0].outcome), (rescuer, 2, "published")]
    assert "lease lost" in stale.log()
    invoice = production.get(f"/v1/accounts/acme/invoices/{invoice_id}").json()
    result = production.scalar("SELECT document FROM results WHERE id = :id",
                               id=published.result_id)
    assert invoice["status"] == "completed" and invoice["extraction"] is not None
    assert invoice["extraction"]["document"]["content_hash"] in result


def test_sigterm_lets_a_worker_finish_the_job_in_hand(production, long_pdf):
    production.start_api(1)
    worker = production.start_worker("--grace", "60")
    invoice_id, job_id, pid = extracting(production, long_pdf)
    assert pid == worker.pid

    worker.signal(signal.SIGTERM)

    assert worker.wait(60) == 0
    job = production.sql("SELECT * FROM jobs WHERE id = :id", id=job_id)[0]
    assert (job.status, job.lease_owner, job.fencing_token) == ("completed", None, 1)
    calls = settled_calls(production)
    assert [(owner_pid(c.worker), c.outcome) for c in calls] == [(pid, "published")]
    invoice = production.get(f"/v1/accounts/acme/invoices/{invoice_id}").json()
    assert invoice["status"] == "completed"


def test_sigterm_past_the_grace_period_hands_the_job_back_at_once(production, long_pdf):
    production.start_api(1)
    leaving = production.start_worker("--grace", "0.5")
    invoice_id, job_id, pid = extracting(production, long_pdf)

    leaving.signal(signal.SIGTERM)
    stopped = time.monotonic()
    assert leaving.wait(30) == 0
    exited_after = time.monotonic() - stopped
    job = production.sql("SELECT * FROM jobs WHERE id = :id", id=job_id)[0]

    assert exited_after < LEASE  # it did not wait out its extraction, nor its lease
    assert (job.status, job.lease_owner, job.lease_expires_at) == ("pending", None, None)
    assert production.model_calls()[0].outcome == "cancelled"
    assert "handed back" in leaving.log()

    successor = production.start_worker()
    done = production.wait_for_job(job_id, "completed", timeout=90)
    assert done.fencing_token == 2
    calls = settled_calls(production)
    assert [(owner_pid(c.worker), c.fencing_token, c.outcome) for c in calls] == [
        (pid, 1, "cancelled"), (successor.pid, 2, "published")]
    invoice = production.get(f"/v1/accounts/acme/invoices/{invoice_id}").json()
    assert invoice["status"] == "completed"


def test_sigterm_to_serve_hands_back_the_embedded_workers_job(production, long_pdf):
    production.start_api(1, embedded_worker=True, env={"GUNICORN_CMD_ARGS": "--graceful-timeout 2"})
    _invoice_id, job_id, pid = extracting(production, long_pdf)
    assert pid in production.api_pids()  # the extraction runs inside the API process

    production.api.signal(signal.SIGTERM)
    assert production.api.wait(30) is not None
    job = production.sql("SELECT * FROM jobs WHERE id = :id", id=job_id)[0]
    assert (job.status, job.lease_owner, job.lease_expires_at) == ("pending", None, None)
    assert production.model_calls()[0].outcome == "cancelled"

    production.start_worker()
    assert production.wait_for_job(job_id, "completed", timeout=90).fencing_token == 2
