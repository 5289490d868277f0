"""A real webhook receiver on loopback that can misbehave: answer 500, answer too late, drop
the connection, redirect, hold a request until told to let go, hang without answering, drip
its status line or its body a byte at a time, or speak TLS with a certificate nobody trusts.
It records every request (when it came and when the receiver was done with it) and verifies
signatures with the `standardwebhooks` library, as a real receiver would. `silent_listener`
accepts connections and never says a word (a TLS handshake that never ends);
`closed_port` is a port where nothing listens.

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
HANG, DRIP, SLOW_BODY = "hang", "drip", "slow-body"


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes
    at: float                    # monotonic
    answered: str                # what the receiver did
    verified: bool | None = None  # the signature checked out (None: no secret known)
    ended: float | None = None   # monotonic: when the receiver was done with the request
    verified_by: tuple = ()      # which of `Receiver.secrets` verify it

    @property
    def event(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    host: str = "127.0.0.1"
    secret: str | None = None
    slow_seconds: float = 5.0
    drip_seconds: float = 0.3    # between two bytes of a dripped answer
    secrets: tuple = ()          # secrets to try one by one (a rotation's old and new)
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
            item.verified = _verifies(self.secret, item)
        item.verified_by = tuple(s for s in self.secrets if _verifies(s, item))
        with self._lock:
            self.received.append(item)

    def delivered(self) -> list[Received]:
        """The requests answered 2xx."""
        with self._lock:
            return [r for r in self.received if r.answered == OK]


def _verifies(secret: str, item: Received) -> bool:
    try:
        Webhook(secret).verify(item.body, item.headers)
        return True
    except WebhookVerificationError:
        return False


def _handler(receiver: Receiver):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            action = receiver.next_action(self.path)
            item = Received(self.path, dict(self.headers), body, time.monotonic(), action)
            receiver.record(item)
            try:
                self._act(action)
            finally:
                item.ended = time.monotonic()

        def _act(self, action):
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
            elif action == HANG:  # read the request, never answer
                receiver.released.wait(60)
                self.close_connection = True
            elif action == DRIP:  # the status line, a byte at a time
                self._drip(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nthanks")
                self.close_connection = True
            elif action == SLOW_BODY:  # status and headers at once, then the body dripped
                with contextlib.suppress(OSError):
                    self.send_response(200)
                    self.send_header("Content-Length", "600")
                    self.end_headers()
                    self.wfile.flush()
                self._drip(b"x" * 600)
                self.close_connection = True
            elif action == FAIL:
                self._answer(500, b"receiver broke")
            else:
                self._answer(200, b"thanks")

        def _drip(self, data: bytes):
            with contextlib.suppress(OSError):
                for byte in data:
                    if receiver.released.wait(receiver.drip_seconds):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()

        def _answer(self, status, text):
            with contextlib.suppress(OSError):
                self.send_response(status)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

    return Handler


@contextlib.contextmanager
def receiving(receiver: Receiver, tls=None):
    """Serve `receiver` on a free port of its host (over TLS with the server context `tls`);
    yields its base URL."""
    server = ThreadingHTTPServer((receiver.host, 0), _handler(receiver))
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    scheme = "https" if tls is not None else "http"
    try:
        yield f"{scheme}://{receiver.host}:{server.server_address[1]}"
    finally:
        receiver.released.set()
        server.shutdown()
        server.server_close()


def untrusted_tls():
    """A server context whose certificate (for 127.0.0.1) no default trust store knows."""
    import ssl

    import trustme

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert("127.0.0.1").configure_cert(context)
    return context


@contextlib.contextmanager
def silent_listener(host: str = "127.0.0.1"):
    """A port that accepts connections and never sends a byte; yields its base URL."""
    listener = socket.create_server((host, 0))
    held, stop = [], threading.Event()

    def accept():
        listener.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"{host}:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def closed_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]
