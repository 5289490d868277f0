"""The worker loop: claim, extract under a renewed lease, publish only if still ours.

Every model call is written to the ledger before it starts (by the claim itself), so an
attempt whose result is later discarded (or whose worker dies) is still counted and paid for
in the report. On PostgreSQL a job costs two statements, one round trip each: the claim that
starts the call, and the publish that finishes it.
No exception leaves a job `running`: a database outage aside (nothing can be written then;
the lease runs out and another claim takes over), a job ends completed, failed with a
specific code, or handed back, and its call is ended exactly once.
"""
from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import tempfile
import threading
import uuid
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from .. import metrics, tracing
from ..adapters.extractor import conform
from ..domain.ids import new_id
from ..domain.jobs import (RENEWAL_RETRY_SECONDS, CallOutcome, Claim, renew_interval,
                           retry_delay, should_retry)
from ..domain.providers import throttle_delay
from ..formats import detect_file
from ..ports.clock import Clock, SystemClock
from ..ports.database import StoreUnavailable, Transaction
from ..ports.extractor import (CallContext, Cancelled, CannotStart, ExtractionError, Extractor,
                               Progress, Refused, Throttled)
from ..ports.jobs import Call, CallOpening, ClaimedJob, Exhausted
from ..ports.storage import ObjectNotFound, StorageUnavailable
from . import dispatch, job_log, local_disk, polling
from .originals import CorruptOriginal, fetch_original

if TYPE_CHECKING:
    from ..bootstrap import Services

T = TypeVar("T")

log = logging.getLogger(__name__)
OPERATION = "extract_invoice"
STORAGE_BACKOFF_SECONDS = 2.0
# A worker whose own disk failed a write probes it this often, doubling up to the maximum.
DISK_BACKOFF_SECONDS, MAX_DISK_BACKOFF_SECONDS = 1.0, 15.0
# A sandbox that could not start (out of processes or descriptors) is waited for this long.
SANDBOX_BACKOFF_SECONDS = 5.0


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Holding:
    """The lease on the job in hand, as its keeper keeps it."""

    def __init__(self, claim: Claim, since: float):
        self.claim = claim
        self.since = since  # the keeper's clock, when the job was taken
        self.lost = threading.Event()


class LeaseKeeper:
    """Renews the lease of its worker's job in hand every third of the lease's length.

    One keeper serves all of a worker's jobs, on a thread of its own that sleeps until the job
    it holds has been in hand a third of a lease: a job that ends sooner costs no renewal, no
    round trip, no thread start, not even a wake-up (taking a job wakes the keeper only when it
    was idle; letting one go never does: the keeper sees it at its next look). The thread ends
    after a lease's length without a job and starts again with the next. A renewal that fails
    is retried every RENEWAL_RETRY_SECONDS; once the lease is lost (the database refused the
    renewal, or no renewal succeeded before the lease would have run out), `on_lost` stops the
    work at once.
    """

    def __init__(self, services: Services, on_lost: Callable[[], None] | None = None):
        self.services, self._on_lost = services, on_lost
        self._clock = services.clock
        self._changed = threading.Condition()
        self._held: Holding | None = None
        self._thread: threading.Thread | None = None
        self._idle = False  # the thread waits for a job (rather than for a renewal's time)

    def hold(self, job: ClaimedJob) -> Holding:
        holding = Holding(job.claim, self._clock.monotonic())
        with self._changed:
            self._held = holding
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f"lease-keeper-{job.claim.owner}")
                self._thread.start()
            elif self._idle:
                self._changed.notify()
        return holding

    def let_go(self) -> None:
        with self._changed:
            self._held = None

    def _run(self) -> None:
        lease = self.services.settings.lease_seconds
        while True:
            with self._changed:
                self._idle = True
                found = self._clock.wait_for(self._changed, self._keepable, lease)
                self._idle = False
                if not found:
                    self._thread = None  # idle for a lease: the next hold starts another
                    return
                holding = self._held
            if holding is not None:
                self._keep(holding, lease)

    def _keepable(self) -> bool:
        return self._held is not None and not self._held.lost.is_set()

    def _keep(self, holding: Holding, lease: float) -> None:
        # About when the lease runs out unless renewed (the database's clock decides; this
        # only tells the keeper when to stop hoping).
        clock = self._clock
        held_until = holding.since + lease
        wait = max(0.0, holding.since + renew_interval(lease) - clock.monotonic())
        while True:
            with self._changed:
                if clock.wait_for(self._changed, lambda: self._held is not holding, wait):
                    return  # the job ended (or another is in hand)
            sent = clock.monotonic()
            try:
                with self.services.db.transaction(write=True) as tx:
                    renewed = tx.claims.renew(holding.claim, lease)
            except Exception:  # a database blip: try again soon, while the lease lasts
                log.warning("lease renewal failed for %s", holding.claim.job_id, exc_info=True)
                if clock.monotonic() + RENEWAL_RETRY_SECONDS >= held_until:
                    return self._lose(holding, "no renewal succeeded before the lease ran out")
                wait = RENEWAL_RETRY_SECONDS
                continue
            if renewed is None:
                return self._lose(holding, "the lease was taken over or ran out")
            holding.claim, held_until, wait = renewed, sent + lease, renew_interval(lease)

    def _lose(self, holding: Holding, why: str) -> None:
        with self._changed:  # the job may have ended meanwhile: then nothing is stopped
            if self._held is not holding:
                return
            log.warning("job %s: lease lost (%s); stopping its work", holding.claim.job_id, why)
            metrics.LEASES_LOST.inc()
            holding.lost.set()
            if self._on_lost is not None:
                self._on_lost()  # cancelling an extraction only signals; it never blocks


class Shutdown:
    """SIGTERM or SIGINT for a worker process: never abandon the job in hand.

    The first signal stops claiming; a job in hand is finished if it ends within `grace`
    seconds, otherwise its extraction is cancelled and the job handed back (lease released,
    claimable at once by another worker). A second signal hands back at once.
    """

    def __init__(self, extractors: Sequence[Extractor], grace: float,
                 clock: Clock | None = None):
        self.stop = threading.Event()
        self._extractors = list(extractors)
        self._grace = grace
        self._clock = clock or SystemClock()
        self._cancel_timer: Callable[[], None] | None = None

    def request(self, *_signal: object) -> None:
        if self.stop.is_set():
            self.hand_back()
            return
        self.stop.set()
        self._cancel_timer = self._clock.call_later(self._grace, self.hand_back)

    def hand_back(self) -> None:
        for extractor in self._extractors:
            extractor.cancel()

    def done(self) -> None:
        if self._cancel_timer is not None:
            self._cancel_timer()


class Worker:
    def __init__(self, services: Services, name: str | None = None,
                 poll_interval: float = 0.25, *, extractor: Extractor | None = None):
        self.services = services
        self.clock = services.clock
        # Its own extractor when several workers share a process, so that losing one lease
        # cancels only that worker's extraction.
        self.extractor = extractor or services.extractor
        self.name = name or worker_name()
        self.poll_interval = poll_interval
        self._backoff = 0.0  # set after an outage of the object store or a throttled call
        self._disk_backoff = 0.0  # grows while the spool cannot be written
        self.throttled_in_a_row = 0  # the provider's answers, for its backoff
        self._stop = threading.Event()
        self._unsure_call: str | None = None  # a claim whose acknowledgement was lost
        self._spool: str | None = None
        self.keeper = LeaseKeeper(services, on_lost=self._stop_extraction)

    def run(self, stop: threading.Event) -> None:
        """Work until `stop` is set; the job in hand is finished or handed back, never abandoned.

        The worker keeps one pooled connection for all its statements, through the model call
        too: a checkout costs a ping, a round trip as dear as each of a job's two statements.
        A connection that broke meanwhile fails its statement, is given up, and the write is
        retried on a fresh checkout (`write`)."""
        self._stop = stop
        self._warm()
        wake = self.services.work_available
        try:
            with self.services.db.one_connection():
                while not stop.is_set():
                    self._work_or_wait(stop, wake)
        finally:
            if self._spool is not None:
                shutil.rmtree(self._spool, ignore_errors=True)

    def _work_or_wait(self, stop: threading.Event, wake: threading.Event) -> None:
        if not self.services.local_disk.writable():
            # Every job would fail here the same way: leave them to other workers, and look
            # again later (each look is a probe write).
            self._disk_backoff = min(max(self._disk_backoff * 2, DISK_BACKOFF_SECONDS),
                                     MAX_DISK_BACKOFF_SECONDS)
            self.clock.wait(stop, self._disk_backoff)
            return
        self._disk_backoff = 0.0
        worked = polling.turn(f"worker {self.name}", self.run_once, stop, self.clock)
        if self._backoff:
            self.clock.wait(stop, self._backoff)
            self._backoff = 0.0
        if not worked:
            self.clock.wait(wake, self.poll_interval)
            wake.clear()

    def back_off(self, seconds: float) -> None:
        """Pause this long before the next claim (the store is away, the provider throttles)."""
        self._backoff = max(self._backoff, seconds)

    def spool(self) -> str:
        """This worker's directory for the originals of its jobs, one file a job (made once:
        a directory made and removed for each job costs more than the job's two statements)."""
        if self._spool is None or not os.path.isdir(self._spool):
            self._spool = tempfile.mkdtemp(prefix="worker-", dir=self.services.settings.spool_dir)
            weakref.finalize(self, shutil.rmtree, self._spool, True)
        return self._spool

    def _warm(self) -> None:
        """Start the sandbox's fork server before the first claim: its preloading (the official
        rules, Tesseract's models) takes seconds that no job's lease, and no shutdown, should
        wait for."""
        try:
            self.extractor.warm(self._stop)
        except Exception:  # the first extraction starts it instead, only more slowly
            log.warning("worker %s: could not warm the sandbox", self.name, exc_info=True)

    def run_once(self) -> bool:
        opening = CallOpening(call_id=new_id("call"), operation=OPERATION,
                              **dispatch.opening(self.extractor, self.services.settings))
        job = self._claim(opening)
        if job is None:
            return False
        if isinstance(job, Exhausted):
            job_log.exhausted(job.job_id, opening.provider)
            self.services.job_endings.announce(job.job_id)
            return True
        holding = self.keeper.hold(job)
        attempt = Attempt(self, job, opening.of(job), holding)
        began = self.clock.monotonic()
        try:
            # The trace of the upload that created the job goes on here (tracing.py).
            with tracing.span("job attempt", parent=job.trace_context, job=job.claim.job_id,
                              invoice=job.invoice_id, attempt=job.attempts,
                              provider=opening.provider):
                attempt.run()
        except StoreUnavailable:
            raise  # the database is away: the lease runs out and the job is claimed again
        except Exception as exc:  # a bug: end the job and its call, never leave it running
            log.exception("job %s: unexpected error", job.claim.job_id)
            attempt.end_call(CallOutcome.FAILED)
            attempt.finish_failed("worker_error", f"{type(exc).__name__} in the worker")
        finally:
            self.keeper.let_go()
            if holding.lost.is_set():
                self._resume_extraction()
            self.services.job_endings.announce(job.claim.job_id)
            job_log.attempt_ended(attempt, self.clock.monotonic() - began)
        return True

    def _claim(self, opening: CallOpening) -> ClaimedJob | Exhausted | None:
        services = self.services
        unsure = self._unsure_call
        try:
            # One statement on PostgreSQL, unless an earlier claim must be undone with it.
            with services.db.transaction(write=True, single_statement=unsure is None) as tx:
                if unsure is not None:
                    # Our last claim may have committed unseen: hand any such job back.
                    tx.claims.release_owned(self.name, unsure)
                job = tx.claims.claim_and_start(self.name, services.settings.lease_seconds,
                                                self.extractor.versions.label, opening)
            self._unsure_call = None
            return job
        except StoreUnavailable:
            self._unsure_call = unsure or opening.call_id
            raise

    def _stop_extraction(self) -> None:
        self.extractor.cancel()

    def _resume_extraction(self) -> None:
        """After a lost lease stopped the extraction, take the next job (unless stopping)."""
        if not self._stop.is_set():
            self.extractor.resume()

    def write(self, action: Callable[[Transaction], T], *, single_statement: bool = False) -> T:
        """One short write transaction, retried through a database restart for up to a lease:
        an extraction already paid for is worth publishing, the fencing token makes a write
        that comes too late harmless, and every write is idempotent (a retry after a commit
        whose acknowledgement was lost changes nothing). `single_statement`: `action` makes
        one statement on PostgreSQL (engine.transaction)."""
        clock = self.clock
        deadline = clock.monotonic() + self.services.settings.lease_seconds
        delay = 0.1
        while True:
            try:
                with self.services.db.transaction(write=True,
                                                  single_statement=single_statement) as tx:
                    return action(tx)
            except StoreUnavailable as exc:
                if clock.monotonic() + delay > deadline:
                    raise
                log.warning("worker %s: database unavailable (%s); retrying a write",
                            self.name, polling.cause(exc))
                clock.sleep(delay)
                delay = min(delay * 2, 1.0)


class Attempt:
    """One claim of one job: fetch the original, one model call, then publish or fail."""

    def __init__(self, worker: Worker, job: ClaimedJob, call: Call, holding: Holding):
        self.worker, self.job, self.call, self.holding = worker, job, call, holding
        self.services = worker.services
        self.meter = dispatch.LedgerMeter(worker, call)
        self._call_ended = False
        self.outcome: CallOutcome | None = None  # how its call ended (job_log.py)
        self.error: str | None = None  # the code it failed (or went back) with

    def run(self) -> None:
        written: list[str] = []
        path: str | None = None
        try:
            if self.worker.extractor.needs_original:
                path = self._fetch(written)
                if path is None:
                    return
            metrics.model_call_started(self.call.cost)
            document = self._extract(path)
            # A shadow candidate reads the original: there is none without the fetch.
            if document is not None and self._publish(document) and path is not None:
                dispatch.shadow_compare(self, path, document)
        finally:
            for name in written:
                with contextlib.suppress(OSError):
                    os.unlink(name)

    def _fetch(self, written: list[str]) -> str | None:
        """The original in this worker's spool, named with the suffix of what its content is
        (PDF, image or XML), or None when the job ended or went back without it. `written`
        collects the files made, for removal."""
        try:
            if not self.job.storage_key:
                raise ObjectNotFound(self.job.content_hash)
            with local_disk.writing():
                raw = os.path.join(self.worker.spool(), self.job.claim.job_id)
            written.append(raw)
            with local_disk.SpoolFile(raw) as f:
                fetch_original(self.services.store, self.job.storage_key,
                               self.job.content_hash, f)
            path = raw + detect_file(raw).suffix
            with local_disk.writing():
                os.rename(raw, path)
            written.append(path)
            return path
        except local_disk.WriteFailed as exc:
            # This worker's disk, not the job: unbilled, back to the queue at once for another
            # worker, and this one claims nothing until it can write again.
            self.services.local_disk.failed(exc.why)
            self._not_started("spool_unavailable", f"the worker could not write the original "
                              f"to its spool: {exc.why}")
        except ObjectNotFound:
            self.end_call(CallOutcome.UNSTARTED)  # the claim opened it; no model saw anything
            self._lose_original(damaged=False)
            self.finish_failed("original_missing", "the stored original could not be found")
        except CorruptOriginal as exc:
            # The store holds other bytes than were uploaded under this hash: no attempt will
            # read the right ones, and no model is shown the wrong ones.
            log.error("job %s: %s", self.job.claim.job_id, exc)
            self.end_call(CallOutcome.UNSTARTED)
            self._lose_original(damaged=True)
            self.finish_failed("original_corrupt", "the stored original is damaged: its bytes "
                               "do not match the uploaded file's content hash")
        except StorageUnavailable as exc:
            self.end_call(CallOutcome.UNSTARTED)
            # The store is away, not something wrong with this job: it waits for the store
            # however long that takes, and this worker pauses before claiming again.
            self.worker.back_off(STORAGE_BACKOFF_SECONDS)
            self._release(after=STORAGE_BACKOFF_SECONDS, error=("storage_unavailable", str(exc)),
                          refund_attempt=True)
        return None

    def _lose_original(self, *, damaged: bool) -> None:
        """The store does not hold the uploaded bytes: the original's row stops vouching for
        them, so that the next upload of the file stores it again and its job can succeed,
        instead of trusting the row and failing the same way. Damaged bytes are deleted while
        the row is held, before an upload can write the right ones: nobody downloads them.
        Should this not get through, the job fails all the same; the next one tries again."""
        job = self.job
        try:
            with self.services.db.transaction(write=True) as tx:
                key = tx.arrival.mark_blob_lost(job.account, job.content_hash)
                if key and damaged:
                    self.services.store.delete(key)
        except (StoreUnavailable, StorageUnavailable) as exc:
            log.warning("job %s: the lost original could not be forgotten: %s",
                        job.claim.job_id, exc)

    def _extract(self, path: str | None) -> dict | None:
        extractor = self.worker.extractor
        context = CallContext(job_id=self.job.claim.job_id, storage_key=self.job.storage_key,
                              meter=self.meter)
        try:
            document = metrics.timed_extraction(dispatch.run, extractor, path,
                                                self.job.content_hash, context)
            self.worker.throttled_in_a_row = 0
            return conform(document, content_hash=self.job.content_hash,
                           versions=extractor.versions)
        except Throttled as exc:
            self.end_call(CallOutcome.THROTTLED)
            self._throttled(exc)
        except Cancelled as exc:
            self.end_call(CallOutcome.UNSTARTED if exc.before_start else CallOutcome.CANCELLED)
            self._after_cancel(started=not exc.before_start)
        except Refused as exc:
            self.end_call(CallOutcome.REFUSED)
            self.finish_failed(exc.code, exc.message)
        except CannotStart as exc:
            # No process to extract in (out of processes or descriptors): no model call
            # happened, and another worker may have room.
            self.worker.back_off(SANDBOX_BACKOFF_SECONDS)
            self._not_started(exc.code, exc.message)
        except ExtractionError as exc:
            self.end_call(CallOutcome.FAILED)
            self.finish_failed(exc.code, exc.message, transient=exc.transient)
        except Exception as exc:  # a bug or a crash in the parser: fail, do not loop
            log.exception("extraction crashed on job %s", self.job.claim.job_id)
            self.end_call(CallOutcome.FAILED)
            self.finish_failed("extraction_error", type(exc).__name__)
        return None

    def _not_started(self, code: str, message: str) -> None:
        """A local failure before the model call: not a model call (cost 0, the attempt
        refunded), and the job back in the queue at once."""
        self.end_call(CallOutcome.UNSTARTED)
        self._release(after=0.0, error=(code, message), refund_attempt=True)
        log.warning("job %s handed back unstarted: %s", self.job.claim.job_id, message)

    def _throttled(self, exc: Throttled) -> None:
        """Not the invoice's fault: the job goes back to the queue after the provider's backoff
        (its attempt refunded), and this worker pauses as long before claiming again."""
        self.worker.throttled_in_a_row += 1
        delay = throttle_delay(self.worker.throttled_in_a_row, exc.retry_after)
        self.worker.back_off(delay)
        self._release(after=delay, error=(exc.code, exc.message), refund_attempt=True)
        log.info("job %s: provider throttled; retrying in %.1f s", self.job.claim.job_id, delay)

    def _after_cancel(self, *, started: bool) -> None:
        if self.holding.lost.is_set():  # the lease is gone: the job is another worker's now
            return
        # Shutting down: back to the queue, not to failed; an attempt that never started the
        # extraction does not count against the job's attempts.
        self._release(after=0.0, refund_attempt=not started)
        log.info("job %s handed back on shutdown", self.job.claim.job_id)

    def _publish(self, document: dict) -> bool:
        """Publish and end the call in one transaction (the outcome follows the publish)."""
        result_id = new_id("res")
        record = self.services.settings.cache_mode.records_results

        def publish_and_end_call(tx: Transaction) -> bool:
            return tx.claims.publish_and_finish(self.job, self.call, document,
                                                result_id=result_id, record_in_cache=record,
                                                progress=self._progress())

        try:
            published = self.worker.write(publish_and_end_call, single_statement=True)
        except StoreUnavailable:
            raise
        except Exception as exc:  # the database refused the result itself
            log.exception("job %s: the result could not be stored", self.job.claim.job_id)
            self.end_call(CallOutcome.FAILED)
            self.finish_failed("result_unstorable", f"{type(exc).__name__} storing the result")
            return False
        self._count_end(CallOutcome.PUBLISHED if published else CallOutcome.DISCARDED)
        if not published:
            metrics.PUBLISHES_REJECTED.inc()
            log.warning("job %s: lease lost; result discarded (token %s)",
                        self.job.claim.job_id, self.job.claim.token)
        return published

    def end_call(self, outcome: CallOutcome) -> None:
        if self._call_ended:
            return
        self._count_end(outcome)
        self.worker.write(lambda tx: tx.ledger.finish_call(
            self.call.call_id, outcome, call=self.call, progress=self._progress()))

    def _count_end(self, outcome: CallOutcome) -> None:
        self._call_ended = True
        self.outcome = outcome
        metrics.MODEL_CALLS.labels(outcome.value).inc()
        progress = self._progress()
        if progress is not None and outcome.billed:
            metrics.MODEL_COST.inc(float(progress.cost))

    def _progress(self) -> Progress | None:
        """The provider's latest counts for this call (tokens, pages, cost), if it reports any."""
        return self.meter.latest

    def finish_failed(self, code: str, message: str, *, transient: bool = False) -> None:
        self.error = code
        attempts = self.job.attempts
        if should_retry(attempts, transient):
            self._release(after=retry_delay(attempts), error=(code, message))
        else:
            self.worker.write(lambda tx: tx.claims.fail(self.job.claim, code, message))

    def _release(self, *, after: float, error: tuple[str, str] | None = None,
                 refund_attempt: bool = False) -> None:
        if error is not None:
            self.error = error[0]
        self.worker.write(lambda tx: tx.claims.release(
            self.job.claim, after_seconds=after, error=error, refund_attempt=refund_attempt))
