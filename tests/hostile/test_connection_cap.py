"""Past its connection cap (LEDGERLINE_API_CONNECTIONS), an API process answers a new connection
at once instead of queueing it behind the slow ones: a health probe with the health answer,
anything else with 503 `too_many_connections`. Slow-header clients holding every connection
then cannot push `/healthz` past the image's 4 s probe timeout."""
from __future__ import annotations

import socket
import statistics
import time

import pytest
import requests

from ledgerline.adapters.db.migrate import upgrade
from tests.conftest import Backend
from tests.e2e.service import served, service_env

pytestmark = pytest.mark.slow
CAP = 20


def test_past_the_cap_a_connection_is_answered_at_once(tmp_path):
    url = f"sqlite:///{tmp_path}/ledgerline.sqlite3"
    upgrade(url)
    backend = Backend("embedded", url, f"file://{tmp_path}/objects", {})
    env = service_env(backend, tmp_path, LEDGERLINE_API_CONNECTIONS=str(CAP),
                      LEDGERLINE_HEADER_TIMEOUT_SECONDS="60")
    with served(env, "--workers", "1", "--no-embedded-worker",
                log_path=tmp_path / "serve.log") as base:
        port = int(base.rsplit(":", 1)[1])
        slow = []
        for _ in range(CAP * 2):  # every connection held by a client trickling its headers
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /v1/accounts/acme/invoices HTTP/1.1\r\nHost: x\r\n")
            slow.append(sock)
        try:
            time.sleep(1.5)  # those past the cap have had their answer and gone
            took = []
            for _ in range(20):
                started = time.monotonic()
                probe = requests.get(f"{base}/healthz", timeout=4)
                took.append(time.monotonic() - started)
                assert probe.status_code == 200 and probe.json()["status"] == "ok"
            refused = requests.get(f"{base}/openapi.json", timeout=4)
            assert refused.status_code == 503, refused.text
            assert refused.json()["code"] == "too_many_connections"
            assert refused.headers["Retry-After"] == "1"
        finally:
            for sock in slow:
                sock.close()
        time.sleep(0.5)
        assert requests.get(f"{base}/openapi.json", timeout=10).status_code == 200
    p95 = statistics.quantiles(took, n=20)[-1]
    print(f"/healthz past the cap: median {statistics.median(took) * 1000:.0f} ms, "
          f"p95 {p95 * 1000:.0f} ms")
    assert p95 < 1.0, took
