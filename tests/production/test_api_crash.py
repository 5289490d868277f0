"""An API process SIGKILLed while uploads stream in: what was acknowledged is durable,
nothing recorded points at a missing object, and clients recover by retrying with their key."""
from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.production.cluster import open_connections, text_layer_pdfs, variant, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

UPLOADS = 60
CLIENTS = 12


class SlowBody:
    """A request body that trickles in, so that uploads are in flight when the process dies.
    With `hold`, it stops after its first chunk until `hold` is set: the small corpus PDFs are
    one or two chunks, and without a hold the process chosen to die could have answered all its
    uploads between being chosen and being killed."""

    def __init__(self, data: bytes, chunk: int = 1024, pause: float = 0.02,
                 hold: threading.Event | None = None):
        self.data, self.chunk, self.pause, self.pos, self.hold = data, chunk, pause, 0, hold

    def __len__(self) -> int:
        return len(self.data)

    def read(self, size: int = -1) -> bytes:
        time.sleep(self.pause)
        if self.hold is not None and self.pos:
            self.hold.wait(timeout=30)
        size = self.chunk if size is None or size < 0 else min(size, self.chunk)
        piece = self.data[self.pos:self.pos + size]
        self.pos += len(piece)
        return piece


def test_an_api_process_killed_during_uploads_loses_nothing_it_acknowledged(production):
    production.start_api(4)
    production.start_worker()
    sources = [p.read_bytes() for p in text_layer_pdfs()[:6]]
    bodies = [variant(sources[i % len(sources)], f"crash-{i}") for i in range(UPLOADS)]
    answers: dict[int, object] = {}
    done = threading.Semaphore(0)
    killed = threading.Event()

    def upload(i: int):
        # The first quarter flows freely; the rest wait mid-body until the kill.
        hold = killed if i >= UPLOADS // 4 else None
        try:
            answers[i] = production.upload(SlowBody(bodies[i], hold=hold), timeout=60,
                                           **{"Idempotency-Key": f'"crash-{i}"'})
        except requests.RequestException as exc:
            answers[i] = exc
        done.release()

    port = int(production.base.rsplit(":", 1)[1])
    with ThreadPoolExecutor(CLIENTS) as pool:
        for i in range(UPLOADS):
            pool.submit(upload, i)
        for _ in range(UPLOADS // 4):
            done.acquire()
        try:
            victim = busiest(production.api_pids(), port)
            os.kill(victim, signal.SIGKILL)
        finally:
            killed.set()

    acknowledged = {i: r for i, r in answers.items()
                    if isinstance(r, requests.Response) and 200 <= r.status_code < 300}
    lost = {i: r for i, r in answers.items() if i not in acknowledged}
    assert lost, "the kill hit no upload in flight; nothing was tested"
    # A connection cut mid-answer surfaces as any transport error (reset, truncated chunked body).
    assert all(isinstance(r, requests.RequestException) or r.status_code >= 500
               for r in lost.values()), lost

    # Everything acknowledged is recorded, and its original is in the object store.
    for i, response in acknowledged.items():
        invoice = production.sql("SELECT * FROM invoices WHERE id = :id",
                                 id=response.json()["id"])
        assert invoice, f"upload {i} was acknowledged but has no record"
    assert production.orphans() == []

    # The master replaced the dead process; the service never went away.
    wait_for(lambda: len(production.api_pids()) == 4 and victim not in production.api_pids(),
             "the killed API process to be replaced", timeout=30)

    # A client retry with the same key returns the original invoice, or records it now.
    for i in range(UPLOADS):
        retry = production.upload(bodies[i], **{"Idempotency-Key": f'"crash-{i}"'})
        if i in acknowledged:
            assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
            assert retry.json()["id"] == acknowledged[i].json()["id"]
        else:
            assert retry.status_code in (200, 201, 202), retry.text
    assert production.scalar("SELECT count(*) FROM invoices") == UPLOADS
    assert production.scalar("SELECT count(DISTINCT idempotency_key) FROM jobs") == UPLOADS
    assert production.orphans() == []
    production.wait_all_finished(timeout=120)
    assert production.scalar("SELECT count(*) FROM jobs WHERE status <> 'completed'") == 0


def busiest(pids: list[int], port: int, timeout: float = 10) -> int:
    """The API process serving the most uploads right now (at least one)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        load = {pid: open_connections(pid, port) for pid in pids}
        pid = max(load, key=load.get)
        if load[pid]:
            return pid
        time.sleep(0.01)
    raise AssertionError("no API process had an upload in flight")

