"""The worker loop: claim, extract under a renewed lease, publish only if still ours.

Every model call is written to the ledger before it starts, so an attempt whose result
is later discarded (or whose worker dies) is still counted and paid for in the report.
"""
from __future__ import annotations

import logging
import os
import socket
import tempfile
import threading
import time
import uuid
from datetime import timedelta

from sqlalchemy.exc import OperationalError

from .. import metrics
from ..adapters.db import jobs as job_table
from ..adapters.db.engine import transaction
from ..adapters.sandbox import Cancelled
from ..adapters.storage import ObjectNotFound, StorageUnavailable
from ..domain.jobs import retry_delay, should_retry
from ..extraction.errors import ExtractionError
from ..formats import detect_file

log = logging.getLogger(__name__)
OPERATION = "extract_invoice"
STORAGE_BACKOFF_SECONDS = 2.0


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class LeaseKeeper(threading.Thread):
    """Renews the lease every third of its length; notes when the lease is lost."""

    def __init__(self, services, job: job_table.ClaimedJob):
        super().__init__(daemon=True, name=f"lease-{job.claim.job_id}")
        self.services, self.claim = services, job.claim
        self.lost = threading.Event()
        self._done = threading.Event()

    def run(self) -> None:
        interval = self.services.settings.lease_seconds / 3
        while not self._done.wait(interval):
            try:
                with transaction(self.services.engine, write=True) as conn:
                    renewed = job_table.renew(conn, self.claim, self.services.clock(),
                                              self.services.settings.lease_seconds)
            except Exception:  # a database blip: try again at the next tick
                log.warning("lease renewal failed for %s", self.claim.job_id, exc_info=True)
                continue
            if renewed is None:
                metrics.LEASES_LOST.inc()
                self.lost.set()
                return
            self.claim = renewed

    def stop(self) -> None:
        self._done.set()


class Shutdown:
    """SIGTERM or SIGINT for a worker process: never abandon the job in hand.

    The first signal stops claiming; a job in hand is finished if it ends within `grace`
    seconds, otherwise its extraction is cancelled and the job handed back (lease released,
    claimable at once by another worker). A second signal hands back at once.
    """

    def __init__(self, extractor, grace: float):
        self.stop = threading.Event()
        self._extractor, self._grace = extractor, grace
        self._timer: threading.Timer | None = None

    def request(self, *_signal) -> None:
        if self.stop.is_set():
            self.hand_back()
            return
        self.stop.set()
        self._timer = threading.Timer(self._grace, self.hand_back)
        self._timer.daemon = True
        self._timer.start()

    def hand_back(self) -> None:
        cancel = getattr(self._extractor, "cancel", None)  # only a sandbox can be interrupted
        if cancel is not None:
            cancel()

    def done(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _fetch(store, key: str, directory: str) -> str:
    """The original in `directory`, named with the suffix of what its content is."""
    raw = os.path.join(directory, "original")
    with open(raw, "wb") as f:
        store.get_to_file(key, f)
    path = raw + detect_file(raw).suffix
    os.rename(raw, path)
    return path


class Worker:
    def __init__(self, services, name: str | None = None, poll_interval: float = 0.25):
        self.services = services
        self.name = name or worker_name()
        self.poll_interval = poll_interval
        self._backoff = 0.0  # set after an outage of the object store

    def run(self, stop: threading.Event) -> None:
        """Work until `stop` is set; the job in hand is finished or handed back, never abandoned."""
        warm = getattr(self.services.extractor, "warm", None)  # the sandbox's fork server
        if warm is not None:
            warm()
        wake = self.services.work_available
        while not stop.is_set():
            try:
                worked = self.run_once()
            except OperationalError as exc:  # the database is away: wait, then reconnect
                log.warning("worker %s: database unavailable (%s); retrying",
                            self.name, type(exc.orig).__name__)
                worked = False
                stop.wait(1.0)
            except Exception:
                log.exception("worker %s: unexpected error; backing off", self.name)
                worked = False
                stop.wait(1.0)
            if self._backoff:
                stop.wait(self._backoff)
                self._backoff = 0.0
            if not worked:
                wake.wait(self.poll_interval)
                wake.clear()

    def run_once(self) -> bool:
        services = self.services
        with transaction(services.engine, write=True) as conn:
            job = job_table.claim_next(conn, self.name, services.clock(),
                                       services.settings.lease_seconds)
        if job is None:
            return False
        keeper = LeaseKeeper(services, job)
        keeper.start()
        try:
            self._work(job)
        finally:
            keeper.stop()
            with services.job_finished:
                services.job_finished.notify_all()
        return True

    def _work(self, job: job_table.ClaimedJob) -> None:
        services = self.services
        with tempfile.TemporaryDirectory(prefix="job-", dir=services.settings.spool_dir) as work:
            try:
                if not job.storage_key:
                    raise ObjectNotFound(job.content_hash)
                path = _fetch(services.store, job.storage_key, work)
            except ObjectNotFound:
                return self._finish_failed(job, "original_missing",
                                           "the stored original could not be found")
            except StorageUnavailable as exc:
                # The store is away, not something wrong with this job: it waits for the
                # store however long that takes, and this worker pauses before claiming again.
                self._backoff = STORAGE_BACKOFF_SECONDS
                return self._retry_later(job, "storage_unavailable", str(exc))

            call_id = self._write(lambda conn: job_table.start_call(
                conn, operation=OPERATION, job=job, request_hash=job.cache_key,
                cost=services.settings.price_per_call, now=services.clock()))
            metrics.model_call_started(services.settings.price_per_call)
            try:
                document = metrics.timed_extraction(services.extractor.extract, path,
                                                    job.content_hash)
            except Cancelled:  # shutting down: the job goes back to the queue, not to failed
                self._end_call(call_id, "cancelled")
                return self._hand_back(job)
            except ExtractionError as exc:
                self._end_call(call_id, "failed")
                return self._finish_failed(job, exc.code, exc.message, transient=exc.transient)
            except Exception as exc:  # a bug or a crash in the parser: fail, do not loop
                log.exception("extraction crashed on job %s", job.claim.job_id)
                self._end_call(call_id, "failed")
                return self._finish_failed(job, "extraction_error", type(exc).__name__)
        ended = services.clock()
        published = self._write(lambda conn: job_table.publish(
            conn, job, document, services.clock(),
            record_in_cache=services.settings.cache_mode.records_results))
        self._end_call(call_id, "published" if published else "discarded", ended)
        if not published:
            metrics.PUBLISHES_REJECTED.inc()
            log.warning("job %s: lease lost; result discarded (token %s)",
                        job.claim.job_id, job.claim.token)

    def _end_call(self, call_id: int, outcome: str, at=None) -> None:
        metrics.MODEL_CALLS.labels(outcome).inc()
        self._write(lambda conn: job_table.finish_call(conn, call_id, outcome,
                                                       at or self.services.clock()))

    def _write(self, action):
        """One short write transaction, retried through a database restart for up to a lease:
        an extraction already paid for is worth publishing, and the fencing token makes a
        write that comes too late harmless."""
        deadline = time.monotonic() + self.services.settings.lease_seconds
        delay = 0.1
        while True:
            try:
                with transaction(self.services.engine, write=True) as conn:
                    return action(conn)
            except OperationalError as exc:
                if time.monotonic() + delay > deadline:
                    raise
                log.warning("worker %s: database unavailable (%s); retrying a write",
                            self.name, type(exc.orig).__name__)
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    def _hand_back(self, job) -> None:
        now = self.services.clock()
        with transaction(self.services.engine, write=True) as conn:
            released = job_table.release(conn, job.claim, now, run_after=now)
        log.info("job %s handed back on shutdown (released: %s)", job.claim.job_id, released)

    def _retry_later(self, job, code: str, message: str) -> None:
        now = self.services.clock()
        later = now + timedelta(seconds=STORAGE_BACKOFF_SECONDS)
        with transaction(self.services.engine, write=True) as conn:
            job_table.release(conn, job.claim, now, run_after=later, error=(code, message),
                              refund_attempt=True)
        log.warning("job %s: %s; retrying in %g s", job.claim.job_id, code,
                    STORAGE_BACKOFF_SECONDS)

    def _finish_failed(self, job, code: str, message: str, *, transient: bool = False) -> None:
        now = self.services.clock()
        with transaction(self.services.engine, write=True) as conn:
            if should_retry(job.attempts, transient):
                later = now + timedelta(seconds=retry_delay(job.attempts))
                job_table.release(conn, job.claim, now, run_after=later, error=(code, message))
            else:
                job_table.fail(conn, job.claim, code, message, now)
