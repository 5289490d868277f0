"""One turn of a worker's polling loop: an outage of the database or a bug in one turn is
logged and waited out, never the end of the loop."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy.exc import OperationalError

from ..ports.clock import Clock, SystemClock
from ..ports.database import StoreUnavailable

log = logging.getLogger(__name__)

DATABASE_BACKOFF_SECONDS = 1.0


def turn(name: str, run_once: Callable[[], bool], stop: threading.Event,
         clock: Clock | None = None) -> bool:
    """`run_once()`: whether it did some work; False, after a pause, when it raised.

    The database is away when a port says so (StoreUnavailable), or when a loop that talks
    SQL without a port yet (webhook deliveries) meets SQLAlchemy's OperationalError."""
    try:
        return run_once()
    except (StoreUnavailable, OperationalError) as exc:  # wait, then reconnect
        log.warning("%s: database unavailable (%s); retrying", name, cause(exc))
    except Exception:
        log.exception("%s: unexpected error; backing off", name)
    (clock or SystemClock()).wait(stop, DATABASE_BACKOFF_SECONDS)
    return False


def cause(exc: Exception) -> str:
    """The driver's name for an outage (OperationalError's `orig`, behind the port's error)."""
    orig = getattr(exc, "orig", None) or getattr(exc.__cause__, "orig", None)
    return type(orig or exc.__cause__ or exc).__name__
