"""One webhook POST: the address checks where they cannot be fooled, and a deadline that holds.

The host is resolved here, every address it resolves to is checked (domain.webhooks.
AddressPolicy), and the connection goes to a checked address: the name is not resolved a
second time, so a DNS answer that changes between the check and the connection (rebinding)
gains nothing. TLS still verifies the certificate for the host name. Redirects are followed by
hand, up to MAX_REDIRECTS, each new location resolved and checked the same way.

The whole attempt — resolution, connection, TLS, request, status line, headers and the start of
the answer, on every hop — ends within `timeout`. A per-read timeout cannot promise that (a
receiver that drips a byte every few seconds never lets one expire), so the attempt owns its
sockets (http.client over a socket made here, where urllib3 would make its own) and a
`Deadline` shuts them down when the time is up, which ends whatever read or write waits on
them; the name lookup, which no socket carries, runs in a thread left behind at the deadline.
How an attempt failed is told apart (domain.webhooks.OUTCOMES): refused by the policy, DNS,
connection refused, other connection failures, TLS, timeout, a dropped connection, an answer
that is not HTTP, too many redirects, or the receiver's own HTTP status.
"""
from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from ..domain import webhooks as rules
from ..domain.webhooks import AddressPolicy, Refused, check_url

MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
EXCERPT_BYTES = 500
CONNECT_SECONDS = 5.0  # per address, so that a dead first address leaves time for the next


@dataclass(frozen=True)
class Answer:
    outcome: str               # domain.webhooks.OUTCOMES: DELIVERED, or how the attempt failed
    status: int | None         # the final HTTP status, None when nothing answered
    error: str | None          # why the attempt failed, for the delivery log
    excerpt: str | None        # the start of the receiver's body, for the delivery log

    @property
    def ok(self) -> bool:
        return self.outcome == rules.DELIVERED


class Failed(Exception):
    """The attempt ends here: how (an outcome) and why."""

    def __init__(self, outcome: str, error: str):
        super().__init__(error)
        self.outcome, self.error = outcome, error


class Deadline:
    """The end of one attempt: `left()` seconds remain, and at the end every socket handed to
    `guard` is shut down (from a timer thread), which ends any read or write waiting on it."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._at = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._sockets: list = []
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def left(self, doing: str) -> float:
        """Seconds left; Failed(timeout) when none are."""
        left = self._at - time.monotonic()
        if left <= 0 or self.expired:
            raise self.timeout(doing)
        return left

    def timeout(self, doing: str) -> Failed:
        return Failed(rules.TIMEOUT, f"timed out after {self.seconds:g} s {doing}")

    def guard(self, sock) -> None:
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock) -> None:
    # the plain socket's shutdown, also for a TLS socket: only the connection is ended, the
    # TLS object another thread may be inside is left alone
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def post(url: str, body: bytes, headers: dict, policy: AddressPolicy, *, timeout: float,
         resolver=resolve) -> Answer:
    with Deadline(timeout) as deadline:
        try:
            return _post(url, body, headers, policy, deadline, resolver)
        except Failed as failed:
            return Answer(failed.outcome, None, failed.error, None)


def _post(url, body, headers, policy, deadline, resolver) -> Answer:
    for _hop in range(MAX_REDIRECTS + 1):
        try:
            scheme, host, port = check_url(url, policy)
        except ValueError as exc:  # Refused included
            raise Failed(rules.ADDRESS_REFUSED, f"refused: {exc}") from None
        addresses = _resolve(resolver, host, port, deadline)
        try:
            for address in addresses:  # every address: a name may not hide a private one
                policy.check(address, scheme)
        except Refused as exc:
            raise Failed(rules.ADDRESS_REFUSED, f"refused: {host}: {exc}") from None
        answer, location = _send(scheme, host, port, addresses, url, body, headers, deadline)
        if location is None:
            return answer
        url = urljoin(url, location)
    raise Failed(rules.TOO_MANY_REDIRECTS, f"more than {MAX_REDIRECTS} redirects")


def _resolve(resolver, host: str, port: int, deadline: Deadline) -> list[str]:
    """The host's addresses (an address literal is its own), in a thread the attempt stops
    waiting for at its deadline: a lookup cannot be interrupted."""
    with contextlib.suppress(ValueError):
        return [str(ipaddress.ip_address(host))]
    found: dict = {}
    done = threading.Event()

    def lookup():
        try:
            found["addresses"] = resolver(host, port)
        except OSError as exc:
            found["error"] = exc
        finally:
            done.set()

    threading.Thread(target=lookup, name="webhook-dns", daemon=True).start()
    if not done.wait(deadline.left(f"resolving {host}")):
        raise deadline.timeout(f"resolving {host}")
    if "error" in found or not found.get("addresses"):
        reason = _strerror(found.get("error")) or "no address"
        raise Failed(rules.DNS_FAILURE, f"DNS: cannot resolve {host}: {reason}")
    return found["addresses"]


def _send(scheme, host, port, addresses, url, body, headers, deadline):
    """(answer, None), or (None, the redirect's location)."""
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    failure = None
    for address in addresses:
        try:
            sock = _connect(address, port, deadline)
        except Failed as failed:  # the next address may answer
            failure = failed
            if failed.outcome == rules.TIMEOUT and deadline.expired:
                break
            continue
        try:
            if scheme == "https":
                sock = _tls(sock, host, deadline)
            return _exchange(sock, scheme, host, port, target, body, headers, deadline)
        finally:
            sock.close()
    raise failure or Failed(rules.CONNECTION_FAILED, "no address to connect to")


def _connect(address: str, port: int, deadline: Deadline):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    deadline.guard(sock)
    try:
        sock.settimeout(min(CONNECT_SECONDS, deadline.left(f"connecting to {address}")))
        sock.connect((address, port))
        sock.settimeout(deadline.left("after connecting"))
        return sock
    except Failed:
        sock.close()
        raise
    except TimeoutError:
        sock.close()
        raise Failed(rules.TIMEOUT, f"connecting to {address} timed out") from None
    except ConnectionRefusedError:
        sock.close()
        raise Failed(rules.CONNECTION_REFUSED,
                     f"connection refused by {_shown(address)}:{port}") from None
    except OSError as exc:
        sock.close()
        raise Failed(rules.CONNECTION_FAILED,
                     f"cannot connect to {_shown(address)}:{port}: {_strerror(exc)}") from None


def _tls(sock, host: str, deadline: Deadline):
    """The TLS session over `sock`, its certificate verified for `host`."""
    context = ssl.create_default_context()
    tls = context.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
    deadline.guard(tls)  # wrapping took the connection over from `sock`
    try:
        tls.do_handshake()
        return tls
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        tls.close()
        if deadline.expired or isinstance(exc, TimeoutError):
            raise deadline.timeout("in the TLS handshake") from None
        reason = getattr(exc, "verify_message", None) or getattr(exc, "reason", None) or exc
        raise Failed(rules.TLS_FAILURE, f"TLS with {host}: {reason}") from None


class _Connection(http.client.HTTPConnection):
    """HTTP/1.1 over a socket the attempt already connected (and guards)."""

    def __init__(self, sock, host_header: str, timeout: float):
        super().__init__(host_header, timeout=timeout)
        self.sock = sock

    def connect(self):  # never: the socket is given
        raise http.client.NotConnected("the attempt's connection is closed")


def _exchange(sock, scheme, host, port, target, body, headers, deadline):
    conn = _Connection(sock, _host_header(scheme, host, port), deadline.left("sending"))
    doing = "sending the request"
    try:
        conn.request("POST", target, body=body,
                     headers={**headers, "Host": _host_header(scheme, host, port),
                              "Connection": "close"})
        doing = "waiting for the status line and headers"
        resp = conn.getresponse()
        excerpt = _excerpt(resp)
    except (OSError, http.client.HTTPException) as exc:
        if deadline.expired or isinstance(exc, TimeoutError):
            raise deadline.timeout(doing) from None
        if isinstance(exc, http.client.RemoteDisconnected | ConnectionError):
            raise Failed(rules.CONNECTION_CLOSED,
                         f"the receiver closed the connection {doing}") from None
        raise Failed(rules.INVALID_RESPONSE,
                     f"not an HTTP answer: {type(exc).__name__}: {exc}"[:300]) from None
    finally:
        conn.close()
    location = resp.getheader("Location")
    if resp.status in REDIRECTS and location:
        return None, location
    if 200 <= resp.status < 300:
        return Answer(rules.DELIVERED, resp.status, None, excerpt), None
    return Answer(rules.HTTP_ERROR, resp.status, f"HTTP {resp.status}", excerpt), None


def _excerpt(resp) -> str | None:
    """The first EXCERPT_BYTES of the answer's body, or what of them came before the deadline
    or the end of the connection."""
    data = b""
    with contextlib.suppress(OSError, http.client.HTTPException):
        while len(data) < EXCERPT_BYTES:
            chunk = resp.read1(EXCERPT_BYTES - len(data))
            if not chunk:
                break
            data += chunk
    text = data.decode("utf-8", "replace")
    return "".join(ch if ch.isprintable() else " " for ch in text).strip() or None


def _host_header(scheme: str, host: str, port: int) -> str:
    shown = _shown(host)
    default = 443 if scheme == "https" else 80
    return shown if port == default else f"{shown}:{port}"


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _strerror(exc: OSError | None) -> str | None:
    if exc is None:
        return None
    return str(exc.strerror or exc)[:200]
