"""`Prefer: wait` is woken by the end of its job, never by polling, on every backend.

The API and the worker are built as separate services (their own engine and their own
JobEndings), as two processes would be: on PostgreSQL only NOTIFY can tell the API, on SQLite
only the doorbell. Every statement the API's engine runs is counted, so a wait that polled
would show.
"""
from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import event

from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes

# Statements a waiting request runs whatever the wait's length: the invoice (and its
# duplicates lookup), the job to watch, a look before waiting, a look when woken, the invoice
# again (on SQLite each read transaction also counts its BEGIN).
READS_OF_ONE_WAIT = 10
# What waiting adds to an upload that nobody works on: the job to watch, one look, the invoice
# read again, each in its own read transaction (BEGIN and the statement on SQLite).
READS_ADDED_BY_AN_IDLE_WAIT = 6


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


def pending_jobs(services) -> int:
    with services.engine.connect() as conn:
        return conn.exec_driver_sql(
            "SELECT count(*) FROM jobs WHERE status = 'pending'").scalar()


def wait_until(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)


def test_a_wait_answers_when_another_process_ends_its_job(api_and_worker):
    api, worker_services, tenant = api_and_worker
    thread, out = upload_in_thread(api, tenant.keys["customer"], pdf_bytes("woken"), wait=30)
    wait_until(lambda: pending_jobs(api) == 1)
    time.sleep(0.5)  # the request is holding its wait now
    counter = StatementCounter(api.engine)
    assert Worker(worker_services, name="other-process").run_once()
    ended = time.monotonic()
    thread.join(timeout=30)
    response = out["response"]
    assert response.status_code == 201 and response.json["status"] == "completed"
    assert response.headers["Preference-Applied"] == "wait=30"
    # Told, not found by chance: far sooner than the 30 s it was allowed to wait.
    assert out["answered"] - ended < 5
    assert counter.count <= READS_OF_ONE_WAIT


def test_a_joined_upload_is_woken_by_its_leader_ending(api_and_worker):
    api, worker_services, tenant = api_and_worker
    body = pdf_bytes("joined")
    client = create_app(api).test_client()
    first = client.post("/v1/accounts/acme/invoices", data=body,
                        headers={"Authorization": f"Bearer {tenant.keys['supplier']}",
                                 "Content-Type": "application/pdf"})
    assert first.headers["Ledgerline-Cache"] == "miss"
    thread, out = upload_in_thread(api, tenant.keys["customer"], body, wait=30)
    time.sleep(0.5)
    assert Worker(worker_services, name="other-process").run_once()
    ended = time.monotonic()
    thread.join(timeout=30)
    assert out["response"].headers["Ledgerline-Cache"] == "joined"
    assert out["response"].json["status"] == "completed"
    assert out["answered"] - ended < 5


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


def test_a_wait_in_the_workers_own_process_is_told_at_once(make_services):
    services = make_services(extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    thread, out = upload_in_thread(services, tenant.keys["customer"], pdf_bytes("same"), wait=30)
    wait_until(lambda: pending_jobs(services) == 1)
    time.sleep(0.3)
    assert Worker(services, name="same-process").run_once()
    ended = time.monotonic()
    thread.join(timeout=30)
    assert out["response"].json["status"] == "completed"
    assert out["answered"] - ended < 5
