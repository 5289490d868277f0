"""The API's serving model: gunicorn's gevent worker, with every read from a client bounded.

A greenlet per connection means a client that is slow to send its headers, trickles its body
or holds a `Prefer: wait` costs a few kilobytes, not one of a handful of threads, so `/healthz`
and a cache hit keep being answered while hundreds of such clients wait. Cheap is not free:

- headers (and the idle time before the next request on a kept-alive connection) must
  arrive within LEDGERLINE_HEADER_TIMEOUT_SECONDS, else the connection is closed;
- a body must arrive within LEDGERLINE_BODY_TIMEOUT_SECONDS in total, else the request
  fails with 408 and the connection is closed (nothing was accepted);
- a body cut short (shorter than its Content-Length, a chunked one without its last chunk,
  a reset) fails with 400 `body_incomplete`, never taken for the whole of it nor a 500;
- the application caps requests and waits per API key (http/limits.py);
- connections: past LEDGERLINE_API_CONNECTIONS open ones, a new connection is answered at
  once instead of waiting in the kernel's accept queue behind them (`ConnectionCap`): a
  health probe (`GET /healthz`) with the health answer, anything else with 503
  `too_many_connections`. So `/healthz` stays fast however many slow clients hold the
  process, and a client past the cap learns to retry instead of hanging.

Compatibility, each proven by the test suite: psycopg 3 waits cooperatively under gevent
(3.1.14+); SQLAlchemy's pools use the patched locks; the embedded extraction worker runs as a
greenlet that only waits (on the database and on its sandbox child); the sandbox's fork server
is a separate, unpatched interpreter, so extraction never runs on the event loop.
"""
from __future__ import annotations

import contextlib
import json
import socket
import time

import gevent
from gunicorn.http.errors import ChunkMissingTerminator, NoMoreData, ParseException
from gunicorn.workers.ggevent import GeventWorker

from .. import __version__
from ..config import Settings
from ..domain.errors import BadRequest, BodyIncomplete, BodyTimeout, TooManyConnections


class BoundedGeventWorker(GeventWorker):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._between_requests: dict = {}  # reader greenlet -> its header timeout
        # Validated already: by `ledgerline serve`, or by gunicorn_conf for plain gunicorn.
        self.settings = Settings.from_env()
        # gunicorn's pool holds the cap plus the room to answer those past it at once.
        self.cap = ConnectionCap(self.worker_connections)
        self.worker_connections += OVERFLOW_CONNECTIONS

    def handle(self, listener, client, addr):
        if not self.cap.take():
            self.cap.answer_past_the_cap(client)
            return
        try:
            super().handle(listener, client, addr)
        finally:
            self.cap.give_back()

    @contextlib.contextmanager
    def timeout_ctx(self):
        # gunicorn reads each request's headers inside this context (keep-alive loop). A
        # connection waiting here holds no request yet; on shutdown it is closed at once (as
        # gunicorn's other workers do), else each idle keep-alive client held the process for
        # the header timeout. One that comes back here only after the shutdown began (its
        # request was still being answered when the signal came) is not waited for either.
        timeout = gevent.Timeout(self.settings.header_timeout_seconds if self.alive else 0,
                                 False)
        reader = gevent.getcurrent()
        self._between_requests[reader] = timeout
        try:
            with timeout:
                yield
        finally:
            self._between_requests.pop(reader, None)

    def handle_request(self, listener_name, req, sock, addr):
        if req.body is not None:
            req.body = DeadlineBody(req, time.monotonic() + self.settings.body_timeout_seconds,
                                    self.settings.body_timeout_seconds)
        super().handle_request(listener_name, req, sock, addr)

    def handle_exit(self, sig, frame):
        # Tell the embedded extraction worker at once, not when gunicorn's worker_exit hook
        # runs: that comes only after the graceful wait for open connections, by which time
        # the arbiter's own graceful deadline may already have killed the process, job in hand.
        # This runs as an event-loop callback, where nothing may block (starting the grace
        # timer waits for its thread to start): hand the request to a greenlet.
        super().handle_exit(sig, frame)
        for reader in list(self._between_requests):
            gevent.get_hub().loop.run_callback(self._close_between_requests, reader)
        embedded = getattr(self, "_ledgerline_worker", None)
        if embedded is not None:
            gevent.spawn(embedded.shutdown.request)


    def _close_between_requests(self, reader) -> None:
        # Looked up again when the callback runs: a reader that has begun a request since is
        # left to finish it.
        timeout = self._between_requests.get(reader)
        if timeout is not None:
            reader.throw(timeout)  # ends its wait as the header timeout would


# Connections answered at once past the cap, each for at most OVERFLOW_READ_SECONDS; more than
# this at the same moment wait in the kernel's accept queue (only under a flood of them).
OVERFLOW_CONNECTIONS = 64
OVERFLOW_READ_SECONDS = 1.0
_HEALTH_PROBE = b"GET /healthz "


class ConnectionCap:
    """How many connections this process serves at once (LEDGERLINE_API_CONNECTIONS), and the
    answer to one past that. Counted on the event loop only: no lock."""

    def __init__(self, cap: int):
        self.cap, self.open = cap, 0

    def take(self) -> bool:
        if self.open >= self.cap:
            return False
        self.open += 1
        return True

    def give_back(self) -> None:
        self.open -= 1

    def answer_past_the_cap(self, client) -> None:
        """The health answer to a health probe, 503 `too_many_connections` to anything else,
        within OVERFLOW_READ_SECONDS whatever the client sends (or does not)."""
        head = b""
        with gevent.Timeout(OVERFLOW_READ_SECONDS, False):
            while len(head) < len(_HEALTH_PROBE) and (chunk := client.recv(1024)):
                head += chunk
        if head.startswith(_HEALTH_PROBE):
            status = "200 OK"
            body: dict[str, str | int] = {"status": "ok", "version": __version__}
        else:
            refused = TooManyConnections
            status, body = "503 Service Unavailable", {
                "type": f"/problems/{refused.code}", "code": refused.code,
                "title": refused.title, "status": refused.status,
                "detail": f"this API process holds its {self.cap} connections; retry"}
        payload = json.dumps(body).encode()
        kind = "application/json" if status.startswith("200") else "application/problem+json"
        try:
            with gevent.Timeout(OVERFLOW_READ_SECONDS, False):
                client.sendall(
                    f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n"
                    f"Content-Length: {len(payload)}\r\nRetry-After: 1\r\n"
                    "Connection: close\r\n\r\n".encode() + payload)
                client.shutdown(socket.SHUT_WR)
                while client.recv(65536):  # what the client still sends, so that closing
                    pass                   # does not reset the answer away
        except OSError:
            pass
        finally:
            client.close()


class DeadlineBody:
    """A request body whose reads all end by one deadline (gunicorn's Body interface), and
    that ends with every byte its Content-Length announced or with BodyIncomplete: gunicorn
    hands a connection's early end over as the end of the body, to a raw upload and to a
    form's parser alike."""

    def __init__(self, req, deadline: float, allowed: float):
        self._req, self._body, self._deadline, self._allowed = req, req.body, deadline, allowed
        self._declared = next((int(value) for name, value in req.headers
                               if name == "CONTENT-LENGTH"), None)
        self._received = 0

    def read(self, size=None):
        data = self._bounded(self._body.read, size)
        self._arrived(len(data), ended=size is None or size < 0 or len(data) < size)
        return data

    def readline(self, size=None):
        line = self._bounded(self._body.readline, size)
        self._arrived(len(line), ended=not line)
        return line

    def readlines(self, size=None):
        lines = self._bounded(self._body.readlines, size)
        self._arrived(sum(map(len, lines)), ended=True)
        return lines

    def _arrived(self, count: int, *, ended: bool) -> None:
        self._received += count
        if ended and self._declared is not None and self._received < self._declared:
            self._req.must_close = True
            raise BodyIncomplete(f"the body ended after {self._received} of the "
                                 f"{self._declared} bytes its Content-Length announced; "
                                 "nothing was accepted. Send it again (with the same "
                                 "Idempotency-Key)")

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    def _bounded(self, read, *args):
        left = self._deadline - time.monotonic()
        try:
            if left <= 0:
                raise BodyTimeout()
            with gevent.Timeout(left, BodyTimeout):
                return read(*args)
        except BodyTimeout:
            # The rest of the body is never read: this connection cannot carry another request.
            self._req.must_close = True
            raise BodyTimeout(f"the request body did not arrive within {self._allowed:g} s; "
                              "nothing was accepted") from None
        except (NoMoreData, ChunkMissingTerminator, OSError):
            # The peer went away mid-body (a chunked body without its last chunk, a reset):
            # the client's failure, never the server's 500; what arrived is not a document.
            self._req.must_close = True
            raise BodyIncomplete("the connection ended before the whole body arrived; nothing "
                                 "was accepted. Send it again (with the same Idempotency-Key)"
                                 ) from None
        except ParseException as exc:
            self._req.must_close = True
            raise BadRequest(f"the body's chunked framing is malformed ({type(exc).__name__}); "
                             "nothing was accepted") from None
