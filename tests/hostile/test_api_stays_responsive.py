"""While `ledgerline serve` (embedded default, one process, its worker inside) works through a
batch of hostile uploads, the API goes on answering other requests, and the process serving
them stays far below the extraction memory limit: the hostile work happens in sandboxed
children, never in the process that answers."""
from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

import pytest
import requests

from ledgerline.adapters.db.migrate import upgrade
from ledgerline.bootstrap import bootstrap
from tests.conftest import Backend, make_tenant
from tests.e2e.service import served, service_env
from tests.fakes import ControlledExtractor, pdf_bytes
from tests.hostile import corpus
from tests.production.cluster import build_long_pdf

pytestmark = pytest.mark.slow

HOSTILE = [corpus.flate_bomb, corpus.nested_flate_bomb, corpus.object_stream_bomb,
           corpus.kids_loop, corpus.parent_cycle, corpus.deeply_nested_arrays,
           corpus.huge_image, corpus.encrypted, corpus.truncated, corpus.corrupted]
MEMORY_MB = 256


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def latencies(url: str, headers: dict, seconds: float) -> list[float]:
    out, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        response = requests.get(url, headers=headers, timeout=30)
        out.append(time.monotonic() - started)
        assert response.status_code == 200
        time.sleep(0.02)
    return out


def test_hostile_uploads_do_not_slow_the_api_or_grow_its_process(tmp_path):
    url = f"sqlite:///{tmp_path}/ledgerline.sqlite3"
    upgrade(url)
    backend = Backend("embedded", url, f"file://{tmp_path}/objects", {})
    services = bootstrap(backend.settings(), extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    services.engine.dispose()
    env = service_env(backend, tmp_path, LEDGERLINE_EXTRACT_TIMEOUT_SECONDS="5",
                      LEDGERLINE_EXTRACT_MEMORY_MB=str(MEMORY_MB))
    auth = {"Authorization": f"Bearer {tenant.keys['customer']}"}
    long_pdf = build_long_pdf(tmp_path / "long.pdf", pages=36).read_bytes()
    with served(env, "--workers", "1", log_path=tmp_path / "serve.log") as base:
        probe = requests.post(f"{base}/v1/accounts/acme/invoices", data=pdf_bytes("probe"),
                              headers={**auth, "Content-Type": "application/pdf"}, timeout=30)
        probe_url = f"{base}{probe.headers['Location']}"
        before = latencies(probe_url, auth, 2.0)

        ids = []
        for make in HOSTILE:
            response = requests.post(f"{base}/v1/accounts/acme/invoices", data=make(),
                                     headers={**auth, "Content-Type": "application/pdf"},
                                     timeout=30)
            assert response.status_code == 202, response.text
            ids.append(response.json()["id"])
        long = requests.post(f"{base}/v1/accounts/acme/invoices", data=long_pdf,
                             headers={**auth, "Content-Type": "application/pdf"}, timeout=30)
        ids.append(long.json()["id"])

        peak = [0.0]
        pids = serving_pids(base)

        def watch():
            while not done.is_set():
                peak[0] = max(peak[0], *(rss_mb(pid) for pid in pids))
                time.sleep(0.05)

        done = threading.Event()
        watcher = threading.Thread(target=watch)
        watcher.start()
        during = latencies(probe_url, auth, 6.0)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            states = [requests.get(f"{base}/v1/accounts/acme/invoices/{i}", headers=auth,
                                   timeout=30).json()["status"] for i in ids]
            if all(s in ("completed", "failed") for s in states):
                break
            time.sleep(0.2)
        done.set()
        watcher.join()

    assert all(s in ("completed", "failed") for s in states), states
    assert states[-1] == "completed" and states[:-1].count("failed") >= len(HOSTILE) - 1
    # Normal latency: the median does not move by more than a few milliseconds' worth of noise
    # on a shared machine, and no request waits on the hostile work.
    assert statistics.median(during) < statistics.median(before) * 3 + 0.05, (before, during)
    assert max(during) < 2.0, during
    assert peak[0] < MEMORY_MB, f"the serving process grew to {peak[0]:.0f} MB"
    print(f"median before {statistics.median(before) * 1000:.1f} ms, during "
          f"{statistics.median(during) * 1000:.1f} ms, max {max(during) * 1000:.0f} ms; "
          f"serving processes peaked at {peak[0]:.0f} MB")


def serving_pids(base: str) -> list[int]:
    """The gunicorn processes listening on the service's port (master and worker)."""
    port = int(base.rsplit(":", 1)[1])
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                inodes.add(fields[9])
    pids = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            links = {Path(fd).readlink().name for fd in fd_dir.iterdir()}
        except OSError:
            continue
        if any(f"socket:[{inode}]" in links for inode in inodes):
            pids.append(int(fd_dir.parent.name))
    assert pids, "found no process serving the port"
    return pids
