"""A clock that moves only when a test moves it (ports/clock.py's interface).

A thread that waits through it (the lease keeper, a worker's backoff) sleeps until the test
calls `advance` past its deadline, or until what it waits for happens. `waiting(n)` returns
once n threads have come to wait since time last moved: an `advance` then finds them waiting,
so a test knows which wait a move of time ends.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

EVENT_POLL_SECONDS = 0.005  # how often a wait on an Event looks at it (real time)
START = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)


class ManualClock:
    def __init__(self, start: datetime = START):
        self._start = start
        self._elapsed = 0.0
        self._moved = threading.Condition()
        self._conditions: set[threading.Condition] = set()
        self._moves = 0  # how often time moved
        self._waiting: dict[int, int] = {}  # threads waiting, by the move they began after
        self._timers: list[tuple[float, Callable[[], None], threading.Event]] = []

    # --- the Clock interface --------------------------------------------------------------

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self._elapsed)

    def monotonic(self) -> float:
        return self._elapsed

    def sleep(self, seconds: float) -> None:
        self.wait(threading.Event(), seconds)

    def wait(self, event: threading.Event, timeout: float | None) -> bool:
        deadline = None if timeout is None else self._elapsed + timeout
        with self._moved:
            began = self._began()
            try:
                while not event.is_set() and (deadline is None or self._elapsed < deadline):
                    self._moved.wait(EVENT_POLL_SECONDS)
            finally:
                self._waiting[began] -= 1
        return event.is_set()

    def wait_for(self, condition: threading.Condition, predicate: Callable[[], bool],
                 timeout: float | None) -> bool:
        """The caller holds `condition`; `advance` notifies it, so the wait ends at once."""
        deadline = None if timeout is None else self._elapsed + timeout
        with self._moved:
            self._conditions.add(condition)
            began = self._began()
        try:
            condition.wait_for(
                lambda: predicate() or (deadline is not None and self._elapsed >= deadline))
            return predicate()
        finally:
            with self._moved:
                self._waiting[began] -= 1
                self._conditions.discard(condition)

    def _began(self) -> int:
        """Count a thread that starts waiting now (the caller holds `_moved`)."""
        self._waiting[self._moves] = self._waiting.get(self._moves, 0) + 1
        self._moved.notify_all()
        return self._moves

    def call_later(self, seconds: float, action: Callable[[], None]) -> Callable[[], None]:
        cancelled = threading.Event()
        with self._moved:
            self._timers.append((self._elapsed + seconds, action, cancelled))
        return cancelled.set

    # --- what a test does -----------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Move time on; every wait whose deadline passed ends, every timer due runs (here)."""
        with self._moved:
            self._elapsed += seconds
            self._moves += 1
            due = [t for t in self._timers if t[0] <= self._elapsed]
            self._timers = [t for t in self._timers if t[0] > self._elapsed]
            conditions = list(self._conditions)
            self._moved.notify_all()
        for condition in conditions:
            with condition:
                condition.notify_all()
        for _at, action, cancelled in due:
            if not cancelled.is_set():
                action()

    def waiting(self, threads: int = 1, timeout: float = 10.0) -> None:
        """Return once at least `threads` threads began to wait in this clock since time last
        moved, and wait still (a failure after `timeout` seconds of real time)."""
        with self._moved:
            if not self._moved.wait_for(
                    lambda: self._waiting.get(self._moves, 0) >= threads, timeout):
                raise AssertionError(f"{threads} thread(s) never came to wait on the clock")
