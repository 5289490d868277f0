"""The API keeps answering while it is attacked.

- While `ledgerline serve` (embedded default, one process, its worker inside) works through a
  batch of hostile uploads, the API goes on answering other requests, and the process serving
  them stays far below the extraction memory limit: the hostile work happens in sandboxed
  children, never in the process that answers.
- While slow clients hold connections (40 trickling header lines; 20 upload bodies trickling
  within the rate limit; 8 `Prefer: wait=60` holds), `/healthz` and a cache hit keep a p95
  latency of at most 100 ms (or three times that of an unattacked twin server probed in the
  same moments, on a busy machine), on one API process: the serving model gives each
  connection a greenlet, not a thread, and header and body reads are bounded in time.
"""
from __future__ import annotations

import signal
import socket
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
    # The long invoice needs a few seconds; twice that on a machine busy with other tests.
    env = service_env(backend, tmp_path, LEDGERLINE_EXTRACT_TIMEOUT_SECONDS="10",
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


# --- slow clients ------------------------------------------------------------------------

P95_LIMIT = 0.100  # seconds; or SLOWDOWN times the unattacked twin's p95, on a busy machine
SLOWDOWN = 3
QUIET_P95_LIMIT = 1.0  # unattacked: a hit or a health check that takes a second is broken
ATTACK_SECONDS = 4.0
HEADER_TIMEOUT, BODY_TIMEOUT = 2, 2  # seconds, short so that the test sees both bounds act


def text_pdf(lines: list[str]) -> bytes:
    """A one-page PDF with a real text layer, written by hand (offsets and all)."""
    content = "BT /F1 11 Tf 72 760 Td 14 TL " + " ".join(f"({line}) '" for line in lines) + " ET"
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               "/Resources << /Font << /F1 5 0 R >> >> >>",
               f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return bytes(out)


class Attack:
    """Threads that hold connections open the way a slow client does, until stopped."""

    def __init__(self, port: int):
        self.port, self.stop, self.threads = port, threading.Event(), []
        self.closed_by_server, self.answers = 0, []
        self._lock = threading.Lock()

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)

    def run(self, count: int, target) -> None:
        self.threads = [threading.Thread(target=target, daemon=True) for _ in range(count)]
        for t in self.threads:
            t.start()

    def end(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=10)

    def note_closed(self, answer: bytes) -> None:
        with self._lock:
            self.closed_by_server += 1
            self.answers.append(answer.split(b"\r\n", 1)[0])

    def trickle(self, head: bytes, piece: bytes, every: float) -> None:
        """Send `head`, then `piece` every `every` seconds, reconnecting when cut off."""
        while not self.stop.is_set():
            sock = self.connect()
            try:
                sock.sendall(head)
                while not self.stop.wait(every):
                    sock.sendall(piece)
                    sock.settimeout(0.001)
                    try:
                        answer = sock.recv(4096)
                    except TimeoutError:
                        continue
                    finally:
                        sock.settimeout(5)
                    self.note_closed(answer)
                    break
            except OSError:
                self.note_closed(b"")
            finally:
                sock.close()

    def hold(self, request: bytes, holding: list) -> None:
        """Send a whole request and keep the connection, unread, until stopped."""
        sock = self.connect()
        sock.sendall(request)
        holding.append(sock)
        self.stop.wait()
        sock.settimeout(0.001)
        try:
            holding.append(sock.recv(4096))  # anything answered before the end
        except OSError:
            pass
        sock.close()


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def probe(bases: list[str], hit: dict, seconds: float) -> list[tuple[list[float], list[float]]]:
    """Alternate /healthz and a cache-hit upload on new connections for `seconds`, taking the
    servers in turn, so that each sees the same moments of the machine."""
    figures, deadline = [([], []) for _ in bases], time.monotonic() + seconds
    while time.monotonic() < deadline:
        for base, (health, hits) in zip(bases, figures):
            started = time.monotonic()
            assert requests.get(f"{base}/healthz", timeout=30).status_code == 200
            health.append(time.monotonic() - started)
            started = time.monotonic()
            answer = requests.post(f"{base}/v1/accounts/acme/invoices", data=hit["body"],
                                   headers=hit["headers"], timeout=30)
            hits.append(time.monotonic() - started)
            assert answer.status_code == 201, answer.text
            assert answer.headers["Ledgerline-Cache"] == "hit", answer.text
        time.sleep(0.02)
    return figures


def upload_head(key: str, length: int, **headers) -> bytes:
    lines = ["POST /v1/accounts/acme/invoices HTTP/1.1", "Host: 127.0.0.1",
             f"Authorization: Bearer {key}", "Content-Type: application/pdf",
             f"Content-Length: {length}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_healthz_and_a_cache_hit_stay_fast_while_slow_clients_attack(tmp_path):
    url = f"sqlite:///{tmp_path}/ledgerline.sqlite3"
    upgrade(url)
    backend = Backend("embedded", url, f"file://{tmp_path}/objects", {})
    services = bootstrap(backend.settings(), extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    services.engine.dispose()
    env = service_env(backend, tmp_path, LEDGERLINE_HEADER_TIMEOUT_SECONDS=str(HEADER_TIMEOUT),
                      LEDGERLINE_BODY_TIMEOUT_SECONDS=str(BODY_TIMEOUT))
    customer, supplier = tenant.keys["customer"], tenant.keys["supplier"]
    pdf = text_pdf(["Invoice INV-1001", "Date 2026-11-29", "Total 119.00 EUR"])
    hit = {"body": pdf, "headers": {"Authorization": f"Bearer {customer}",
                                    "Content-Type": "application/pdf"}}
    figures = {}
    # No embedded worker: nothing finishes while the attacks run, so each wait holds its 60 s.
    # Quick shutdown (SIGINT): the held waits would keep a graceful one for 30 s. The twin serves
    # the same data and is never attacked: what the machine does to it, it does to both.
    with served(env, "--workers", "1", "--no-embedded-worker", log_path=tmp_path / "serve.log",
                stop_signal=signal.SIGINT) as base, \
            served(env, "--workers", "1", "--no-embedded-worker",
                   log_path=tmp_path / "twin.log", stop_signal=signal.SIGINT) as twin:
        port = int(base.rsplit(":", 1)[1])
        first = requests.post(f"{base}/v1/accounts/acme/invoices", data=pdf,
                              headers=hit["headers"], timeout=30)
        assert first.status_code == 202, first.text
        _run_worker_until_done(env, base, first.headers["Location"], customer, tmp_path)
        # A first hit on each outside the figures: a process's first hit pays one-time costs (one
        # took 1.3 s on a busy CI machine, the later ones 6-30 ms), which are not what is measured.
        for server in (base, twin):
            assert requests.post(f"{server}/v1/accounts/acme/invoices", data=hit["body"],
                                 headers=hit["headers"], timeout=30).status_code == 201
        servers = [base, twin]
        figures["no attack"] = probe(servers, hit, ATTACK_SECONDS)

        headers = Attack(port)
        headers.run(40, lambda: headers.trickle(b"GET /healthz HTTP/1.1\r\nHost: a\r\n",
                                                b"X-Trickle: x\r\n", 0.5))
        time.sleep(0.5)
        figures["40 header tricklers"] = probe(servers, hit, ATTACK_SECONDS)
        headers.end()
        # Headers must arrive within the timeout: the server cut every trickler off.
        assert headers.closed_by_server >= 40, headers.closed_by_server

        bodies = Attack(port)
        bodies.run(20, lambda: bodies.trickle(upload_head(supplier, 200_000), b"0" * 100, 0.25))
        time.sleep(0.5)
        figures["20 slow upload bodies"] = probe(servers, hit, ATTACK_SECONDS)
        bodies.end()
        # The whole body must arrive within its timeout: 408, nothing accepted.
        timed_out = [a for a in bodies.answers if a.startswith(b"HTTP/1.1 408 ")]
        assert len(timed_out) >= 20, bodies.answers
        assert set(bodies.answers) <= {timed_out[0], b""}, set(bodies.answers)  # b"": cut off

        waits, holding = Attack(port), []
        for i in range(8):
            body = text_pdf([f"Invoice W-{i}", "Total 10.00 EUR"])
            threading.Thread(target=waits.hold, daemon=True, args=(
                upload_head(supplier, len(body), Prefer="wait=60") + body, holding)).start()
        time.sleep(0.5)
        figures["8 Prefer: wait=60"] = probe(servers, hit, ATTACK_SECONDS)
        waits.stop.set()
        time.sleep(0.2)
        # Every wait was still being held when the probes ended: nothing was answered early.
        assert not [h for h in holding if isinstance(h, bytes) and h], holding

    print()
    print(f"{'attack':<24} {'healthz p95 ms':>15} {'(twin)':>7} {'cache hit p95 ms':>17} "
          f"{'(twin)':>7} {'samples':>8}")
    for name, ((health, hits), (twin_health, twin_hits)) in figures.items():
        print(f"{name:<24} {p95(health) * 1000:>15.1f} {p95(twin_health) * 1000:>7.1f} "
              f"{p95(hits) * 1000:>17.1f} {p95(twin_hits) * 1000:>7.1f} {len(hits):>8}")
    # Against the twin in the same moments: on a busy machine a p95 moves by tens of milliseconds
    # from one second to the next, for both servers alike, while a loop held by a slow client
    # costs the attacked one seconds.
    for name, ((health, hits), (twin_health, twin_hits)) in figures.items():
        assert p95(twin_health) <= QUIET_P95_LIMIT and p95(twin_hits) <= QUIET_P95_LIMIT, name
        assert p95(health) <= max(P95_LIMIT, SLOWDOWN * p95(twin_health)), (name, "healthz")
        assert p95(hits) <= max(P95_LIMIT, SLOWDOWN * p95(twin_hits)), (name, "cache hit")


def _run_worker_until_done(env: dict, base: str, location: str, key: str, tmp_path) -> None:
    """A standalone worker, only until the first upload is extracted (the cache is primed)."""
    import subprocess
    import sys

    with open(tmp_path / "worker.log", "ab") as log:
        worker = subprocess.Popen([str(Path(sys.executable).parent / "ledgerline"), "worker"],
                                  env=env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status = requests.get(f"{base}{location}", timeout=10,
                                  headers={"Authorization": f"Bearer {key}"}).json()["status"]
            if status in ("completed", "failed"):
                break
            time.sleep(0.1)
        assert status == "completed", (tmp_path / "worker.log").read_text()[-2000:]
    finally:
        worker.terminate()
        worker.wait(30)
