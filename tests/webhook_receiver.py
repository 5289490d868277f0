"""A real webhook receiver on loopback that can misbehave: answer 500, answer too late, drop
the connection, redirect, or hold a request until told to let go. It records every request
and verifies signatures with the `standardwebhooks` library, as a real receiver would.

No pytest import: the production tests and the integration tests both use it.
"""
from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook, WebhookVerificationError

OK, FAIL, SLOW, DROP, HOLD = "ok", "500", "slow", "drop", "hold"


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes
    at: float                    # monotonic
    answered: str                # what the receiver did
    verified: bool | None = None  # the signature checked out (None: no secret known)

    @property
    def event(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    host: str = "127.0.0.1"
    secret: str | None = None
    slow_seconds: float = 5.0
    # What to do with the n-th request (0-based); past the plan, `default`.
    plan: list = field(default_factory=list)
    default: str = OK
    received: list = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    holding: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_action(self, path: str) -> str:
        with self._lock:
            n = len(self.received)
        if path.startswith("/redirect-to/"):
            return "redirect"
        return self.plan[n] if n < len(self.plan) else self.default

    def record(self, item: Received) -> None:
        if self.secret:
            try:
                Webhook(self.secret).verify(item.body, item.headers)
                item.verified = True
            except WebhookVerificationError:
                item.verified = False
        with self._lock:
            self.received.append(item)

    def delivered(self) -> list[Received]:
        """The requests answered 2xx."""
        with self._lock:
            return [r for r in self.received if r.answered == OK]


def _handler(receiver: Receiver):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            action = receiver.next_action(self.path)
            receiver.record(Received(self.path, dict(self.headers), body, time.monotonic(),
                                     action))
            if action == "redirect":
                self.send_response(307)
                self.send_header("Location", self.path.removeprefix("/redirect-to/")
                                 .replace("~", "/"))
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif action == DROP:
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
            elif action == SLOW:
                time.sleep(receiver.slow_seconds)
                self._answer(200, b"too late")
            elif action == HOLD:
                receiver.holding.set()
                receiver.released.wait(60)
                self._answer(200, b"held")
            elif action == FAIL:
                self._answer(500, b"receiver broke")
            else:
                self._answer(200, b"thanks")

        def _answer(self, status, text):
            with contextlib.suppress(OSError):
                self.send_response(status)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

    return Handler


@contextlib.contextmanager
def receiving(receiver: Receiver):
    """Serve `receiver` on a free port of its host; yields its base URL."""
    server = ThreadingHTTPServer((receiver.host, 0), _handler(receiver))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{receiver.host}:{server.server_address[1]}"
    finally:
        receiver.released.set()
        server.shutdown()
        server.server_close()
