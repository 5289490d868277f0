"""The API's serving model: gunicorn's gevent worker, with every read from a client bounded.

A greenlet per connection means a client that is slow to send its headers, trickles its body
or holds a `Prefer: wait` costs a few kilobytes, not one of a handful of threads, so `/healthz`
and a cache hit keep being answered while hundreds of such clients wait. Cheap is not free:

- headers (and the idle time before the next request on a kept-alive connection) must
  arrive within LEDGERLINE_HEADER_TIMEOUT_SECONDS, else the connection is closed;
- a body must arrive within LEDGERLINE_BODY_TIMEOUT_SECONDS in total, else the request
  fails with 408 and the connection is closed (nothing was accepted);
- the application caps requests and waits per API key (http/limits.py).

Compatibility, each proven by the test suite: psycopg 3 waits cooperatively under gevent
(3.1.14+); SQLAlchemy's pools use the patched locks; the embedded extraction worker runs as a
greenlet that only waits (on the database and on its sandbox child); the sandbox's fork server
is a separate, unpatched interpreter, so extraction never runs on the event loop.
"""
from __future__ import annotations

import contextlib
import time

import gevent
from gunicorn.workers.ggevent import GeventWorker

from ..config import Settings
from ..domain.errors import LedgerlineError


class BodyTimeout(LedgerlineError):
    status, code, title = 408, "request_timeout", "The request body did not arrive in time"


class BoundedGeventWorker(GeventWorker):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._between_requests: dict = {}  # reader greenlet -> its header timeout
        # Validated already: by `ledgerline serve`, or by gunicorn_conf for plain gunicorn.
        self.settings = Settings.from_env()

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
            gevent.spawn(embedded[1].request)


    def _close_between_requests(self, reader) -> None:
        # Looked up again when the callback runs: a reader that has begun a request since is
        # left to finish it.
        timeout = self._between_requests.get(reader)
        if timeout is not None:
            reader.throw(timeout)  # ends its wait as the header timeout would


class DeadlineBody:
    """A request body whose reads all end by one deadline (gunicorn's Body interface)."""

    def __init__(self, req, deadline: float, allowed: float):
        self._req, self._body, self._deadline, self._allowed = req, req.body, deadline, allowed

    def read(self, size=None):
        return self._bounded(self._body.read, size)

    def readline(self, size=None):
        return self._bounded(self._body.readline, size)

    def readlines(self, size=None):
        return self._bounded(self._body.readlines, size)

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
