"""What both stand-ins share: a threaded HTTP server, a plan of faults, and the tally of what
would be charged, all readable and settable over HTTP under /_standin/ (so that a test can
drive a stand-in that runs as another process)."""
from __future__ import annotations

import argparse
import contextlib
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

CONTROL = "/_standin/"
FAULT_MODES = ("throttle", "error", "slow", "drop")


@dataclass
class Fault:
    """The next `count` requests of `operation` ("*": any) misbehave this way."""
    mode: str
    operation: str = "*"
    count: int = 1
    seconds: float = 0.0  # slow: how long to hold the answer; throttle: the Retry-After
    code: str = ""  # throttle: which refusal, where the provider has several


@dataclass
class Tally:
    """What the stand-in saw and what the provider would charge."""
    requests: dict = field(default_factory=dict)    # operation -> requests received
    charges: list = field(default_factory=list)     # one entry per billed unit of work
    throttled: int = 0
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def as_dict(self) -> dict:
        with self.lock:
            return {"requests": dict(self.requests), "charges": list(self.charges),
                    "throttled": self.throttled, "dropped": self.dropped}


class StandIn:
    """Subclasses implement `handle(handler, operation, body) -> (status, headers, payload)`
    and `operation_of(handler)`; `charge(**what)` records a billed unit."""

    def __init__(self):
        self.faults: list[Fault] = []
        self.tally = Tally()
        self.received = threading.Event()  # set whenever a request arrives
        self._lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    # -- faults and charges ----------------------------------------------------------------

    def add_fault(self, fault: Fault) -> None:
        with self._lock:
            self.faults.append(fault)

    def take_fault(self, operation: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.operation in ("*", operation) and fault.count > 0:
                    fault.count -= 1
                    return fault
        return None

    def charge(self, **what) -> None:
        with self.tally.lock:
            self.tally.charges.append(what)

    def count(self, operation: str) -> None:
        with self.tally.lock:
            self.tally.requests[operation] = self.tally.requests.get(operation, 0) + 1
        self.received.set()

    def control(self, path: str, body: dict) -> dict:
        if path == "stats":
            return self.tally.as_dict()
        if path == "faults":
            self.add_fault(Fault(**body))
            return {"ok": True}
        if path == "reset":
            with self._lock:
                self.faults.clear()
            self.tally = Tally()
            return {"ok": True}
        return self.extra_control(path, body)

    def extra_control(self, path: str, body: dict) -> dict:
        raise KeyError(path)

    # -- serving ---------------------------------------------------------------------------

    def serve(self, port: int = 0) -> ThreadingHTTPServer:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: tests read the tally instead
                pass

            def do_GET(self):
                self._dispatch()

            def do_POST(self):
                self._dispatch()

            def _dispatch(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.path.startswith(CONTROL):
                    try:
                        answer = standin.control(self.path[len(CONTROL):],
                                                 json.loads(raw or b"{}"))
                        return self._send(200, {"Content-Type": "application/json"},
                                          json.dumps(answer).encode())
                    except (KeyError, TypeError) as exc:
                        return self._send(404, {}, str(exc).encode())
                operation = standin.operation_of(self)
                standin.count(operation)
                status, headers, payload, after = standin.respond(self, operation, raw)
                if after == "drop":
                    with standin.tally.lock:
                        standin.tally.dropped += 1
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self._send(status, headers, payload)

            def _send(self, status, headers, payload: bytes):
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        return self.server

    def respond(self, handler, operation: str, raw: bytes):
        """Faults first: a throttle or 5xx does no work; slow and drop do the work first."""
        fault = self.take_fault(operation)
        if fault is not None and fault.mode == "throttle":
            with self.tally.lock:
                self.tally.throttled += 1
            return (*self.throttled(operation, fault.seconds, fault.code), None)
        if fault is not None and fault.mode == "error":
            return (*self.server_error(operation), None)
        status, headers, payload = self.handle(handler, operation, raw)
        if fault is not None and fault.mode == "slow":
            time.sleep(fault.seconds)
        return status, headers, payload, ("drop" if fault and fault.mode == "drop" else None)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @contextlib.contextmanager
    def running(self):
        server = self.serve()
        thread = threading.Thread(target=server.serve_forever, daemon=True,
                                  name=type(self).__name__)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


class Remote:
    """A stand-in running as another process, driven over its control endpoints."""

    def __init__(self, url: str):
        self.url = url

    def stats(self) -> dict:
        return requests.get(f"{self.url}{CONTROL}stats", timeout=10).json()

    def fault(self, mode: str, operation: str = "*", count: int = 1, seconds: float = 0.0):
        requests.post(f"{self.url}{CONTROL}faults", timeout=10, json={
            "mode": mode, "operation": operation, "count": count, "seconds": seconds})

    def control(self, path: str, **body) -> dict:
        return requests.post(f"{self.url}{CONTROL}{path}", json=body, timeout=30).json()


def main(standin_factory, description: str) -> None:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ready-file", help="write the URL here once listening")
    args = parser.parse_args()
    standin = standin_factory()
    server = standin.serve(args.port)
    if args.ready_file:
        with open(args.ready_file, "w") as f:
            f.write(standin.url)
    print(standin.url, flush=True)
    server.serve_forever()
