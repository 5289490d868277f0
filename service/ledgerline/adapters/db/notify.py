"""Notifications between processes on PostgreSQL (LISTEN/NOTIFY).

Two channels, each sent inside the transaction whose commit it announces, so a notification
never arrives before what it tells of is visible:

- `ledgerline_new_job`: an API process recorded a job needing extraction. Worker processes
  wake at once instead of at their next poll of the job table; polling stays as their safety
  net (a notification lost to a reconnect costs at most one poll interval).
- `ledgerline_job_ended` (payload: the job id): a worker completed or failed a job. API
  processes holding a `Prefer: wait` for it answer at once (adapters/job_endings.py).

SQLite has a single writer and no such channel: only the PostgreSQL modules call these.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import Connection, Engine, func, literal, select

log = logging.getLogger(__name__)
NEW_JOB = "ledgerline_new_job"
JOB_ENDED = "ledgerline_job_ended"
RECONNECT_SECONDS = 1.0
# How often a quiet listener looks at its stop event.
STOP_CHECK_SECONDS = 1.0


def new_job_notice():
    """A query that wakes listening workers once its transaction commits: for the statement
    that records the job (postgresql/arrival.py)."""
    return select(func.pg_notify(NEW_JOB, literal("")).label("sent"))


def announce_job_ended(conn: Connection, job_id: str) -> None:
    """Inside the transaction that ends the job: wake the requests waiting for it, on commit."""
    conn.execute(select(func.pg_notify(JOB_ENDED, job_id)))


def job_ended_notice(job_id):
    """announce_job_ended as a query, for a PostgreSQL statement that ends the job itself
    (`job_id` a column of it: one notification per row)."""
    return select(func.pg_notify(JOB_ENDED, job_id).label("sent"))


class Listener(threading.Thread):
    """LISTENs on one channel on a connection of its own and hands each payload to
    `on_message`; `on_listening` runs on every (re)connect, when notifications may have been
    missed. Reconnects by itself after an outage, until `stop` is set."""

    def __init__(self, engine: Engine, channel: str, *, on_message: Callable[[str], None],
                 on_listening: Callable[[], None], stop: threading.Event):
        super().__init__(daemon=True, name=f"listen-{channel}")
        self.url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.channel, self.stop = channel, stop
        self.on_message, self.on_listening = on_message, on_listening

    @classmethod
    def wake_workers(cls, engine: Engine, wake: threading.Event,
                     stop: threading.Event) -> Listener:
        """A worker process's listener for new jobs."""
        listener = cls(engine, NEW_JOB, on_message=lambda _payload: wake.set(),
                       on_listening=wake.set, stop=stop)
        listener.start()
        return listener

    def run(self) -> None:
        import psycopg

        while not self.stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {self.channel}")
                    self.on_listening()  # anything announced while we were not listening
                    while not self.stop.is_set():
                        for note in conn.notifies(timeout=STOP_CHECK_SECONDS, stop_after=64):
                            self.on_message(note.payload)
            except psycopg.Error as exc:
                log.warning("listener on %s: %s; reconnecting", self.channel,
                            type(exc).__name__)
                self.stop.wait(RECONNECT_SECONDS)
