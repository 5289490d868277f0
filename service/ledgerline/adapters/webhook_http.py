"""One webhook POST, with the address checks done where they cannot be fooled.

The host is resolved here, every address it resolves to is checked (domain.webhooks.
AddressPolicy), and the connection goes to a checked address: the name is not resolved a
second time by the HTTP library, so a DNS answer that changes between the check and the
connection (rebinding) gains nothing. TLS still verifies the certificate for the host name.
Redirects are followed by hand, up to MAX_REDIRECTS, each new location resolved and checked
the same way. The whole attempt, redirects included, fits in `timeout` seconds.
"""
from __future__ import annotations

import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import urllib3

from ..domain.webhooks import AddressPolicy, Refused, check_url

MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
EXCERPT_BYTES = 500


@dataclass(frozen=True)
class Answer:
    status: int | None         # the final HTTP status, None when nothing answered
    error: str | None          # why the attempt failed before or instead of an answer
    excerpt: str | None        # the start of the receiver's body, for the delivery log

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def post(url: str, body: bytes, headers: dict, policy: AddressPolicy, *, timeout: float,
         resolver=resolve) -> Answer:
    deadline = time.monotonic() + timeout
    for _hop in range(MAX_REDIRECTS + 1):
        try:
            scheme, host, port = check_url(url, policy)
        except ValueError as exc:  # Refused included
            return Answer(None, f"refused: {exc}", None)
        try:
            addresses = resolver(host, port)
        except OSError as exc:
            return Answer(None, f"cannot resolve {host}: {exc}", None)
        try:
            for address in addresses:  # every address: a name may not hide a private one
                policy.check(address, scheme)
        except Refused as exc:
            return Answer(None, f"refused: {host}: {exc}", None)
        answer, location = _send(scheme, host, port, addresses, url, body, headers, deadline)
        if location is None:
            return answer
        url = urljoin(url, location)
    return Answer(None, f"more than {MAX_REDIRECTS} redirects", None)


def _send(scheme, host, port, addresses, url, body, headers, deadline):
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    error = "no address to connect to"
    for address in addresses:
        left = deadline - time.monotonic()
        if left <= 0:
            return Answer(None, "timed out", None), None
        pool = _pool(scheme, host, address, port, left)
        try:
            resp = pool.urlopen("POST", target, body=body, redirect=False, retries=False,
                                assert_same_host=False, preload_content=False,
                                headers={**headers, "Host": _host_header(scheme, host, port)})
        except urllib3.exceptions.ConnectTimeoutError:
            error = f"connect to {address} timed out"
            continue
        except urllib3.exceptions.NewConnectionError as exc:
            error = f"cannot connect to {address}: {_reason(exc)}"
            continue
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            pool.close()
            return Answer(None, _reason(exc), None), None
        try:
            excerpt = _excerpt(resp)
        finally:
            resp.release_conn()
            pool.close()
        location = resp.headers.get("Location")
        if resp.status in REDIRECTS and location:
            return None, location
        return Answer(resp.status, None if 200 <= resp.status < 300 else f"HTTP {resp.status}",
                      excerpt), None
    return Answer(None, error, None), None


def _pool(scheme: str, host: str, address: str, port: int, timeout: float):
    limits = urllib3.Timeout(connect=min(timeout, 5.0), read=timeout)
    if scheme == "https":
        return urllib3.HTTPSConnectionPool(address, port, timeout=limits, maxsize=1,
                                           server_hostname=host, assert_hostname=host,
                                           ssl_context=ssl.create_default_context())
    return urllib3.HTTPConnectionPool(address, port, timeout=limits, maxsize=1)


def _host_header(scheme: str, host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    default = 443 if scheme == "https" else 80
    return shown if port == default else f"{shown}:{port}"


def _excerpt(resp) -> str | None:
    try:
        data = resp.read(EXCERPT_BYTES, decode_content=False)
    except (urllib3.exceptions.HTTPError, OSError):
        return None
    text = data.decode("utf-8", "replace")
    return "".join(ch if ch.isprintable() else " " for ch in text).strip() or None


def _reason(exc) -> str:
    reason = getattr(exc, "reason", None) or exc
    text = str(reason)
    if "timed out" in text.lower():
        return "timed out"
    return f"{type(reason).__name__}: {text}"[:300]
