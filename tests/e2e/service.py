"""Run the real service as its users do: the `ledgerline` command in a child process."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.servers import free_port

BIN = Path(sys.executable).parent


def ledgerline(env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ledgerline"), *args], env=env, capture_output=True,
                          text=True, check=check, timeout=120)


# The services these tests start read no scans, and Tesseract's models for every language cost
# each sandbox's fork server about a second of CPU as it starts, which the suite pays a hundred
# times (OCR through the API is tested in process, with every language).
SPAWNED_OCR = {"LEDGERLINE_OCR_LANGUAGES": "en"}


def service_env(backend, tmp_path: Path, **extra: str) -> dict:
    env = {**os.environ, **SPAWNED_OCR, **backend.env,
           "LEDGERLINE_DATABASE_URL": backend.database_url,
           "LEDGERLINE_STORAGE_URL": backend.storage_url,
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")}
    (tmp_path / "metrics").mkdir(exist_ok=True)
    env.update(extra)
    return env


def create_key(env: dict, role: str, account: str | None = None, name: str | None = None) -> str:
    args = ["keys", "create", "--role", role]
    if account:
        args += ["--account", account]
    if name:
        args += ["--name", name]
    return ledgerline(env, *args).stdout.strip().splitlines()[-1]


@contextlib.contextmanager
def served(env: dict, *args: str, log_path: Path, stop_signal: int = signal.SIGTERM):
    """`ledgerline serve` on a free loopback port; yields its base URL."""
    port = free_port()
    with open(log_path, "ab") as log:
        proc = subprocess.Popen([str(BIN / "ledgerline"), "serve", "--host", "127.0.0.1",
                                 "--port", str(port), *args],
                                env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, proc, log_path)
        yield base
    finally:
        stop(proc, stop_signal)


# Ready means the embedded worker's sandbox has warmed up (the official rules, Tesseract's
# models): seconds on an idle machine, far more while the suite's other services start too.
READY_SECONDS = 180
READY_IN_A_ROW = 12


def wait_until_ready(base: str, proc: subprocess.Popen, log_path: Path,
                     timeout: float = READY_SECONDS):
    # Each gunicorn process warms its own sandbox and answers for itself, and a fresh
    # connection reaches any of them: ready is several answers in a row, not the first.
    deadline, in_a_row = time.monotonic() + timeout, 0
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"service exited early:\n{log_path.read_text()[-3000:]}")
        try:
            ok = requests.get(f"{base}/readyz", timeout=1).status_code == 200
        except requests.RequestException:  # not listening yet, or workers still booting
            ok = False
        in_a_row = in_a_row + 1 if ok else 0
        if in_a_row == READY_IN_A_ROW:
            return
        time.sleep(0.1)
    raise RuntimeError(f"service not ready after {timeout}s:\n{log_path.read_text()[-3000:]}")


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
