"""Time and waiting, behind one small interface so that a test can move time instead of
sleeping through it.

Every timer of the service layer (the lease keeper, a worker's backoff and retried writes, a
shutdown's grace) reads and waits through a `Clock`. `SystemClock` is the process's own: the
monotonic clock for intervals, UTC for dates. Leases themselves are decided by the database's
clock (adapters/db/clock.py); this one only tells a process when to look again.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, UTC."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary start, never going back: for intervals and deadlines."""

    def sleep(self, seconds: float) -> None: ...

    def wait(self, event: threading.Event, timeout: float | None) -> bool:
        """Wait until `event` is set or `timeout` seconds passed; whether it is set."""

    def wait_for(self, condition: threading.Condition, predicate: Callable[[], bool],
                 timeout: float | None) -> bool:
        """`condition.wait_for` (the caller holds the condition): until `predicate()` or
        `timeout` seconds passed; the predicate's last value."""

    def call_later(self, seconds: float, action: Callable[[], None]) -> Callable[[], None]:
        """Run `action` on a thread of its own after `seconds`; returns what cancels it."""


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def wait(self, event: threading.Event, timeout: float | None) -> bool:
        return event.wait(timeout)

    def wait_for(self, condition: threading.Condition, predicate: Callable[[], bool],
                 timeout: float | None) -> bool:
        return condition.wait_for(predicate, timeout)

    def call_later(self, seconds: float, action: Callable[[], None]) -> Callable[[], None]:
        timer = threading.Timer(seconds, action)
        timer.daemon = True
        timer.start()
        return timer.cancel
