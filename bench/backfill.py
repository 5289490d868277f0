"""A backfill at the extractor's own speed: generated invoices through `ledgerline upload`.

N generated invoices (1,000; `--quick`: 120) in 8 languages (ledgerline_tools.samples): 85 % unique
files, 10 % byte-for-byte copies of some of them under other names, 5 % re-sent afterwards by a
second `ledgerline upload` over copies of already sent files (what running the command again
after a crash does). `ledgerline upload` makes each file's Idempotency-Key from its bytes and
the account, so the copies and the re-sends carry the key of their first upload and are
answered as replays of it.

    ledgerline upload DIR --concurrency 8 --wait        then the re-sends, the same way

against a served instance: the embedded default (`ledgerline serve`, SQLite and a local
directory, its 2 API processes each with its embedded worker) and PostgreSQL + S3 (2 API
processes, 2 `ledgerline worker` processes). The time counted is the two commands' wall clock,
until every result is in.

The floor, measured once before both backfills (at full size each run takes minutes on a
loaded 2-core machine): `ledgerline extract` over the unique files
only, split in two halves run by 2 processes at once, at their steady rate (the sandbox's
warm-up left out, as the served instances pay theirs before the backfill starts). The ratio is the floor's wall clock over the backfill's: the backfill's
invoices/s over the extractor-only limit for the same N invoices (only the unique ones need
reading). Model calls are counted from the database: exactly one per unique file. The peak
RSS of every process of each run (sampled from /proc, every sandbox child included that lived
through a sample) is printed.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench import cpu_seconds

LANGUAGES = 8
REPEAT_SHARE, RESEND_SHARE = 0.10, 0.05
CONCURRENCY = 8
WORKER_PROCESSES = 2
SHAPES = {"embedded": "embedded default", "pg_s3": "PG + S3, 2 workers"}
BIN = Path(sys.executable).parent


# --- the invoices -------------------------------------------------------------------------

def _generate(job: tuple[int, str]) -> bytes:
    from ledgerline_tools.samples import generate

    seed, lang = job
    return generate(seed, lang=lang)[0]


def write_invoices(dest: Path, total: int, seed: int = 26) -> dict:
    """DIR (unique files and byte-for-byte copies), RESEND (copies sent again), and the
    unique files split in two halves for the extractor-only floor."""
    from ledgerline_tools.samples import LANGUAGE_CODES

    langs = LANGUAGE_CODES[:LANGUAGES]
    repeats, resends = round(total * REPEAT_SHARE), round(total * RESEND_SHARE)
    unique = total - repeats - resends
    upload_dir, resend_dir = dest / "upload", dest / "resend"
    halves = [dest / "unique-a", dest / "unique-b"]
    for d in (upload_dir, resend_dir, *halves):
        d.mkdir(parents=True, exist_ok=True)
    names, seen = [], set()
    next_seed = seed * 100_000
    with ProcessPoolExecutor(2) as pool:
        while len(names) < unique:
            wanted = unique - len(names)
            jobs = [(next_seed + i, langs[(len(names) + i) % len(langs)]) for i in range(wanted)]
            next_seed += wanted
            for (s, lang), pdf in zip(jobs, pool.map(_generate, jobs, chunksize=8)):
                digest = hashlib.sha256(pdf).digest()
                if digest in seen:
                    continue  # a collision would make a file not unique: draw another
                seen.add(digest)
                name = f"inv-{len(names):04d}-{lang}.pdf"
                (upload_dir / name).write_bytes(pdf)
                os.link(upload_dir / name, halves[len(names) % 2] / name)
                names.append(name)
    rng = random.Random(seed)
    for i, name in enumerate(rng.sample(names, repeats)):
        shutil.copyfile(upload_dir / name, upload_dir / f"copy-{i:03d}-{name}")
    for name in rng.sample(names, resends):
        shutil.copyfile(upload_dir / name, resend_dir / name)
    return {"total": total, "unique": unique, "repeats": repeats, "resends": resends,
            "languages": list(langs), "upload_dir": upload_dir, "resend_dir": resend_dir,
            "halves": halves}


# --- peak RSS of every process ---------------------------------------------------------------

def _status(pid: int) -> dict | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    if "VmHWM" not in fields:
        return None  # a zombie or a kernel thread
    return {"ppid": int(fields["PPid"]), "hwm": int(fields["VmHWM"].split()[0]) / 1024}


def _cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


class Peaks:
    """Samples the peak RSS (VmHWM) of every process under the roots it is given, twice a
    second, each named by what it is (a fork server's children are the sandbox's)."""

    INTERVAL = 0.5

    def __init__(self):
        self.roots: dict[int, str] = {}
        self.seen: dict[int, tuple[str, float]] = {}  # pid -> (what it is, peak MiB)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="rss-sampler")

    def watch(self, pid: int, name: str) -> None:
        self.roots[pid] = name

    def __enter__(self) -> Peaks:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._sample()
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.INTERVAL):
            self._sample()

    def _sample(self) -> None:
        statuses = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                got = _status(int(entry))
                if got is not None:
                    statuses[int(entry)] = got
        names = dict(self.roots)
        pending = [pid for pid in self.roots if pid in statuses]
        while pending:  # breadth first from the roots
            parent = pending.pop(0)
            for pid, st in statuses.items():
                if st["ppid"] == parent and pid not in names:
                    names[pid] = self._name(pid, names[parent])
                    pending.append(pid)
        for pid, name in names.items():
            if pid in statuses:
                peak = max(statuses[pid]["hwm"], self.seen.get(pid, ("", 0.0))[1])
                self.seen[pid] = (name, peak)

    @staticmethod
    def _name(pid: int, parent: str) -> str:
        cmd = _cmdline(pid)
        if "resource_tracker" in cmd:
            return "multiprocessing resource tracker"
        if parent.startswith("sandbox"):  # read by its fork server's own parent's name
            return "sandbox child"
        if "forkserver" in cmd:
            return "sandbox fork server"
        if parent.startswith("API"):
            return "API process (gunicorn worker)"
        return f"child of {parent}"

    def summary(self) -> dict:
        """{what: {"processes": n, "peak_rss_mib": the highest}}."""
        out: dict[str, dict] = {}
        for name, peak in self.seen.values():
            got = out.setdefault(name, {"processes": 0, "peak_rss_mib": 0.0})
            got["processes"] += 1
            got["peak_rss_mib"] = max(got["peak_rss_mib"], peak)
        return out


# --- the runs ----------------------------------------------------------------------------------

def extract_floor(plan: dict, env: dict, logs: Path) -> dict:
    """`ledgerline extract` over the unique files, two processes at once, at their steady
    rate: each file's answer line is timed as it arrives, and each process's rate counted from
    its first answer to its last, so that the sandbox's warm-up (seconds: Tesseract's models,
    the official rules), which the served instances pay before the backfill starts, is left
    out of the floor too. The floor's seconds: the unique files at the two rates together.
    Its CPU seconds are counted over the same span: each process tree's from its first answer
    to its last, per file after the first."""
    lines: dict[int, list[tuple[float, dict]]] = {}
    first_cpu: dict[int, dict] = {}  # each process tree's at its first answer, and its last
    last_cpu: dict[int, dict] = {}

    def read(i: int, proc, files: int) -> None:
        roots = {proc.pid: "ledgerline extract"}
        with open(logs / f"extract-{i}.jsonl", "w") as out:
            for line in proc.stdout:
                lines[i].append((time.perf_counter(), json.loads(line)))
                if len(lines[i]) == 1:
                    first_cpu[i] = cpu_seconds.snapshot(roots)
                if len(lines[i]) == files:
                    last_cpu[i] = cpu_seconds.snapshot(roots)
                out.write(line)

    with Peaks() as peaks:
        started = time.perf_counter()
        procs, readers = [], []
        for i, half in enumerate(plan["halves"]):
            err = open(logs / f"extract-{i}.log", "wb")
            proc = subprocess.Popen([str(BIN / "ledgerline"), "extract", str(half)], env=env,
                                    stdout=subprocess.PIPE, stderr=err, text=True,
                                    stdin=subprocess.DEVNULL)
            peaks.watch(proc.pid, "ledgerline extract")
            lines[i] = []
            files = len(os.listdir(half))
            readers.append(threading.Thread(target=read, args=(i, proc, files)))
            readers[-1].start()
            procs.append((proc, err))
        for (proc, err), reader in zip(procs, readers):
            proc.wait()
            reader.join()
            err.close()
        wall = time.perf_counter() - started
    failed = sum("error" in doc for got in lines.values() for _, doc in got)
    rates = [(len(got) - 1) / (got[-1][0] - got[0][0]) for got in lines.values()]
    steady = plan["unique"] / sum(rates)
    spans = [cpu_seconds.difference(last_cpu[i], first_cpu[i]) for i in lines]
    timed_files = sum(len(got) - 1 for got in lines.values())
    per_file = {name: seconds / timed_files
                for name, seconds in cpu_seconds.add(*spans).items()}
    return {"seconds": steady, "wall_seconds": wall, "files": plan["unique"], "failed": failed,
            "files_per_second": sum(rates), "peaks": peaks.summary(),
            "cpu_seconds_per_file": per_file,
            "cpu_seconds": {name: seconds * plan["unique"] for name, seconds in per_file.items()}}


def upload(base: str, key: str, account: str, directory: Path, env: dict, log: Path,
           peaks: Peaks) -> dict:
    """One `ledgerline upload DIR --concurrency 8 --wait`; its JSON summary, and the CPU
    seconds it spent (its own and its reaped children's, from the kernel as it is reaped)."""
    with open(log, "wb") as err:
        proc = subprocess.Popen([str(BIN / "ledgerline"), "upload", "--url", base, "--key", key,
                                 "--account", account, "--concurrency", str(CONCURRENCY),
                                 "--wait", "--timeout", "3600", "--format", "json",
                                 str(directory)],
                                env=env, stdout=subprocess.PIPE, stderr=err,
                                stdin=subprocess.DEVNULL)
        peaks.watch(proc.pid, "ledgerline upload")
        with proc.stdout:
            stdout = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"ledgerline upload exited {proc.returncode}:\n{log.read_text()}")
    return {**json.loads(stdout)["summary"], "cpu_seconds": cpu_seconds.rusage_seconds(usage)}


def backfill(c, plan: dict, peaks: Peaks, roots: dict[int, str]) -> dict:
    """Both commands against the served instance `c`; the wall clock of both, the CPU seconds
    of every process under `roots` ({pid: what it is}) and of the commands, and what the
    database says was done."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cpu_before = cpu_seconds.snapshot(roots)
    started = time.perf_counter()
    first = upload(c.base, c.keys["customer"], c.account, plan["upload_dir"], env,
                   c.workdir / "upload.log", peaks)
    again = upload(c.base, c.keys["customer"], c.account, plan["resend_dir"], env,
                   c.workdir / "resend.log", peaks)
    wall = time.perf_counter() - started
    cpu = cpu_seconds.difference(cpu_seconds.snapshot(roots), cpu_before)
    cpu["ledgerline upload"] = first["cpu_seconds"] + again["cpu_seconds"]
    calls = c.scalar("SELECT count(*) FROM model_calls WHERE operation = 'extract_invoice'")
    billed = c.scalar("SELECT count(*) FROM model_calls WHERE operation = 'extract_invoice' "
                      "AND outcome = 'published'")
    statuses = dict(c.sql("SELECT status, count(*) FROM jobs GROUP BY status"))
    return {"seconds": wall, "invoices": plan["total"],
            "invoices_per_second": plan["total"] / wall, "upload": first, "resend": again,
            "model_calls": calls, "published_calls": billed, "job_statuses": statuses,
            "model_calls_per_unique_file": calls / plan["unique"], "cpu_seconds": cpu}


def wait_warm(worker_pids: list[int], timeout: float = 120) -> None:
    """Until each worker's sandbox is warm: its fork server has forked the first spare."""
    from tests.production.cluster import children

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(any(children(server) for server in children(pid)) for pid in worker_pids):
            return
        time.sleep(0.2)
    raise RuntimeError("the workers' sandboxes did not warm up")


def cached_invoices(total: int) -> dict:
    """The invoices of `write_invoices`, kept between runs (generating 1,000 takes minutes on
    a loaded machine), under the generator's version: the same version, the same bytes."""
    from ledgerline_tools.samples import GENERATOR_VERSION

    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    dest = root / "ledgerline-bench" / f"backfill-{GENERATOR_VERSION}-{total}"
    done = dest / "complete.json"
    if not done.exists():
        shutil.rmtree(dest, ignore_errors=True)
        plan = write_invoices(dest, total)
        done.write_text(json.dumps({k: str(v) if isinstance(v, Path) else v
                                    for k, v in plan.items()}, default=str))
    saved = json.loads(done.read_text())
    return {**saved, "upload_dir": dest / "upload", "resend_dir": dest / "resend",
            "halves": [dest / "unique-a", dest / "unique-b"]}


def bench_backfill(pg, s3, work: Path, quick: bool) -> dict:
    from bench import production as p
    from bench.other_work import postmaster_pid

    total = 120 if quick else 1000
    started = time.perf_counter()
    plan = cached_invoices(total)
    out: dict = {"plan": {k: v for k, v in plan.items() if not isinstance(v, (Path, list))
                          or k == "languages"},
                 "generated_in_seconds": time.perf_counter() - started, "runs": {}}
    extract_env = {**os.environ, **p.ENV, "LEDGERLINE_DATABASE_URL": "sqlite:///:memory:"}
    floor_logs = work / "backfill-extract"
    floor_logs.mkdir(parents=True, exist_ok=True)
    floor = extract_floor(plan, extract_env, floor_logs)
    if floor["failed"]:
        raise RuntimeError(f"ledgerline extract failed on {floor['failed']} files")
    for shape in SHAPES:
        logs = work / f"backfill-{shape}"
        logs.mkdir(parents=True, exist_ok=True)
        with contextlib.ExitStack() as stack, Peaks() as peaks:
            roots: dict[int, str] = {}
            if shape == "embedded":
                c = p.embedded_cluster(logs / "service")
                stack.callback(c.close)
                c.create_tenant()
                c.start_api(p.API_PROCESSES, embedded_worker=True)
            else:
                c = stack.enter_context(p.cluster(pg, s3, p.BUCKET, logs / "service",
                                                  template=p.TEMPLATE, **p.ENV))
                c.create_tenant()
                c.start_api(p.API_PROCESSES)
                workers = [c.start_worker() for _ in range(WORKER_PROCESSES)]
                wait_warm([w.pid for w in workers])
                for w in workers:
                    peaks.watch(w.pid, "ledgerline worker")
                    roots[w.pid] = "ledgerline worker"
                roots[postmaster_pid(pg.data_dir)] = "PostgreSQL postmaster"
                roots[s3.pid] = "SeaweedFS (weed server: master, volume, filer, S3)"
            peaks.watch(c.api.pid, "API (gunicorn master)")
            roots[c.api.pid] = "API (gunicorn master)"
            run = backfill(c, plan, peaks, roots)
        run["peaks"] = peaks.summary()
        run["floor"] = floor
        run["ratio"] = floor["seconds"] / run["seconds"]
        run["cpu_ratio"] = (sum(floor["cpu_seconds"].values())
                            / sum(run["cpu_seconds"].values()))
        out["runs"][shape] = run
    out["ratio"] = {shape: run["ratio"] for shape, run in out["runs"].items()}
    calls = sum(run["model_calls"] for run in out["runs"].values())
    out["model_calls_per_unique_file"] = calls / (plan["unique"] * len(out["runs"]))
    return out


def rows(b: dict) -> list[tuple]:
    plan = b["plan"]
    out = []
    for shape, run in b["runs"].items():
        label = SHAPES[shape]
        floor = run["floor"]
        limit = plan["total"] / floor["seconds"]
        out.append((f"backfill: {plan['total']:,} invoices ({plan['unique']} unique, "
                    f"{plan['repeats']} copies, {plan['resends']} re-sent), {label}",
                    f"{run['invoices_per_second']:.1f} invoices/s ({run['seconds']:.0f} s)",
                    f"{limit:.1f} invoices/s: `ledgerline extract` x2 over the unique files "
                    f"({floor['seconds']:.0f} s)", f"{run['ratio']:.2f}x (goal >= 0.9x)"))
        up, again = run["upload"], run["resend"]
        out.append((f"  model calls / unique files ({label})",
                     f"{run['model_calls']} / {plan['unique']}",
                     f"upload: {up['completed']} completed, {up['replayed']} replayed, "
                     f"{up['hit']} hits, {up['failed']} failed; re-send: {again['replayed']} "
                     "replayed", "exact" if run["model_calls"] == plan["unique"] else
                     "MISMATCH"))
        out.extend(cpu_rows(run, floor, plan, label))
        for what, peaks in (("backfill", run["peaks"]), ("extract floor", floor["peaks"])):
            for name, got in sorted(peaks.items()):
                out.append((f"  memory: peak RSS, {name} ({what}, {label})",
                            f"{got['peak_rss_mib']:.0f} MiB", f"{got['processes']} processes",
                            ""))
    return out


def cpu_rows(run: dict, floor: dict, plan: dict, label: str) -> list[tuple]:
    """The CPU seconds of the backfill by process, against the floor's for the same unique
    files: with both cores busy, the wall-clock ratio can be no better than the CPU ratio."""
    spent, limit = run["cpu_seconds"], floor["cpu_seconds"]
    total, floor_total = sum(spent.values()), sum(limit.values())
    out = [(f"  CPU seconds, every process (backfill, {label})",
            f"{total:.1f} s ({1000 * total / plan['total']:.0f} ms an invoice)",
            f"{floor_total:.1f} s: `ledgerline extract` x2, {plan['unique']} unique files "
            f"({1000 * floor_total / plan['unique']:.0f} ms a file)",
            f"{run['cpu_ratio']:.2f}x (the ratio's bound on a busy machine)")]
    for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        if seconds >= 0.05:
            out.append((f"    CPU seconds, {name} (backfill, {label})", f"{seconds:.1f} s",
                        f"{1000 * seconds / plan['total']:.1f} ms an invoice", ""))
    for name, seconds in sorted(limit.items(), key=lambda kv: -kv[1]):
        if seconds >= 0.05:
            out.append((f"    CPU seconds, {name} (extract floor)", f"{seconds:.1f} s",
                        f"{1000 * seconds / plan['unique']:.1f} ms a file", ""))
    return out
