"""Waiting for a job to end, without polling.

A `Prefer: wait` request watches the job doing its invoice's work, and whatever ends that job
tells the waiting process:

- a worker in the same process, right after the write that ended the job committed (the
  embedded default, and tests);
- on PostgreSQL, `NOTIFY ledgerline_job_ended, '<job id>'`, sent inside the transaction that
  ended the job (so it leaves only on commit) and heard by one LISTEN connection per process;
- on SQLite, a datagram to every process sharing the database file (adapters/doorbell.py),
  rung by the worker after its commit.

A notification only says "look now": the waiter reads the status again before it answers.
Whenever the cross-process channel (re)connects, and so may have missed a notification, every
waiter is woken to look once.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator

from sqlalchemy import Engine, event

from .db.engine import sqlite_path
from .db.notify import JOB_ENDED, Listener
from .doorbell import Doorbell

log = logging.getLogger(__name__)


class JobEndings:
    """Who in this process waits for which job, and the channel that tells them across
    processes (started by the first wait, so that a process that never waits never listens)."""

    def __init__(self, engine: Engine | None, *, notified: bool = False):
        """`engine`: the database whose jobs are watched (None: only this process's);
        `notified`: it announces their ends itself (PostgreSQL's NOTIFY)."""
        self._engine = engine
        self._lock = threading.Lock()
        self._watchers: dict[str, set[threading.Event]] = {}
        self._stop = threading.Event()
        self._channel: Listener | Doorbell | None = None
        self._listens = notified
        database = sqlite_path(str(engine.url)) if engine is not None else None
        self._doorbell = Doorbell.for_database(database) if database else None
        if engine is not None:
            event.listen(engine, "engine_disposed", lambda _engine: self.close())

    @contextlib.contextmanager
    def watch(self, job_id: str) -> Iterator[threading.Event]:
        """An event set when `job_id` may have ended; clear it before each look."""
        watching = self.start_watching(job_id)
        try:
            yield watching.ended
        finally:
            watching.close()

    def listen(self) -> None:
        """Open the channel from other processes now (it is opened by the first watch
        otherwise). Opening it starts a listener and may yield to other requests: an upload
        that will watch inside its transaction listens before the transaction begins, since
        on SQLite another request's write then waits for the lock in C, holding up every
        request of the process, while the transaction that holds the lock cannot go on."""
        self._open_channel()

    def start_watching(self, job_id: str) -> Watching:
        """`watch` for a caller that closes it itself: an upload that starts watching its job
        before the transaction that records it commits, so that no end can come unseen. Only
        a look-up under a lock once `listen` has run: nothing here yields."""
        self._open_channel()
        watching = Watching(self, job_id)
        with self._lock:
            self._watchers.setdefault(job_id, set()).add(watching.ended)
        return watching

    def _stop_watching(self, job_id: str, ended: threading.Event) -> None:
        with self._lock:
            watchers = self._watchers.get(job_id)
            if watchers is None:
                return
            watchers.discard(ended)
            if not watchers:
                del self._watchers[job_id]

    def announce(self, job_id: str) -> None:
        """After the write that ended `job_id` committed: tell this process's waiters, and on
        SQLite the other processes' (PostgreSQL's NOTIFY went with the commit itself). Then
        yield once, so that a request of this process waiting for the job answers before the
        announcer goes on: under gevent (the embedded worker beside the API) nothing else runs
        until the worker blocks, and its next claim's statements on SQLite never do."""
        self.ended(job_id)
        if self._doorbell is not None:
            self._doorbell.ring(job_id)
        time.sleep(0)  # a yield, not a wait: not the clock's

    def ended(self, job_id: str) -> None:
        with self._lock:
            for watcher in self._watchers.get(job_id, ()):
                watcher.set()

    def wake_all(self) -> None:
        with self._lock:
            for watchers in self._watchers.values():
                for watcher in watchers:
                    watcher.set()

    def close(self) -> None:
        self._stop.set()
        if self._doorbell is not None:
            self._doorbell.close()

    def _open_channel(self) -> None:
        if self._channel is not None or self._stop.is_set():
            return
        with self._lock:
            if self._channel is not None:
                return
            if self._listens and self._engine is not None:
                self._channel = Listener(self._engine, JOB_ENDED, on_message=self.ended,
                                         on_listening=self.wake_all, stop=self._stop)
                self._channel.start()
            elif self._doorbell is not None:
                try:
                    self._doorbell.listen(self.ended)
                except OSError as exc:  # waits still end: in-process news, or their timeout
                    log.warning("doorbell: cannot listen (%s); only this process's worker "
                                "can end a wait early", exc)
                self._channel = self._doorbell


class Watching:
    """One watch of a job's end (JobEndings.start_watching); `ended` is set when it may have
    ended. Closing it twice is harmless."""

    def __init__(self, endings: JobEndings, job_id: str):
        self.job_id = job_id
        self.ended = threading.Event()
        self._endings = endings

    def close(self) -> None:
        self._endings._stop_watching(self.job_id, self.ended)
