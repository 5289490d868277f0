"""CPU seconds by kind of process: where a benchmark's CPU went, not only how long it took.

On a shared 2-core machine a wall-clock ratio moves with whatever else runs; the CPU time each
of the run's own processes spent moves much less. With both cores busy, a backfill cannot go
faster than the extractor alone by more than the ratio of their CPU seconds, so these figures
say what a ratio is made of, and which process to make cheaper.

A snapshot walks /proc once: every process under the roots it is given is named by what it is
(from its parent's name and its command line), and its own CPU (utime + stime) is counted under
that name, the CPU of the children it has reaped (cutime + cstime) under the name its children
get. The difference of two snapshots is therefore exact for processes that started or ended
between them, so long as a process of the tree reaped them (a fork server its sandbox
children, PostgreSQL's postmaster its backends, gunicorn's master its workers).
"""
from __future__ import annotations

import contextlib
import os
from collections import defaultdict
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> tuple[int, float, float] | None:
    """(parent pid, own CPU seconds, CPU seconds of its reaped children)."""
    try:
        stat = Path("/proc", pid, "stat").read_text()
    except OSError:
        return None
    rest = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
    utime, stime, cutime, cstime = (int(v) for v in rest[11:15])
    return int(rest[1]), (utime + stime) / TICKS, (cutime + cstime) / TICKS


def _cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def kind(cmd: str, parent: str) -> str:
    """What a process is, from its command line ("" once it is gone) and its parent's kind."""
    if parent.startswith("sandbox"):  # the fork server's children: one per document
        return "sandbox children"
    if "resource_tracker" in cmd:
        return "multiprocessing resource tracker"
    if "forkserver" in cmd:
        return "sandbox fork server"
    if parent.startswith("API"):
        return "API processes (gunicorn workers)"
    if parent.startswith("PostgreSQL"):
        # A client's backend names its client's address; the rest are the server's own.
        backend = not cmd or "(" in cmd or "[local]" in cmd or "autovacuum worker" in cmd
        return "PostgreSQL backends" if backend else "PostgreSQL background processes"
    return f"children of {parent}"


def snapshot(roots: dict[int, str]) -> dict[str, float]:
    """{kind: CPU seconds so far} over the process trees under `roots` ({pid: kind})."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (got := _stat(entry)) is not None:
            stats[int(entry)] = got
    offspring: dict[int, list[int]] = defaultdict(list)
    for pid, (ppid, _, _) in stats.items():
        offspring[ppid].append(pid)
    kinds = {pid: name for pid, name in roots.items() if pid in stats}
    pending = list(kinds)
    while pending:  # breadth first from the roots
        parent = pending.pop(0)
        for pid in offspring[parent]:
            if pid not in kinds:
                kinds[pid] = kind(_cmdline(pid), kinds[parent])
                pending.append(pid)
    out: dict[str, float] = defaultdict(float)
    for pid, name in kinds.items():
        _, own, reaped = stats[pid]
        out[name] += own
        if reaped:
            out[kind("", name)] += reaped
    return dict(out)


def difference(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {name: after.get(name, 0.0) - before.get(name, 0.0)
            for name in after.keys() | before.keys()}


def add(*parts: dict[str, float]) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for part in parts:
        for name, seconds in part.items():
            out[name] += seconds
    return dict(out)


def rusage_seconds(usage) -> float:
    """A reaped process's CPU, its own and that of the children it reaped (os.wait4)."""
    return usage.ru_utime + usage.ru_stime
