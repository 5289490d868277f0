"""Ledgerline in its production shape, as real processes on loopback.

A `Cluster` runs `ledgerline serve --no-embedded-worker` (one gunicorn master, several API
processes) and any number of standalone `ledgerline worker` processes, all sharing one
PostgreSQL database and one S3 prefix. It can find out which process holds which job (from the
`jobs` table's `lease_owner`, `host:pid:random`), kill, pause and resume processes, and read the
database and the bucket directly to check what the service promised.

No pytest import here: the benchmarks drive the same cluster.
"""
from __future__ import annotations

import contextlib
import csv
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
from sqlalchemy import text

from ledgerline.adapters.db.accounts import create_account, create_key
from ledgerline.adapters.db.engine import make_engine, transaction
from ledgerline.adapters.storage import S3ObjectStore
from ledgerline.bootstrap import utcnow
from ledgerline.domain.identity import Role
from tests.servers import free_port

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"


class ClusterError(RuntimeError):
    pass


@dataclass
class Proc:
    """A child process in its own session, so that its own children go down with it."""
    name: str
    popen: subprocess.Popen
    log_path: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def signal(self, sig: int) -> None:
        """The process alone, as `docker stop` or an init system would send it."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.popen.pid, sig)

    def signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, sig)

    def log(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def wait(self, timeout: float) -> int | None:
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def terminate(self, timeout: float = 30) -> None:
        if not self.alive():
            return
        self.signal_group(signal.SIGCONT)  # a paused process cannot act on SIGTERM
        self.signal_group(signal.SIGTERM)
        if self.wait(timeout) is None:
            self.signal_group(signal.SIGKILL)
            self.popen.wait()


@dataclass
class Cluster:
    env: dict
    workdir: Path
    database_url: str
    account: str = "acme"
    keys: dict = field(default_factory=dict)
    api: Proc | None = None
    base: str = ""
    workers: list[Proc] = field(default_factory=list)
    store: object = None  # the cluster's S3 prefix, read directly to check what was stored
    _engine: object = None

    # -- setup ---------------------------------------------------------------------------

    @property
    def engine(self):
        if self._engine is None:
            self._engine = make_engine(self.database_url)
        return self._engine

    def create_tenant(self, account: str | None = None) -> dict:
        """An account with a customer and a supplier key; returns {role: secret}."""
        account = account or self.account
        with transaction(self.engine, write=True) as conn:
            create_account(conn, account, utcnow())
            keys = {role: create_key(conn, Role(role), account, f"{role} of {account}",
                                     utcnow())[1] for role in ("customer", "supplier")}
        if account == self.account:
            self.keys = keys
        return keys

    def _spawn(self, name: str, *args: str, env: dict | None = None) -> Proc:
        log_path = self.workdir / f"{name}.log"
        with open(log_path, "ab") as log:
            popen = subprocess.Popen([str(BIN / "ledgerline"), *args], env={**self.env, **(env or {})},
                                     stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        return Proc(name, popen, log_path)

    def start_api(self, processes: int = 4, *extra: str, embedded_worker: bool = False,
                  env: dict | None = None) -> str:
        """`ledgerline serve`; production shape (no embedded worker) unless asked."""
        port = free_port()
        if not embedded_worker:
            extra = ("--no-embedded-worker", *extra)
        self.api = self._spawn("api", "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--workers", str(processes), *extra, env=env)
        self.base = f"http://127.0.0.1:{port}"
        self._wait_ready(processes)
        return self.base

    def _wait_ready(self, processes: int, timeout: float = 180) -> None:
        # With an embedded worker, ready means its sandbox has warmed up (e2e/service.py).
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.api.alive():
                raise ClusterError(f"the API exited early:\n{self.api.log()}")
            with contextlib.suppress(requests.RequestException):
                if (requests.get(f"{self.base}/readyz", timeout=2).status_code == 200
                        and len(self.api_pids()) >= processes):
                    return
            time.sleep(0.1)
        raise ClusterError(f"the API was not ready after {timeout}s:\n{self.api.log()}")

    def start_worker(self, *args: str, env: dict | None = None) -> Proc:
        proc = self._spawn(f"worker-{len(self.workers)}", "worker", *args, env=env)
        self.workers.append(proc)
        return proc

    def close(self) -> None:
        procs = [p for p in [*self.workers, self.api] if p is not None and p.alive()]
        for proc in procs:  # all at once: each may take a moment to finish its work
            proc.signal_group(signal.SIGCONT)
            proc.signal_group(signal.SIGTERM)
        for proc in procs:
            proc.terminate(timeout=20)
        if self._engine is not None:
            self._engine.dispose()

    # -- processes -----------------------------------------------------------------------

    def api_pids(self) -> list[int]:
        """The gunicorn worker processes (the master's children) serving the API."""
        return children(self.api.pid) if self.api and self.api.alive() else []

    def worker_by_pid(self, pid: int) -> Proc:
        for proc in self.workers:
            if proc.pid == pid:
                return proc
        raise ClusterError(f"no worker process with pid {pid}")

    # -- HTTP ----------------------------------------------------------------------------

    def upload(self, body, *, role: str = "customer", account: str | None = None,
               session=None, timeout: float = 90, **headers) -> requests.Response:
        account = account or self.account
        keys = self.keys if account == self.account else headers.pop("keys")
        http = session or requests
        return http.post(f"{self.base}/v1/accounts/{account}/invoices", data=body,
                         timeout=timeout,
                         headers={"Authorization": f"Bearer {keys[role]}",
                                  "Content-Type": "application/pdf", **headers})

    def get(self, path: str, role: str = "customer", **kw) -> requests.Response:
        return requests.get(f"{self.base}{path}", timeout=30,
                            headers={"Authorization": f"Bearer {self.keys[role]}"}, **kw)

    # -- the database --------------------------------------------------------------------

    def sql(self, statement: str, **params) -> list:
        with self.engine.connect() as conn:
            return list(conn.execute(text(statement), params))

    def scalar(self, statement: str, **params):
        with self.engine.connect() as conn:
            return conn.execute(text(statement), params).scalar()

    def model_calls(self) -> list:
        return self.sql("SELECT * FROM model_calls ORDER BY id")

    def job_of(self, invoice_id: str):
        """The job doing the work for an invoice: its leader if it joined one."""
        return self.sql(
            "SELECT j.* FROM invoices i JOIN jobs own ON own.id = i.job_id "
            "JOIN jobs j ON j.id = coalesce(own.leader_id, own.id) WHERE i.id = :id",
            id=invoice_id)[0]

    def orphans(self) -> list:
        """Invoice records whose original is not in the object store (there must be none)."""
        rows = self.sql("SELECT i.id, b.storage_key FROM invoices i LEFT JOIN blobs b "
                        "ON b.account = i.account AND b.content_hash = i.content_hash")
        return [r.id for r in rows if r.storage_key is None or not self.store.exists(r.storage_key)]

    def wait_for_owner(self, job_id: str, *, not_pid: int | None = None,
                       timeout: float = 30) -> int:
        """The pid of the worker that holds the job's lease (once one does)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            owner = self.scalar("SELECT lease_owner FROM jobs WHERE id = :id AND status = "
                                "'running'", id=job_id)
            if owner:
                pid = owner_pid(owner)
                if pid != not_pid:
                    return pid
            time.sleep(0.05)
        raise ClusterError(f"no worker claimed job {job_id} within {timeout}s")

    def wait_for_job(self, job_id: str, status: str = "completed", timeout: float = 60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            row = self.sql("SELECT * FROM jobs WHERE id = :id", id=job_id)[0]
            if row.status == status:
                return row
            time.sleep(0.1)
        raise ClusterError(f"job {job_id} is {row.status}, not {status}, after {timeout}s; "
                           f"workers:\n" + "\n".join(w.log(1500) for w in self.workers))

    def wait_all_finished(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # Jobs that joined a leader keep no status of their own: readers follow the leader.
            left = self.scalar("SELECT count(*) FROM jobs WHERE leader_id IS NULL "
                               "AND status IN ('pending', 'running')")
            if left == 0:
                return
            time.sleep(0.2)
        raise ClusterError(f"{left} jobs still unfinished after {timeout}s")


def owner_pid(lease_owner: str) -> int:
    """`host:pid:random` -> pid."""
    return int(lease_owner.rsplit(":", 2)[1])


def open_connections(pid: int, port: int) -> int:
    """How many established TCP connections process `pid` holds on its local `port`: the
    requests it is serving right now."""
    inodes = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local_port = int(fields[1].rsplit(":", 1)[1], 16)
                if local_port == port and fields[3] == "01" and fields[9] in inodes:
                    count += 1
    return count


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields after the last ')'.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


@contextlib.contextmanager
def cluster(pg, s3, bucket: str, workdir: Path, *, template: str,
            **env_overrides: str) -> Iterator[Cluster]:
    """A fresh database cloned from `template` and a fresh S3 prefix; no processes yet."""
    name = f"p_{uuid.uuid4().hex[:12]}"
    database_url = pg.create_database(name, template=template)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "metrics").mkdir(exist_ok=True)
    env = {**os.environ, **s3.env,
           "LEDGERLINE_DATABASE_URL": database_url,
           "LEDGERLINE_STORAGE_URL": f"s3://{bucket}/{name}",
           "LEDGERLINE_SPOOL_DIR": str(workdir),
           "PROMETHEUS_MULTIPROC_DIR": str(workdir / "metrics"),
           "PYTHONUNBUFFERED": "1",
           **env_overrides}
    env.pop("PYTEST_CURRENT_TEST", None)
    client = s3.client(connect_timeout=2, read_timeout=10, retries={"max_attempts": 1})
    c = Cluster(env=env, workdir=workdir, database_url=database_url,
                store=S3ObjectStore(bucket, name, client=client))
    try:
        yield c
    finally:
        c.close()
        client.close()
        with contextlib.suppress(Exception):
            pg.drop_database(name)


# -- documents ----------------------------------------------------------------------------

def text_layer_pdfs(*, embedded_xml: bool | None = None) -> list[Path]:
    """Corpus PDFs with a text layer, smallest first. Without the corpus (../shared) a test
    that needs them is skipped (the benchmark, which needs them too, stops with the same words)."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.exists():
        pytest.skip(f"invoice corpus not found at {CORPUS}")
    with manifest.open() as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["has_text_layer"] == "yes"]
    if embedded_xml is not None:
        rows = [r for r in rows if (r["embedded_xml"] == "yes") == embedded_xml]
    return sorted((CORPUS / r["pdf"] for r in rows), key=lambda p: (p.stat().st_size, p.name))


def build_long_pdf(dest: Path, pages: int) -> Path:
    """A real multi-page invoice PDF: corpus pages (text layer, no embedded XML) in a row,
    so that the real extractor reads every page and one extraction takes seconds."""
    from pypdf import PdfReader, PdfWriter

    sources = text_layer_pdfs(embedded_xml=False)
    writer, added = PdfWriter(), 0
    while added < pages:
        for path in sources:
            for page in PdfReader(str(path)).pages:
                writer.add_page(page)
                added += 1
                if added == pages:
                    break
            if added == pages:
                break
    with dest.open("wb") as out:
        writer.write(out)
    return dest


def variant(pdf: bytes, tag: str) -> bytes:
    """Distinct bytes that are still the same valid PDF (a comment after %%EOF)."""
    return pdf + f"\n% ledgerline-variant {tag}\n".encode()


def wait_for(condition, what: str, timeout: float = 60):
    """Poll `condition` until it returns something true; return that, or fail saying what."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
