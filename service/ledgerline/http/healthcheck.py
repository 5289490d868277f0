"""The container HEALTHCHECK: `python -m ledgerline.http.healthcheck`.

It probes `/healthz` where this container's gunicorn really listens: each gunicorn instance
records its configured addresses in its runtime directory (gunicorn_conf.py), whatever
LEDGERLINE_BIND, `--bind` or `ledgerline serve --host/--port` said. A container that runs no
API (a worker, a migration) has no such record, so there is nothing to check and it exits 0:
the same image's HEALTHCHECK then never marks a worker unhealthy.
"""
from __future__ import annotations

import glob
import http.client
import json
import os
import socket
import sys
import tempfile

PROBE_TIMEOUT = 4.0
RUNTIME_PREFIX = "ledgerline-gunicorn-"  # gunicorn_conf.RUNTIME_PREFIX, without importing it


def instances(tmp: str | None = None) -> list[dict]:
    """The running gunicorn instances on this host (their master process is alive)."""
    found = []
    pattern = os.path.join(tmp or tempfile.gettempdir(), RUNTIME_PREFIX + "*", "instance.json")
    for path in sorted(glob.glob(pattern)):
        try:
            with open(path) as f:
                instance = json.load(f)
            os.kill(instance["pid"], 0)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        found.append({**instance, "dir": os.path.dirname(path)})
    return found


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def connection(address: str, timeout: float = PROBE_TIMEOUT) -> http.client.HTTPConnection:
    """A connection to one gunicorn bind address (`host:port`, `[v6]:port`, `unix:path`)."""
    if address.startswith("unix:"):
        return _UnixConnection(address[len("unix:"):], timeout)
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)  # a wildcard: loopback
    return http.client.HTTPConnection(host, int(port), timeout=timeout)


def healthy(address: str) -> bool:
    conn = connection(address)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def main() -> int:
    running = instances()
    if not running:
        print("no Ledgerline API runs in this container: nothing to check")
        return 0
    for instance in running:
        address = instance["listen"][0]
        if not healthy(address):
            print(f"unhealthy: GET /healthz on {address} failed")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
