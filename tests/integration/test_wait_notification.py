"""`Prefer: wait` is woken by the end of its job, never by polling, on every backend.

The API and the worker are built as separate services (their own engine and their own
JobEndings), as two processes would be: on PostgreSQL only NOTIFY can tell the API, on SQLite
only the doorbell. Every statement the API's engine runs is counted, so a wait that polled
would show.
"""
from __future__ import annotations

import contextlib
import threading
import time
from types import SimpleNamespace

import pytest
from sqlalchemy import event

from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes

# Statements a waiting request runs once woken, whatever the wait's length: the invoice, whose
# status says it is the answer (its row; its file's copies and its seller's candidates, in
# one): 3 on SQLite, 4 on PostgreSQL. The bound was 6 while the look read the status first
# and the duplicates took two statements.
READS_OF_ONE_WAIT = 4
# What waiting adds to an upload that nobody works on: the upload watches its job from before its
# commit, so it reads nothing before the wait, and the whole invoice once after it, as without
# one. Here the wait is the process's first, and opens its channel to the other processes:
# when that starts listening every waiter looks once (the invoice: 2 statements on PostgreSQL).
# Before, the wait read the invoice's status first, and the bound was the same.
READS_ADDED_BY_AN_IDLE_WAIT = 2


class StatementCounter:
    def __init__(self, engine):
        self.count = 0
        event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *_args):
        self.count += 1


@pytest.fixture
def api_and_worker(make_services):
    api = make_services(extractor=ControlledExtractor())
    worker = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(api, "acme")
    return api, worker, tenant


def upload_in_thread(api, key: str, body: bytes, wait: int) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run():
        out["response"] = create_app(api).test_client().post(
            "/v1/accounts/acme/invoices", data=body,
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/pdf",
                     "Prefer": f"wait={wait}"})
        out["answered"] = time.monotonic()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


class Waits:
    """The waits of the requests of one services, as services.job_endings hands them the end
    of a job: `blocked` is set once one waits (having looked at the job and found it
    unfinished), `told` holds how each wait ended (True: told to look; False: timed out)."""

    def __init__(self, services):
        self.blocked, self.told = threading.Event(), []
        watch = services.job_endings.watch

        @contextlib.contextmanager
        def watched(job_id: str):
            with watch(job_id) as ended:
                yield _Wait(ended, self)

        services.job_endings.watch = watched
        start_watching = services.job_endings.start_watching

        def started(job_id: str):  # an upload's own job, watched from before its commit
            watching = start_watching(job_id)
            return SimpleNamespace(job_id=job_id, ended=_Wait(watching.ended, self),
                                   close=watching.close)

        services.job_endings.start_watching = started


class _Wait:
    def __init__(self, ended: threading.Event, waits: Waits):
        self._ended, self._waits = ended, waits

    def clear(self) -> None:
        self._ended.clear()

    def wait(self, timeout: float | None = None) -> bool:
        self._waits.blocked.set()
        told = self._ended.wait(timeout)
        self._waits.told.append(told)
        return told


def test_a_wait_answers_when_another_process_ends_its_job(api_and_worker):
    api, worker_services, tenant = api_and_worker
    waits = Waits(api)
    thread, out = upload_in_thread(api, tenant.keys["customer"], pdf_bytes("woken"), wait=30)
    assert waits.blocked.wait(30)  # the request is holding its wait now
    counter = StatementCounter(api.engine)
    assert Worker(worker_services, name="other-process").run_once()
    thread.join(timeout=30)
    response = out["response"]
    assert response.status_code == 201 and response.json["status"] == "completed"
    assert response.headers["Preference-Applied"] == "wait=30"
    assert waits.told[-1]  # told to look, not found by chance when its 30 s ran out
    assert counter.count <= READS_OF_ONE_WAIT, counter.count


def test_a_joined_upload_is_woken_by_its_leader_ending(api_and_worker):
    api, worker_services, tenant = api_and_worker
    body = pdf_bytes("joined")
    client = create_app(api).test_client()
    first = client.post("/v1/accounts/acme/invoices", data=body,
                        headers={"Authorization": f"Bearer {tenant.keys['supplier']}",
                                 "Content-Type": "application/pdf"})
    assert first.headers["Ledgerline-Cache"] == "miss"
    waits = Waits(api)
    thread, out = upload_in_thread(api, tenant.keys["customer"], body, wait=30)
    assert waits.blocked.wait(30)
    assert Worker(worker_services, name="other-process").run_once()
    thread.join(timeout=30)
    assert out["response"].headers["Ledgerline-Cache"] == "joined"
    assert out["response"].json["status"] == "completed"
    assert waits.told[-1]


def test_a_wait_on_work_nobody_does_reads_nothing_until_it_times_out(api_and_worker):
    api, _worker, tenant = api_and_worker
    counter = StatementCounter(api.engine)
    thread, out = upload_in_thread(api, tenant.keys["customer"], pdf_bytes("no-wait"), wait=0)
    thread.join(timeout=30)
    assert out["response"].status_code == 202
    without_wait, counter.count = counter.count, 0
    started = time.monotonic()
    thread, out = upload_in_thread(api, tenant.keys["customer"], pdf_bytes("idle"), wait=3)
    thread.join(timeout=30)
    assert out["response"].status_code == 202
    assert out["response"].json["status"] == "pending"
    assert out["answered"] - started >= 3
    # One wait's reads, however long it lasts: a poll every 100 ms would add 30 more.
    assert counter.count - without_wait <= READS_ADDED_BY_AN_IDLE_WAIT


def test_an_upload_reads_nothing_before_its_wait(api_and_worker):
    """Its job is watched from before the upload commits, so no end can pass unseen and no
    look is needed first: once the process listens, a wait that times out adds no statement."""
    api, _worker, tenant = api_and_worker
    thread, _ = upload_in_thread(api, tenant.keys["customer"], pdf_bytes("opens"), wait=1)
    thread.join(timeout=30)  # the process's first wait: its channel listens from now on
    counter = StatementCounter(api.engine)
    thread, out = upload_in_thread(api, tenant.keys["customer"], pdf_bytes("no-wait"), wait=0)
    thread.join(timeout=30)
    assert out["response"].status_code == 202
    without_wait, counter.count = counter.count, 0
    thread, out = upload_in_thread(api, tenant.keys["customer"], pdf_bytes("idle"), wait=2)
    thread.join(timeout=30)
    assert out["response"].json["status"] == "pending"
    assert counter.count == without_wait


def test_a_wait_in_the_workers_own_process_is_told_at_once(make_services):
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    waits = Waits(services)
    thread, out = upload_in_thread(services, tenant.keys["customer"], pdf_bytes("same"), wait=30)
    assert waits.blocked.wait(30)
    assert Worker(services, name="same-process").run_once()
    thread.join(timeout=30)
    assert out["response"].json["status"] == "completed"
    assert waits.told[-1]
