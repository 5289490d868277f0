"""A worker that fails on its own side before the model call (its spool cannot be written, its
sandbox cannot start) makes no model call: the ledger row costs 0 (`unstarted`), the attempt
is refunded, the job goes back to the queue at once for another worker, and the worker claims
nothing (and its process reports `spool: unavailable` in `/readyz`) until it can write again.
On both backends."""
from __future__ import annotations

import io
import os
import subprocess
import threading
import time
from decimal import Decimal

import pytest
from sqlalchemy import select

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import jobs, model_calls
from ledgerline.http.app import create_app
from ledgerline.ports.extractor import CannotStart
from ledgerline.service_layer import intake, worker as worker_module
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant
from tests.fakes import ControlledExtractor, pdf_bytes


@pytest.fixture(autouse=True)
def quick_probes(monkeypatch):
    monkeypatch.setattr(worker_module, "DISK_BACKOFF_SECONDS", 0.1, raising=False)
    monkeypatch.setattr(worker_module, "MAX_DISK_BACKOFF_SECONDS", 0.2, raising=False)


def upload(services, tenant, role: str, tag: str):
    caller = tenant.caller(services, role)
    return intake.upload(services, caller, tenant.account, io.BytesIO(pdf_bytes(tag)),
                         idempotency_key=None, fresh=False)


def rows(services, table):
    with transaction(services.engine, write=False) as conn:
        return conn.execute(select(table)).all()


def wait_until(predicate, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Running:
    def __init__(self, services):
        self.stop = threading.Event()
        self.thread = threading.Thread(target=Worker(services, poll_interval=0.05).run,
                                       args=(self.stop,), daemon=True)
        self.thread.start()

    def end(self) -> None:
        self.stop.set()
        self.thread.join(30)


def assert_unbilled_and_queued(api, calls: int) -> None:
    ledger = rows(api, model_calls)
    assert len(ledger) == calls and {r.outcome for r in ledger} == {"unstarted"}
    assert sum(Decimal(r.cost) for r in ledger) == 0
    queued = rows(api, jobs)
    assert {j.status for j in queued} == {"pending"}  # none failed, none stuck running
    assert all(j.attempts == 0 for j in queued)       # each attempt refunded


def test_a_worker_whose_spool_cannot_be_written_hands_every_job_back_unbilled(make_services,
                                                                             tmp_path):
    api = make_services(extractor=ControlledExtractor())
    acme, globex = make_tenant(api, "acme"), make_tenant(api, "globex")
    spool = tmp_path / "worker-spool"
    spool.mkdir()
    broken_extractor = ControlledExtractor()
    broken = make_services(extractor=broken_extractor, spool_dir=str(spool))
    spool.rmdir()  # no write can succeed there now, as on a full disk
    for i in range(10):
        upload(api, (acme, globex)[i % 2], "customer", f"local-{i}")

    first = Running(broken)
    try:
        wait_until(lambda: len(rows(api, model_calls)) >= 1, "the broken worker's claim")
        time.sleep(1.0)  # several turns of its loop: it claims nothing more meanwhile
        assert_unbilled_and_queued(api, calls=1)
        assert broken_extractor.calls == []
        assert [j.error_code for j in rows(api, jobs) if j.error_code] == ["spool_unavailable"]
        ready = create_app(broken).test_client().get("/readyz")
        assert ready.status_code == 503 and ready.json["checks"]["spool"] == "unavailable"

        # Another worker takes every job at once.
        healthy_extractor = ControlledExtractor()
        second = Running(make_services(extractor=healthy_extractor))
        try:
            wait_until(lambda: {j.status for j in rows(api, jobs)} == {"completed"},
                       "the healthy worker")
        finally:
            second.end()
        assert len(healthy_extractor.calls) == 10

        # Room again: ready, and the first worker works again.
        spool.mkdir()
        assert create_app(broken).test_client().get("/readyz").status_code == 200
        upload(api, acme, "supplier", "local-after")
        wait_until(lambda: len(broken_extractor.calls) == 1, "the recovered worker")
    finally:
        first.end()
    ledger = rows(api, model_calls)
    assert sorted(r.outcome for r in ledger) == ["published"] * 11 + ["unstarted"]


def test_a_sandbox_that_cannot_start_is_not_a_model_call(make_services):
    class NoProcesses(ControlledExtractor):
        def extract(self, path, content_hash, context=None):
            super().extract(path, content_hash, context)
            raise CannotStart("cannot start the extraction process: [Errno 11] EAGAIN")

    api = make_services(extractor=ControlledExtractor())
    acme = make_tenant(api, "acme")
    upload(api, acme, "customer", "no-sandbox")
    failing = make_services(extractor=NoProcesses())
    assert Worker(failing).run_once()
    assert_unbilled_and_queued(api, calls=1)
    assert rows(api, jobs)[0].error_code == "sandbox_unavailable"
    assert Worker(make_services(extractor=ControlledExtractor())).run_once()
    assert {j.status for j in rows(api, jobs)} == {"completed"}


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small filesystem needs root")
def test_a_full_disk_is_a_local_failure_too(make_services, tmp_path):
    """A real full filesystem (a 2 MiB tmpfs, filled), not only a missing directory."""
    spool = tmp_path / "small"
    spool.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(spool)],
                             capture_output=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        api = make_services(extractor=ControlledExtractor())
        acme = make_tenant(api, "acme")
        upload(api, acme, "customer", "full-disk")
        worker = make_services(extractor=ControlledExtractor(), spool_dir=str(spool))
        with pytest.raises(OSError), open(spool / "filler", "wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
        assert Worker(worker).run_once()
        assert_unbilled_and_queued(api, calls=1)
        assert not worker.local_disk.writable()
        (spool / "filler").unlink()
        assert worker.local_disk.writable()
        assert Worker(worker).run_once()
        assert {j.status for j in rows(api, jobs)} == {"completed"}
    finally:
        subprocess.run(["umount", str(spool)], check=True)
