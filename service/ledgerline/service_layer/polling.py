"""One turn of a worker's polling loop: an outage of the database or a bug in one turn is
logged and waited out, never the end of the loop."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy.exc import OperationalError

log = logging.getLogger(__name__)

DATABASE_BACKOFF_SECONDS = 1.0


def turn(name: str, run_once: Callable[[], bool], stop: threading.Event) -> bool:
    """`run_once()`: whether it did some work; False, after a pause, when it raised."""
    try:
        return run_once()
    except OperationalError as exc:  # the database is away: wait, then reconnect
        log.warning("%s: database unavailable (%s); retrying", name, type(exc.orig).__name__)
    except Exception:
        log.exception("%s: unexpected error; backing off", name)
    stop.wait(DATABASE_BACKOFF_SECONDS)
    return False
