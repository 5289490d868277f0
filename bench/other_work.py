"""How much of the machine other work took while a benchmark ran.

The load average cannot tell: a benchmark's own servers and clients raise it past the core
count on a quiet 2-core machine. So the CPU time the machine spent (`/proc/stat`) is compared
with what the benchmark's own processes spent: this process, its descendants, and the servers it
started that detach themselves (PostgreSQL's postmaster, found from its pid file) with theirs.
A process's CPU counts its reaped children's too (cutime, cstime), so a backend or a worker that
exits is not lost; one that exits between two samples without being reaped by a tracked process
counts as other work, which errs on the side of refusing a result.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_SECONDS = 0.5


def machine_busy_seconds() -> float:
    """CPU seconds every core spent on anything but idling and waiting for I/O."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / TICKS


def _processes() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds of the process and of its reaped children)."""
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        ppid = int(rest[1])
        utime, stime, cutime, cstime = (int(v) for v in rest[11:15])
        out[int(entry.name)] = (ppid, (utime + stime + cutime + cstime) / TICKS)
    return out


class OtherWork:
    """`with OtherWork(roots) as other: ...`, then `other.cores`: the cores other work used on
    average. `roots()` names the detached servers' pids (called at every sample)."""

    def __init__(self, roots=lambda: ()):
        self._roots = roots
        self._ours: dict[int, tuple[int, float]] = {}  # pid -> (parent, CPU) at its last sample
        self._stop = threading.Event()
        self.cores = 0.0

    def _sample(self) -> None:
        procs = _processes()
        ours = {os.getpid(), *self._roots()}
        changed = True
        while changed:  # descendants of our roots
            grown = {pid for pid, (ppid, _) in procs.items() if ppid in ours}
            changed = not grown <= ours
            ours |= grown
        for pid in set(self._ours) - procs.keys():
            # Reaped. By one of ours: its whole CPU is now in that parent's cutime, so drop
            # it; by init (a detached process): keep what it had used at its last sample.
            if self._ours[pid][0] in ours & procs.keys():
                del self._ours[pid]
        for pid in ours & procs.keys():
            self._ours[pid] = procs[pid]

    def _ours_seconds(self) -> float:
        return sum(cpu for _, cpu in self._ours.values())

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self._sample()

    def __enter__(self):
        self._sample()
        self._start_ours = self._ours_seconds()
        self._start_busy, self._start_time = machine_busy_seconds(), time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_exc):
        self._stop.set()
        self._thread.join()
        self._sample()
        busy = machine_busy_seconds() - self._start_busy
        ours = self._ours_seconds() - self._start_ours
        self.cores = max(0.0, busy - ours) / max(time.monotonic() - self._start_time, 1e-9)
        return False


def postmaster_pid(data_dir: Path) -> int | None:
    """The pid PostgreSQL wrote into its data directory, while it runs."""
    try:
        return int((Path(data_dir) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
