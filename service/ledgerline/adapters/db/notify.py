"""New-work notifications between processes on PostgreSQL (LISTEN/NOTIFY).

An API process that records a job needing extraction sends NOTIFY in the same transaction, so
the notification leaves only when the job is committed. Worker processes LISTEN on a connection
of their own and wake at once, instead of at their next poll of the job table. Polling stays as
the safety net: a lost notification (a reconnect, a restart) costs at most one poll interval.
SQLite has a single writer and no such channel; there nothing is sent and nothing listens.
"""
from __future__ import annotations

import logging
import threading

from sqlalchemy import Connection, Engine

log = logging.getLogger(__name__)
CHANNEL = "ledgerline_new_job"


def announce_new_job(conn: Connection) -> None:
    """Inside the transaction that records the job: wake listening workers on commit."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"NOTIFY {CHANNEL}")


class NewJobListener(threading.Thread):
    """Sets `wake` whenever a job is announced; reconnects by itself after an outage."""

    def __init__(self, engine: Engine, wake: threading.Event, stop: threading.Event):
        super().__init__(daemon=True, name="new-job-listener")
        self.url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.wake, self.stop = wake, stop

    @classmethod
    def start_for(cls, engine: Engine, wake: threading.Event,
                  stop: threading.Event) -> NewJobListener | None:
        if engine.dialect.name != "postgresql":
            return None
        listener = cls(engine, wake, stop)
        listener.start()
        return listener

    def run(self) -> None:
        import psycopg

        while not self.stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.wake.set()  # anything announced while we were not listening
                    while not self.stop.is_set():
                        for _ in conn.notifies(timeout=1.0, stop_after=1):
                            self.wake.set()
            except psycopg.Error as exc:
                log.warning("new-job listener: %s; reconnecting", type(exc).__name__)
                self.stop.wait(1.0)
