"""Whether this process can write its spool (LEDGERLINE_SPOOL_DIR), where uploads stream and
workers fetch originals.

A write that fails there (a full disk, a quota, a directory gone) is this server's trouble, not
the client's nor the invoice's: the upload gets a 503, a job goes back to the queue unbilled
for another worker, and the process says so in `/readyz` (`spool`) until a probe write
succeeds again. The probe writes PROBE_BYTES, more than most invoices, so "ready" means an
ordinary upload fits.
"""
from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import threading

log = logging.getLogger(__name__)
PROBE_BYTES = 1 << 20
_BLOCK = b"\0" * (64 * 1024)


class WriteFailed(Exception):
    """A write to this process's own disk failed (`__cause__`: the OSError)."""

    @property
    def why(self) -> str:
        cause = self.__cause__
        if isinstance(cause, OSError) and cause.errno:
            return os.strerror(cause.errno)
        return type(cause).__name__


@contextlib.contextmanager
def writing():
    """Around writes to the spool: an OSError there is WriteFailed, told apart from the
    errors of whatever is read (the object store, a request body)."""
    try:
        yield
    except OSError as exc:
        raise WriteFailed() from exc


class SpoolFile:
    """A file being written in the spool, whose every write (and the close that flushes it)
    raises WriteFailed rather than OSError."""

    def __init__(self, path: str):
        with writing():
            self._file = open(path, "wb")  # noqa: SIM115 - closed by close(), which maps its errors

    def write(self, data) -> int:
        with writing():
            return self._file.write(data)

    def close(self) -> None:
        with writing():
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.close()
        else:
            with contextlib.suppress(OSError):
                self._file.close()


class LocalDisk:
    def __init__(self, directory: str | None):
        self.directory = directory
        self._trouble: str | None = None
        self._lock = threading.Lock()

    @property
    def trouble(self) -> str | None:
        """Why the last write failed, until a probe succeeded; None when all is well."""
        return self._trouble

    def failed(self, why: str) -> None:
        if self._trouble is None:
            log.warning("the spool %s cannot be written (%s): not ready until it can",
                        self.directory or tempfile.gettempdir(), why)
        self._trouble = why

    def writable(self) -> bool:
        """True when no write failed since the last probe, or a probe write succeeds now."""
        if self._trouble is None:
            return True
        with self._lock:
            if self._trouble is None:
                return True
            try:
                fd, path = tempfile.mkstemp(prefix="probe-", dir=self.directory)
                try:
                    with os.fdopen(fd, "wb") as f:
                        for _ in range(PROBE_BYTES // len(_BLOCK)):
                            f.write(_BLOCK)
                        f.flush()
                        os.fsync(f.fileno())
                finally:
                    os.unlink(path)
            except OSError as exc:
                self._trouble = os.strerror(exc.errno) if exc.errno else type(exc).__name__
                return False
            log.info("the spool %s can be written again", self.directory or tempfile.gettempdir())
            self._trouble = None
            return True
