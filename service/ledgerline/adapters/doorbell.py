"""A doorbell between the processes that share one SQLite database, for "job ended".

SQLite has no LISTEN/NOTIFY, and on the embedded default the worker that ends a job often
runs in another gunicorn process than the request waiting for it. Each listening process binds
a Unix datagram socket in a directory named after the database file; ringing sends the job id
to every socket there. A socket whose process died refuses the datagram and is removed by the
ring that found it. Hand-written because no library offers a cross-process notification for
SQLite; it is a directory and one datagram per listener.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)
MAX_PAYLOAD = 256
BIND_ATTEMPTS = 3
SEND_TIMEOUT_SECONDS = 0.5  # a listener too busy to take a datagram is not worth more


class Doorbell:
    def __init__(self, directory: Path):
        self.directory = directory
        self._sender: socket.socket | None = None
        self._receiver: socket.socket | None = None
        self._address: Path | None = None
        self._lock = threading.Lock()

    @classmethod
    def for_database(cls, database_path: str) -> Doorbell:
        # Under the temporary directory (socket paths are limited to about 100 bytes), named
        # by the database's absolute path, so that exactly its users share it.
        digest = hashlib.sha256(os.path.abspath(database_path).encode()).hexdigest()[:16]
        return cls(Path(tempfile.gettempdir()) / f"ledgerline-doorbell-{digest}")

    def listen(self, on_ring: Callable[[str], None]) -> None:
        """Bind this process's socket and hand every job id rung to `on_ring`, in a thread."""
        self._address = self.directory / f"{os.getpid()}-{secrets.token_hex(4)}"
        self._receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        for attempt in range(BIND_ATTEMPTS):
            self.directory.mkdir(mode=0o700, exist_ok=True)
            try:
                self._receiver.bind(str(self._address))
                break
            except FileNotFoundError:  # the last other listener just removed the directory
                if attempt == BIND_ATTEMPTS - 1:
                    raise
        threading.Thread(target=self._receive, args=(self._receiver, on_ring), daemon=True,
                         name="doorbell").start()

    def ring(self, job_id: str) -> None:
        """Tell every listening process; never raises (a lost ring costs a wait its timeout)."""
        payload = job_id.encode()[:MAX_PAYLOAD]
        try:
            listeners = list(self.directory.iterdir())
        except FileNotFoundError:
            return  # nobody ever listened
        with self._lock:
            if self._sender is None:
                self._sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                self._sender.settimeout(SEND_TIMEOUT_SECONDS)
            for address in listeners:
                try:
                    self._sender.sendto(payload, str(address))
                except (ConnectionRefusedError, FileNotFoundError):
                    with contextlib.suppress(OSError):
                        address.unlink()  # its process is gone
                except OSError as exc:
                    log.warning("doorbell: could not ring %s: %s", address.name, exc)

    def close(self) -> None:
        """Stop ringing and listening: an empty datagram ends the receiving thread."""
        with self._lock:
            if self._sender is not None:
                self._sender.close()
                self._sender = None
        receiver, self._receiver = self._receiver, None
        if receiver is None:
            return
        with contextlib.suppress(OSError):
            receiver.sendto(b"", str(self._address))
        with contextlib.suppress(OSError):
            self._address.unlink()
        with contextlib.suppress(OSError):
            self.directory.rmdir()  # the last listener leaves no directory behind

    @staticmethod
    def _receive(sock: socket.socket, on_ring: Callable[[str], None]) -> None:
        with sock:
            while payload := sock.recv(MAX_PAYLOAD):
                on_ring(payload.decode(errors="replace"))
