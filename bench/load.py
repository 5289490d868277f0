"""A small HTTP load generator: keep-alive connections (one per thread), latency and throughput.

Plain http.client rather than requests, so that the client spends as little of the shared CPU
as it can; the servers and the client run on the same machine, and every figure that is compared
is measured by this same client.
"""
from __future__ import annotations

import http.client
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit


class Connection:
    """One keep-alive connection; reconnects when the server closed it."""

    def __init__(self, base: str, timeout: float = 90):
        parts = urlsplit(base)
        self.host, self.port, self.timeout = parts.hostname, parts.port, timeout
        self._conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> tuple[int, dict, bytes]:
        for attempt in (1, 2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self._conn.request(method, path, body=body, headers=headers or {})
                response = self._conn.getresponse()
                data = response.read()
                return response.status, dict(response.getheaders()), data
            except (http.client.HTTPException, ConnectionError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


@dataclass
class Run:
    latencies: list[float]  # seconds, one per request
    wall: float  # seconds for the whole run
    statuses: dict[int, int]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies) * 1000

    @property
    def p95_ms(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.wall

    def merge(self, other: Run) -> Run:
        statuses = dict(self.statuses)
        for code, n in other.statuses.items():
            statuses[code] = statuses.get(code, 0) + n
        return Run(self.latencies + other.latencies, self.wall + other.wall, statuses)


def hammer(base: str, path: str, body: bytes, headers: dict, *, requests: int,
           concurrency: int, expect: tuple[int, ...] = (200, 201, 202)) -> Run:
    """`requests` POSTs of `body` to `path` from `concurrency` keep-alive connections."""
    local = threading.local()
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    connections: list[Connection] = []

    def one(_):
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = Connection(base)
            with lock:
                connections.append(conn)
        started = time.perf_counter()
        status, _, data = conn.request("POST", path, body, headers)
        took = time.perf_counter() - started
        with lock:
            latencies.append(took)
            statuses[status] = statuses.get(status, 0) + 1
        if status not in expect:
            raise RuntimeError(f"POST {path} answered {status}: {data[:300]!r}")

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        for future in [pool.submit(one, i) for i in range(requests)]:
            future.result()
    wall = time.perf_counter() - started
    for conn in connections:
        conn.close()
    return Run(latencies, wall, statuses)
