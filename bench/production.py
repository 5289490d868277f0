"""Ledgerline in its production shape, measured: gunicorn API processes and worker processes on a
private PostgreSQL and SeaweedFS S3 (both on loopback, started here), every figure next to the
floor it is compared with, measured in the same run on the same machine.

    .venv/bin/python bench/run.py [--quick]
        [--only hit,miss,queue,replay,cli,engine,backfill,history] [--json OUT]

1. hit     cache-hit upload vs a baseline WSGI app (bench/baseline_app.py) that only streams,
           hashes and stores the same bytes in the same S3; both under gunicorn with the same
           configuration and process count; median latency (one client) and throughput
           (several), rounds interleaved (floor, service, floor, service) so that load on the
           machine falls on both alike; throughput again with 1, 2 and 4 processes of each
           (scaling), and the peak RSS of the service's API processes.
2. miss    upload -> result (`Prefer: wait`) of new files, against the extractor's own time on
           the same files (PdfExtractor called directly in the benchmark process), on the
           embedded default (SQLite, local directory, `ledgerline serve` with its embedded
           worker) and on the production shape (PostgreSQL, S3, a `ledgerline worker`).
3. queue   claim-and-start-call, renew, publish-and-finish-call per job on PostgreSQL, timed
           one by one; then jobs/s through real worker processes (bench/stub_worker.py: the real
           worker loop with a stand-in model of no latency, so the queue is what is timed):
           one process with concurrency 1 and 4, each right next to procrastinate's no-op
           jobs with the same concurrency on the same PostgreSQL (bench/peer_procrastinate.py,
           the `bench` extra), then 1, 2 and 4 processes (scaling), with their peak RSS.

4. replay  10,000 uploads of 2,000 distinct files into 5 accounts, 10-15 % exact repeats, some
           as bursts of simultaneous duplicates; model calls must equal the distinct
           (account, file) pairs exactly; the stand-in model takes 20 ms a call.

5. cli     how fast `ledgerline --help` and `ledgerline extract FILE` start (bench/cli_start.py),
           next to the interpreter's own start and to `extract` with the sandbox's warm-up first.

6. engine  the job engine like for like (bench/engine.py): the worker loop with a stand-in that
           needs no original (nothing fetched) against procrastinate's no-op jobs, concurrency
           1 and 4; the original's fetch through the store adapter against a bare HTTP GET.

7. backfill 1,000 generated invoices through `ledgerline upload DIR --concurrency 8` against
           the embedded default and PG + S3, against `ledgerline extract` over the unique files
           in 2 processes (bench/backfill.py).

8. history a claim and a cache hit on an empty database and on one with 2 million past jobs
           and invoices, call by call in turn (bench/history.py).

`--json OUT` writes every figure, nested as the benchmarks return them; the figures a check
outside the suite reads (BINDING) are nested by their dotted names: "engine.ratio_c1" is
{"engine": {"ratio_c1": ...}}. It is written whatever the load, which it records.

The machine's load average is printed before and after, and the cores other work took during
the run (bench/other_work.py: the CPU the machine spent that the benchmark's processes did not).
With a load above the core count before the run, or other work above a quarter of the cores
during it, the table is still printed and the --json written (its "load" says so, "quiet":
false), but the run exits with status 3: not a result to record as a quiet machine's.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.metadata
import json
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "service"), str(ROOT)]

import blake3  # noqa: E402
import requests  # noqa: E402
from bench import backfill, cli_start, engine, history  # noqa: E402
from bench.binding import write_json  # noqa: E402
from bench.load import Connection, hammer  # noqa: E402
from bench.other_work import OtherWork, postmaster_pid  # noqa: E402
from tests.production.cluster import (Cluster, Proc, children, cluster, text_layer_pdfs,
                                      variant)  # noqa: E402
from tests.servers import free_port, postgres_server, seaweed_s3_server  # noqa: E402

from ledgerline.adapters.db.accounts import create_key  # noqa: E402
from ledgerline.adapters.db.database import SqlDatabase  # noqa: E402
from ledgerline.adapters.db.engine import transaction  # noqa: E402
from ledgerline.adapters.db.migrate import upgrade  # noqa: E402
from ledgerline.adapters.extractor import PdfExtractor  # noqa: E402
from ledgerline.bootstrap import utcnow  # noqa: E402
from ledgerline.domain.identity import Role  # noqa: E402
from ledgerline.domain.ids import new_id  # noqa: E402
from ledgerline.domain.jobs import CacheOutcome  # noqa: E402
from ledgerline.ports.jobs import CallOpening, NewJob  # noqa: E402
from ledgerline.ports.storage import original_key  # noqa: E402
from ledgerline.service_layer.originals import fetch_original  # noqa: E402

BUCKET = "ledgerline-bench"
LOADED = 3  # exit status: the figures were printed but are not a result to record
# Other work may take this share of the cores, on average over the run, before the figures are
# refused (on 2 cores: half of one).
OTHER_WORK_SHARE = 0.25
TEMPLATE = "bench_template"
API_PROCESSES = 2  # one per core of the benchmark machine, for the service and the baseline
PRICE = 0.004
# Benchmarks measure the service, not its per-key rate limit (tests cover that).
ENV = {"LEDGERLINE_RATE_LIMIT_PER_MINUTE": "0", "LEDGERLINE_LOG_LEVEL": "warning"}


def typical_pdf() -> Path:
    """The median-sized text-layer invoice of the corpus."""
    pdfs = text_layer_pdfs()
    return pdfs[len(pdfs) // 2]


def auth(key: str) -> dict:
    return {"Authorization": f"Bearer {key}", "Content-Type": "application/pdf"}


def spawn(name: str, argv: list[str], env: dict, workdir: Path) -> Proc:
    log_path = workdir / f"{name}.log"
    with open(log_path, "ab") as log:
        popen = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True, cwd=ROOT)
    return Proc(name, popen, log_path)


def wait_http(base: str, proc: Proc, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc.alive():
            raise RuntimeError(f"{proc.name} exited:\n{proc.log()}")
        with contextlib.suppress(requests.RequestException):
            requests.get(f"{base}/", timeout=2)
            return
        time.sleep(0.1)
    raise RuntimeError(f"{proc.name} did not answer within {timeout}s")


def stub_workers(c: Cluster, count: int, *args: str) -> list[Proc]:
    return [spawn(f"stub-worker-{i}", [sys.executable, str(ROOT / "bench" / "stub_worker.py"),
                                       *args], c.env, c.workdir) for i in range(count)]


def stop_all(procs: list[Proc]) -> None:
    for proc in procs:
        proc.terminate(timeout=30)


# --- 1. cache hit vs the store-only floor ---------------------------------------------------

SCALING = (1, 2, 4)  # API processes, and worker processes, for the scaling rows
PEER_VERSION = importlib.metadata.version("procrastinate")


def peak_rss_mib(pid: int) -> float:
    """The process's peak resident set (VmHWM), in MiB; 0 once it is gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


@contextlib.contextmanager
def api_pair(c: Cluster, processes: int, peaks: dict):
    """The service (`ledgerline serve --no-embedded-worker`) and the store-only floor, each
    under gunicorn with `processes` processes; the service's peak RSS goes into `peaks`."""
    service_port, floor_port = free_port(), free_port()
    service = spawn(f"api-{processes}", [sys.executable, "-m", "ledgerline.cli", "serve",
                                         "--host", "127.0.0.1", "--port", str(service_port),
                                         "--workers", str(processes), "--no-embedded-worker"],
                    c.env, c.workdir)
    floor = spawn(f"baseline-{processes}", [sys.executable, "-m", "gunicorn", "-c",
                                            "python:ledgerline.gunicorn_conf", "--bind",
                                            f"127.0.0.1:{floor_port}", "--workers",
                                            str(processes), "baseline_app:app"],
                  {**c.env, "LEDGERLINE_EMBEDDED_WORKER": "0",
                   "PYTHONPATH": str(ROOT / "bench")}, c.workdir)
    try:
        bases = f"http://127.0.0.1:{service_port}", f"http://127.0.0.1:{floor_port}"
        wait_http(bases[0], service)
        wait_http(bases[1], floor)
        yield bases
        peaks[processes] = max(peak_rss_mib(pid) for pid in children(service.pid))
    finally:
        service.terminate()
        floor.terminate()


def bench_hit(pg, s3, work: Path, quick: bool) -> dict:
    rounds, sequential, concurrent, clients = (2, 60, 200, 8) if quick else (4, 150, 500, 8)
    pdf = typical_pdf().read_bytes()
    peaks: dict[int, float] = {}
    scaling: dict[int, dict] = {}
    with cluster(pg, s3, BUCKET, work / "hit", template=TEMPLATE, **ENV) as c:
        c.create_tenant()
        c.start_api(API_PROCESSES)
        worker = c.start_worker()
        first = c.upload(pdf, Prefer="wait=60")
        assert first.status_code == 201, first.text
        worker.terminate()  # nothing left to extract: keep the cores for the measurement
        c.api.terminate()
        runs = {"service": {}, "baseline": {}}
        for processes in (API_PROCESSES, *(n for n in SCALING if n != API_PROCESSES)):
            with api_pair(c, processes, peaks) as (service_base, floor_base):
                service = (service_base, "/v1/accounts/acme/invoices", auth(c.keys["customer"]))
                floor = (floor_base, "/v1/accounts/acme/store",
                         {"Content-Type": "application/pdf"})
                for base, path, headers in (service, floor):  # warm connections and caches
                    hammer(base, path, pdf, headers, requests=40, concurrency=clients)
                # Interleaved (floor, service, floor, service): load drifts hit both alike.
                modes = [("throughput", concurrent, clients)]
                if processes == API_PROCESSES:
                    modes.insert(0, ("latency", sequential, 1))
                pair = {"service": {}, "baseline": {}}
                for _ in range(rounds if processes == API_PROCESSES else max(1, rounds // 2)):
                    for name, (base, path, headers) in (("baseline", floor),
                                                        ("service", service)):
                        for mode, n, conc in modes:
                            run = hammer(base, path, pdf, headers, requests=n, concurrency=conc)
                            got = pair[name]
                            got[mode] = got[mode].merge(run) if mode in got else run
                if processes == API_PROCESSES:
                    runs = pair
                scaling[processes] = {"service_rps": pair["service"]["throughput"].throughput,
                                      "baseline_rps": pair["baseline"]["throughput"].throughput}
        hits = c.scalar("SELECT count(*) FROM jobs WHERE outcome = 'hit'")
        writes = c.scalar("SELECT count(*) FROM blobs")
        calls = c.scalar("SELECT count(*) FROM model_calls")
    svc, base = runs["service"], runs["baseline"]
    return {
        "file_bytes": len(pdf), "clients": clients, "api_processes": API_PROCESSES,
        "service_median_ms": svc["latency"].median_ms, "service_p95_ms": svc["latency"].p95_ms,
        "baseline_median_ms": base["latency"].median_ms,
        "baseline_p95_ms": base["latency"].p95_ms,
        "service_rps": svc["throughput"].throughput,
        "baseline_rps": base["throughput"].throughput,
        "latency_ratio": svc["latency"].median_ms / base["latency"].median_ms,
        "throughput_ratio": svc["throughput"].throughput / base["throughput"].throughput,
        "service_requests": hits, "hits_recorded": hits, "object_writes": writes,
        "model_calls": calls, "scaling": scaling, "api_peak_rss_mib": peaks,
    }


# --- 2. miss path vs the extractor's own time -------------------------------------------------

def embedded_cluster(work: Path) -> Cluster:
    work.mkdir(parents=True, exist_ok=True)
    (work / "metrics").mkdir(exist_ok=True)
    url = f"sqlite:///{work}/ledgerline.sqlite3"
    upgrade(url)
    env = {**os.environ, **ENV, "LEDGERLINE_DATABASE_URL": url,
           "LEDGERLINE_STORAGE_URL": f"file://{work}/objects", "LEDGERLINE_SPOOL_DIR": str(work),
           "PROMETHEUS_MULTIPROC_DIR": str(work / "metrics")}
    return Cluster(env=env, workdir=work, database_url=url)


def measure_misses(c: Cluster, pdf: bytes, tag: str, n: int, extractor) -> dict:
    """Sequential misses; after each, the extractor alone on the same bytes, in this process
    (interleaved, so that load on the machine falls on both alike)."""
    service, floor, phases = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(-1, n):  # -1: warm-up, not counted
            body = variant(pdf, f"{tag}-{i}")
            sent_at = time.time()
            started = time.perf_counter()
            response = c.upload(body, Prefer="wait=60")
            took = time.perf_counter() - started
            answered_at = time.time()
            assert response.status_code == 201 and response.headers["Ledgerline-Cache"] == "miss", \
                response.text
            path = Path(tmp) / f"{i}.pdf"
            path.write_bytes(body)
            started = time.perf_counter()
            extractor.extract(str(path), response.json()["content_hash"])
            own = time.perf_counter() - started
            if i >= 0:
                service.append(took)
                floor.append(own)
                phases.append(phases_of(c, response.json()["id"], sent_at, answered_at))
    med = statistics.median
    return {"jobs": n, "service_ms": med(service) * 1000, "extractor_ms": med(floor) * 1000,
            "overhead_ms": (med(service) - med(floor)) * 1000,
            "overhead_per_job_ms": statistics.mean(s - f for s, f in zip(service, floor)) * 1000,
            "phases_ms": {k: med(p[k] for p in phases) * 1000 for k in phases[0]}}


def phases_of(c: Cluster, invoice_id: str, sent_at: float, answered_at: float) -> dict:
    """Where one miss spent its time, from the job and the ledger (same machine, same clock)."""
    row = c.sql("SELECT j.created_at, j.finished_at, m.started_at, m.finished_at AS ended "
                "FROM invoices i JOIN jobs j ON j.id = i.job_id "
                "JOIN model_calls m ON m.job_id = j.id WHERE i.id = :id", id=invoice_id)[0]

    def ts(value) -> float:
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.timestamp()

    created, started, ended, finished = (ts(row.created_at), ts(row.started_at), ts(row.ended),
                                         ts(row.finished_at))
    return {"accept": created - sent_at, "until_claimed": started - created,
            "model_call": ended - started, "publish": max(0.0, finished - ended),
            "answer": answered_at - finished}


def bench_miss(pg, s3, work: Path, quick: bool) -> dict:
    n = 10 if quick else 30
    pdf = typical_pdf().read_bytes()
    extractor = PdfExtractor()
    out = {"file_bytes": len(pdf)}
    c = embedded_cluster(work / "miss-embedded")
    try:
        c.create_tenant()
        c.start_api(API_PROCESSES, embedded_worker=True)
        out["embedded"] = measure_misses(c, pdf, "embedded", n, extractor)
    finally:
        c.close()
    with cluster(pg, s3, BUCKET, work / "miss-production", template=TEMPLATE, **ENV) as c:
        c.create_tenant()
        c.start_api(API_PROCESSES)
        c.start_worker()
        out["production"] = measure_misses(c, pdf, "production", n, extractor)
    out["overhead_ms"] = {"embedded": out["embedded"]["overhead_ms"],
                          "pg_s3": out["production"]["overhead_ms"]}
    return out


# --- 3. the queue on PostgreSQL ---------------------------------------------------------------

def store_original(c: Cluster, sample: Path) -> tuple[str, str]:
    """Store `sample` for the account "acme" as an upload does, under its content hash:
    (storage key, content hash)."""
    data = sample.read_bytes()
    content_hash = f"blake3:{blake3.blake3(data).hexdigest()}"
    key = original_key("acme", content_hash)
    c.store.put_file(key, str(sample), hashlib.sha256(data).digest())
    return key, content_hash


def seed_jobs(c: Cluster, n: int, original: tuple[str, str], tag: str, versions: str) -> None:
    """n pending leader jobs (each its own cache key) of one stored original: (storage key,
    content hash) from store_original."""
    storage_key, content_hash = original
    with SqlDatabase(c.engine).transaction(write=True) as tx:
        caller = tx.conn.exec_driver_sql("SELECT id FROM api_keys LIMIT 1").scalar()
        tx.arrival.record_blob("acme", content_hash, storage_key, 1)
        for i in range(n):
            digest = hashlib.sha256(f"{tag}-{i}".encode()).hexdigest()
            job = NewJob(account="acme", caller_id=caller, idempotency_key=None,
                         request_hash=digest, cache_key=digest, content_hash=content_hash,
                         fresh=False, extractor_versions=versions)
            tx.arrival.insert_job(job, outcome=CacheOutcome.MISS, joinable=True)


def worker_jobs_per_second(c: Cluster, processes: int, concurrency: int, jobs: int,
                           original: tuple[str, str], tag: str, versions: str,
                           *options: str) -> tuple[float, float]:
    """Seed `jobs` into a queue that `processes` stub workers (with `options`) already listen
    on; the time until the last one is finished. Returns (jobs/s, the workers' highest peak
    RSS)."""
    workers = stub_workers(c, processes, "--concurrency", str(concurrency), *options)
    try:
        time.sleep(3)  # started, listening on an empty queue
        seeded = c.scalar("SELECT clock_timestamp()")
        seed_jobs(c, jobs, original, tag, versions)
        # A slow look, so that the benchmark takes no CPU from the queue: the time counted is
        # the database's own, from the first claim to the last finish, as procrastinate's
        # worker counts from its start to its end.
        while c.scalar("SELECT count(*) FROM jobs WHERE leader_id IS NULL AND "
                       "status IN ('pending', 'running')"):
            time.sleep(0.25)
        wall = c.scalar("SELECT extract(epoch FROM max(finished_at) - min(claimed_at)) "
                        "FROM jobs WHERE created_at >= :seeded", seeded=seeded)
        wall = float(wall)
        rss = max(peak_rss_mib(w.pid) for w in workers)
    finally:
        stop_all(workers)
    return jobs / wall, rss


def procrastinate_jobs_per_second(dsn: str, jobs: int, concurrency: int, *,
                                  first: bool) -> dict:
    """procrastinate's no-op jobs on the same PostgreSQL (bench/peer_procrastinate.py)."""
    argv = [sys.executable, str(ROOT / "bench" / "peer_procrastinate.py"),
            dsn.replace("postgresql+psycopg://", "postgresql://"), "--jobs", str(jobs),
            "--concurrency", str(concurrency)]
    if first:
        argv.append("--apply-schema")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"procrastinate peer failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_queue(pg, s3, work: Path, quick: bool) -> dict:
    per_op, throughput_jobs = (100, 300) if quick else (300, 1500)
    from bench.stub_worker import StandInModel

    model = StandInModel(0)
    out: dict = {}
    with cluster(pg, s3, BUCKET, work / "queue", template=TEMPLATE, **ENV) as c:
        c.create_tenant()
        sample = work / "queue-sample.pdf"
        sample.write_bytes(typical_pdf().read_bytes())
        original = store_original(c, sample)

        # One job at a time, each step its own statement, as the worker makes them; a renewal
        # only for a job held past a third of its lease (timed here all the same).
        versions = model.versions.label
        seed_jobs(c, per_op, original, "ops", versions)
        steps = {name: [] for name in ("claim_and_start", "renew", "publish_and_finish")}
        fetches: list[float] = []
        lease = 30.0
        db = SqlDatabase(c.engine)  # the port, as the worker's services hold it
        for _ in range(per_op):
            opening = CallOpening(new_id("call"), "extract_invoice", PRICE)
            t0 = time.perf_counter()
            with db.transaction(write=True, single_statement=True) as tx:
                job = tx.claims.claim_and_start("bench:1:x", lease, versions, opening)
            t1 = time.perf_counter()
            with db.transaction(write=True) as tx:
                assert tx.claims.renew(job.claim, lease)
            t2 = time.perf_counter()
            document = model.extract("-", job.content_hash)
            t3 = time.perf_counter()
            with db.transaction(write=True, single_statement=True) as tx:
                assert tx.claims.publish_and_finish(job, opening.of(job), document,
                                                    result_id=new_id("res"),
                                                    record_in_cache=True)
            t4 = time.perf_counter()
            for name, took in zip(steps, (t1 - t0, t2 - t1, t4 - t3)):
                steps[name].append(took)
            # What the worker does between its claim and the model call, timed apart: the
            # original's fetch from S3, checked against its hash, as Attempt._fetch makes it.
            with tempfile.TemporaryFile() as f:
                t5 = time.perf_counter()
                fetch_original(c.store, *original, f)
                fetches.append(time.perf_counter() - t5)
        out["steps_ms"] = {name: statistics.median(v) * 1000 for name, v in steps.items()}
        out["fetch_ms"] = statistics.median(fetches) * 1000
        totals = [sum(v[i] for v in steps.values()) for i in range(per_op)]
        out["per_job_ms"] = statistics.median(totals) * 1000
        out["per_job_jobs"] = per_op

        # Jobs/s through real worker processes, interleaved with the peer on the same server.
        out["jobs_per_second"], out["worker_peak_rss_mib"] = {}, {}
        peer_db = pg.create_database(f"peer_{os.getpid()}")
        out["peer"] = {}
        shapes = [(1, 1), (1, 4)] + [(n, 1) for n in SCALING if n != 1]
        for processes, concurrency in shapes:
            tag = f"tp{processes}x{concurrency}"
            rate, rss = worker_jobs_per_second(c, processes, concurrency, throughput_jobs,
                                               original, tag, versions)
            out["jobs_per_second"][(processes, concurrency)] = rate
            out["worker_peak_rss_mib"][(processes, concurrency)] = rss
            if processes == 1:
                out["peer"][concurrency] = procrastinate_jobs_per_second(
                    peer_db, throughput_jobs, concurrency, first=not out["peer"])
        out["throughput_jobs"] = throughput_jobs
        out["file_bytes"] = sample.stat().st_size
        failed = c.scalar("SELECT count(*) FROM jobs WHERE status <> 'completed'")
        assert failed == 0, f"{failed} queue jobs did not complete"
    return out


# --- 4. traffic replay --------------------------------------------------------------------------

ACCOUNTS = [f"replay-{i}" for i in range(1, 6)]


def replay_plan(uploads: int, files: int, seed: int = 7) -> tuple[list, int, int]:
    """Events: ("one", account, file, role) or ("burst", account, file, size).

    Every file goes into most of the accounts (each pair is a separate cached item: the cache
    is per account); 10-15 % of the uploads repeat an (account, file) pair exactly, a share of
    them as bursts of identical uploads fired together.
    """
    rng = random.Random(seed)
    target_repeats = round(uploads * rng.uniform(0.10, 0.15))
    distinct = uploads - target_repeats
    pairs = [(a, f) for f in range(files) for a in ACCOUNTS]
    rng.shuffle(pairs)
    pairs = pairs[:distinct]
    bursts = {}
    repeats_left = target_repeats
    for pair in rng.sample(pairs, len(pairs) // 40):  # ~2.5 % of pairs arrive as a burst
        size = rng.randint(3, 6)
        if size - 1 > repeats_left:
            break
        bursts[pair] = size
        repeats_left -= size - 1
    events = [("burst", *p, bursts[p]) if p in bursts else ("one", *p, "supplier")
              for p in pairs]
    for _ in range(repeats_left):  # later exact repeats: mostly the customer's own copy
        pair = pairs[rng.randrange(len(pairs))]
        at = rng.randrange(len(events) // 2, len(events) + 1)
        events.insert(at, ("one", *pair, rng.choice(["customer", "customer", "supplier"])))
    total = sum(e[3] if e[0] == "burst" else 1 for e in events)
    assert total == uploads, total
    return events, len(pairs), len(bursts)


def bench_replay(pg, s3, work: Path, quick: bool) -> dict:
    uploads, files = (2000, 400) if quick else (10_000, 2_000)
    events, distinct_pairs, burst_count = replay_plan(uploads, files)
    sources = [p.read_bytes() for p in text_layer_pdfs()[:25]]
    body = {f: variant(sources[f % len(sources)], f"replay-{f}") for f in range(files)}
    with cluster(pg, s3, BUCKET, work / "replay", template=TEMPLATE, **ENV) as c:
        keys = {a: c.create_tenant(a) for a in ACCOUNTS}
        with transaction(c.engine, write=True) as conn:
            operator = create_key(conn, Role.OPERATOR, None, "bench", utcnow())[1]
        c.start_api(API_PROCESSES)
        workers = stub_workers(c, 2, "--delay-ms", "20", "--concurrency", "4")
        statuses: dict[int, int] = {}
        lock = threading.Lock()
        local = threading.local()

        def post(account, file, role):
            conn = getattr(local, "conn", None) or Connection(c.base)
            local.conn = conn
            status, _, data = conn.request("POST", f"/v1/accounts/{account}/invoices",
                                           body[file], auth(keys[account][role]))
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
            if status not in (200, 201, 202):
                raise RuntimeError(f"upload answered {status}: {data[:300]!r}")

        def run(event):
            kind, account, file, extra = event
            if kind == "one":
                return post(account, file, extra)
            barrier = threading.Barrier(extra)

            def together(i):
                barrier.wait()
                post(account, file, ("supplier", "customer")[i % 2])
            with ThreadPoolExecutor(extra) as burst:
                list(burst.map(together, range(extra)))

        started = time.perf_counter()
        try:
            with ThreadPoolExecutor(12) as pool:
                for future in [pool.submit(run, e) for e in events]:
                    future.result()
            upload_wall = time.perf_counter() - started
            c.wait_all_finished(timeout=900)
            total_wall = time.perf_counter() - started
        finally:
            stop_all(workers)
        calls = c.scalar("SELECT count(*) FROM model_calls")
        published = c.scalar("SELECT count(*) FROM model_calls WHERE outcome = 'published'")
        outcomes = dict(c.sql("SELECT outcome, count(*) FROM jobs GROUP BY outcome"))
        day = datetime.now(UTC).date().isoformat()
        report = requests.get(f"{c.base}/v1/reports/duplicates", params={"day": day},
                              headers={"Authorization": f"Bearer {operator}"}, timeout=60).json()
    return {
        "uploads": uploads, "files": files, "accounts": len(ACCOUNTS),
        "distinct_pairs": distinct_pairs, "repeats": uploads - distinct_pairs,
        "repeat_share": (uploads - distinct_pairs) / uploads, "bursts": burst_count,
        "model_calls": calls, "published": published, "outcomes": outcomes,
        "exact": calls == distinct_pairs, "statuses": statuses,
        "upload_seconds": upload_wall, "total_seconds": total_wall,
        "uploads_per_second": uploads / upload_wall,
        "cost_without_cache": uploads * PRICE, "cost": calls * PRICE,
        "cost_avoided": (uploads - calls) * PRICE,
        "report_requests": report.get("requests"),
    }


# --- the table --------------------------------------------------------------------------------

def table(rows: list[tuple]) -> str:
    lines = ["| measure | Ledgerline | floor / goal | ratio |", "| --- | ---: | ---: | ---: |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def render(results: dict) -> str:
    rows = []
    if "hit" in results:
        h = results["hit"]
        rows += [
            (f"cache-hit upload, median latency (1 client, {h['file_bytes'] // 1024} KiB)",
             f"{h['service_median_ms']:.1f} ms", f"{h['baseline_median_ms']:.1f} ms store-only",
             f"{h['latency_ratio']:.2f}x (goal <= 0.8x)"),
            ("cache-hit upload, p95 latency (1 client)", f"{h['service_p95_ms']:.1f} ms",
             f"{h['baseline_p95_ms']:.1f} ms", ""),
            (f"cache-hit upload, throughput ({h['clients']} clients, {h['api_processes']} procs)",
             f"{h['service_rps']:.0f} req/s", f"{h['baseline_rps']:.0f} req/s",
             f"{h['throughput_ratio']:.2f}x (goal >= 1.25x)"),
            ("  object writes / model calls during the hit run",
             f"{h['object_writes']} / {h['model_calls']}", f"{h['service_requests']} hits", ""),
        ]
        one = h["scaling"][1]["service_rps"]
        for n, got in sorted(h["scaling"].items()):
            rows.append((f"scaling: hit throughput, {n} API process{'es' if n > 1 else ''}",
                         f"{got['service_rps']:.0f} req/s ({got['service_rps'] / one:.2f}x of 1)",
                         f"{got['baseline_rps']:.0f} req/s store-only",
                         f"{got['service_rps'] / got['baseline_rps']:.2f}x"))
        rows += [(f"memory: peak RSS of an API process, {n} process{'es' if n > 1 else ''}",
                  f"{mib:.0f} MiB", "goal < 150 MiB", "") for n, mib in sorted(
                      h["api_peak_rss_mib"].items())]
    if "miss" in results:
        for shape, label in (("embedded", "embedded default"), ("production", "PG + S3")):
            m = results["miss"][shape]
            rows.append((f"miss upload -> result, median ({label}, {m['jobs']} files)",
                         f"{m['service_ms']:.0f} ms", f"{m['extractor_ms']:.0f} ms extractor alone",
                         f"+{m['overhead_ms']:.0f} ms (goal <= 20 ms)"))
            phases = ", ".join(f"{k.replace('_', ' ')} {v:.0f}" for k, v in m["phases_ms"].items())
            rows.append((f"  where it went ({label}), median ms", phases,
                         "model call = the call's ledger row: the original's fetch and the "
                         "sandboxed extraction",
                         (f"+{m['service_ms'] - m['phases_ms']['model_call']:.0f} ms around "
                          "the model call")))
    if "queue" in results:
        q = results["queue"]
        steps = ", ".join(f"{k} {v:.2f}" for k, v in q["steps_ms"].items())
        rows.append(("queue: claim+start, renew, publish+finish per job (PG)",
                     f"{q['per_job_ms']:.1f} ms", steps + " ms", ""))
        jps = q["jobs_per_second"]
        kib = q["file_bytes"] // 1024
        fetch = f"queue: the original's fetch per job (one signed S3 GET, hash checked, {kib} KiB)"
        whole = 1000 / q["peer"][1]["jobs_per_second"]
        rows.append((fetch, f"{q['fetch_ms']:.1f} ms",
                     f"{whole:.1f} ms a whole procrastinate no-op job", ""))
        for concurrency, peer in sorted(q["peer"].items()):
            ours = jps[(1, concurrency)]
            rows.append((f"queue: jobs/s, 1 worker process, concurrency {concurrency} "
                         f"({q['throughput_jobs']} jobs, no-latency model)",
                         f"{ours:.0f} jobs/s",
                         f"{peer['jobs_per_second']:.0f} jobs/s procrastinate {PEER_VERSION}",
                         f"{ours / peer['jobs_per_second']:.2f}x (goal >= 1.0x)"))
        one = jps[(1, 1)]
        for n in SCALING:
            rows.append((f"scaling: jobs/s, {n} worker process{'es' if n > 1 else ''}",
                         f"{jps[(n, 1)]:.0f} jobs/s", "", f"{jps[(n, 1)] / one:.2f}x of 1"))
        for (n, conc), mib in sorted(q["worker_peak_rss_mib"].items()):
            rows.append((f"memory: peak RSS of a worker process ({n} x concurrency {conc})",
                         f"{mib:.0f} MiB", "", ""))
        for concurrency, peer in sorted(q["peer"].items()):
            rows.append((f"memory: peak RSS of the procrastinate worker (concurrency "
                         f"{concurrency})", f"{peer['peak_rss_mib']:.0f} MiB", "", ""))
    if "replay" in results:
        r = results["replay"]
        rows += [
            (f"replay: {r['uploads']:,} uploads, {r['files']:,} files, {r['accounts']} accounts",
             f"{r['model_calls']:,} model calls",
             f"{r['distinct_pairs']:,} distinct (account, file)",
             "exact" if r["exact"] else "MISMATCH"),
            ("replay: repeats / bursts of simultaneous duplicates",
             f"{r['repeats']:,} ({r['repeat_share']:.1%})", f"{r['bursts']} bursts", ""),
            ("replay: outcomes (miss / hit / joined)",
             " / ".join(str(r["outcomes"].get(k, 0)) for k in ("miss", "hit", "joined")), "", ""),
            ("replay: model cost at 0.004 USD/call", f"{r['cost']:.2f} USD",
             f"{r['cost_without_cache']:.2f} USD without cache",
             f"{r['cost_avoided']:.2f} USD avoided"),
            ("replay: service's own report, cost_avoided",
             f"{(r['report_requests'] or {}).get('cost_avoided')} USD", "", ""),
            ("replay: upload rate / whole replay", f"{r['uploads_per_second']:.0f} uploads/s",
             f"{r['total_seconds']:.0f} s to the last result", ""),
        ]
    if "cli" in results:
        rows += cli_start.rows(results["cli"])
    if "engine" in results:
        rows += engine.rows(results["engine"])
    if "backfill" in results:
        rows += backfill.rows(results["backfill"])
    if "history" in results:
        rows += history.rows(results["history"])
    return table(rows)


def machine() -> str:
    cpus = os.cpu_count()
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (f"{platform.system()} {platform.machine()}, {cpus} cores ({model}), Python "
            f"{platform.python_version()}")


def load_line(when: str) -> tuple[str, float, float]:
    """`uptime`'s load averages (1, 5, 15 min): the machine is shared, so say what it was.
    Returns the line, the higher of the 1- and 5-minute averages, and the 1-minute one."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} {when}", max(one, five), one


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="hit,miss,queue,replay,cli,engine,backfill,history",
                        help="comma-separated subset of: hit, miss, queue, replay, cli, "
                             "engine, backfill, history")
    parser.add_argument("--quick", action="store_true", help="smaller runs, for a smoke test")
    parser.add_argument("--json", type=Path, help="also write the raw numbers here")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    benches = {"hit": bench_hit, "miss": bench_miss, "queue": bench_queue,
               "replay": bench_replay, "cli": cli_start.bench_cli,
               "engine": engine.bench_engine, "backfill": backfill.bench_backfill,
               "history": history.bench_history}
    unknown = set(chosen) - set(benches)
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    # SIGTERM unwinds like Ctrl-C, so that every server and process started here is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"# Ledgerline production shape, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(machine())
    before, load_before, one_before = load_line("before")
    print(before, flush=True)
    results: dict = {}
    work = Path(tempfile.mkdtemp(prefix="ledgerline-bench-"))
    try:
        with postgres_server() as pg, seaweed_s3_server() as s3, \
                OtherWork(lambda: [postmaster_pid(pg.data_dir)]) as other:
            s3.create_bucket(BUCKET)
            upgrade(pg.create_database(TEMPLATE))
            for name in chosen:
                started = time.perf_counter()
                print(f"... {name}", file=sys.stderr, flush=True)
                results[name] = benches[name](pg, s3, work, args.quick)
                print(f"... {name} done in {time.perf_counter() - started:.0f} s",
                      file=sys.stderr, flush=True)
    except BaseException:
        print(f"logs of the processes are kept in {work}", file=sys.stderr)
        raise
    shutil.rmtree(work, ignore_errors=True)
    after, _, one_after = load_line("after (the benchmark's own processes included)")
    print(after)
    cores = os.cpu_count() or 1
    busy = f"other work on the machine during the run: {other.cores:.2f} of {cores} cores"
    print(busy)
    print(render(results))
    # The load after counts the benchmark's own servers and clients, which alone exceed 2 cores;
    # what makes ratios noisy is other work, measured as CPU the benchmark's processes did not
    # spend (bench/other_work.py), and a machine already loaded when the run began.
    quiet = not (load_before > cores or other.cores > OTHER_WORK_SHARE * cores)
    if args.json:
        results["load"] = {"before": one_before, "after": one_after, "before_line": before,
                           "after_line": after, "other_work_cores": other.cores,
                           "quiet": quiet}
        write_json(args.json, results)
    if not quiet:
        print(f"NOT RECORDED: the machine was busy with other work (load {load_before:.2f} "
              f"before; {other.cores:.2f} cores taken during the run, the limit "
              f"{OTHER_WORK_SHARE * cores:.2f}); the ratios are noisy. Rerun when it is "
              "quieter.", file=sys.stderr)
        return LOADED
    ok = results.get("replay", {}).get("exact", True)
    ok = ok and results.get("backfill", {}).get("model_calls_per_unique_file", 1) == 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
