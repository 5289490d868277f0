"""Run a stand-in as its own process (as the production-shape tests and benchmarks do)."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.standins.server import Remote

REPO = Path(__file__).resolve().parents[2]
MODULES = {"textract": "tests.standins.textract", "openai": "tests.standins.openai_api"}


@contextlib.contextmanager
def standin_process(kind: str, workdir: Path, env: dict | None = None, timeout: float = 30):
    """Start `python -m tests.standins.<kind>` on a free port; yield a Remote driving it."""
    ready = workdir / f"{kind}-standin.url"
    ready.unlink(missing_ok=True)
    log = open(workdir / f"{kind}-standin.log", "ab")  # noqa: SIM115 - the server writes to it until stopped
    proc = subprocess.Popen(
        [sys.executable, "-m", MODULES[kind], "--ready-file", str(ready)], cwd=REPO,
        env={**os.environ, **(env or {}), "PYTHONPATH": str(REPO)}, stdout=log,
        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not (ready.exists() and ready.read_text()):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the {kind} stand-in did not start:\n"
                                   + (workdir / f"{kind}-standin.log").read_text()[-2000:])
            time.sleep(0.05)
        yield Remote(ready.read_text().strip())
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
