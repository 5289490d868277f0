"""The package as its users install it: the wheel, with exactly the locked dependencies
(infra/requirements.lock, what the image installs) and nothing else, in a fresh venv, serves:
`db upgrade`, `serve`, an upload and its cache hit through HTTP. The suite's own venv has the
test extras, which would hide a dependency the package uses but does not declare. The lock has
no `tools` extra, so there the tooling's commands say what to install."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import requests

from ledgerline_tools.samples import generate
from tests.conftest import REPO
from tests.e2e.service import stop, wait_until_ready
from tests.servers import free_port

INSTALL_SECONDS = 1200  # ~150 locked packages, and psycopg's C implementation compiled


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{argv}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv with the wheel and the locked dependencies only; its bin/ directory."""
    work = tmp_path_factory.mktemp("installed")
    source = image_context(work / "source")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", work / "dist", source,
        timeout=INSTALL_SECONDS)
    [wheel] = (work / "dist").glob("ledgerline-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    # Exactly the modules of the sources: a build directory left by an earlier build keeps
    # modules since moved or deleted, and would ship them.
    assert {n for n in names if n.endswith(".py")} == {
        str(p.relative_to(source / "service")) for p in (source / "service").rglob("*.py")}
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert any(n.endswith("LICENSE-EUPL-1.2.txt") for n in names)
    assert "ledgerline_tools/samples/__init__.py" in names
    venv = work / "venv"
    # The base interpreter, not this venv's: nothing of the suite's site-packages leaks in.
    run(getattr(sys, "_base_executable", sys.executable), "-m", "venv", venv)
    pip = [venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check", "--quiet"]
    run(*pip, "install", "--require-hashes", "--no-deps", "-r",
        REPO / "infra" / "requirements.lock", timeout=INSTALL_SECONDS)
    run(*pip, "install", "--no-deps", wheel, timeout=INSTALL_SECONDS)
    run(*pip, "check")  # every installed distribution's requirements are there
    return venv / "bin"


DEBRIS = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.egg-info", ".*_cache", "var")


def image_context(into: Path) -> Path:
    """A copy of the sources the image builds from (.dockerignore's allowlist, less local
    debris), so that the wheel is built as there: in a tree of its own, never from a build/
    directory an earlier build left in the checkout."""
    allowed = [line[1:].rstrip("/") for line in
               (REPO / ".dockerignore").read_text().splitlines() if line.startswith("!")]
    for source in (match for pattern in allowed for match in REPO.glob(pattern)):
        target = into / source.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=DEBRIS)
        else:
            shutil.copy2(source, target)
    return into


def user_env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEDGERLINE_", "VIRTUAL_ENV", "PYTHON")) and k != "XDG_DATA_HOME"}
    return {**env, "HOME": str(tmp_path), "LEDGERLINE_DATA_DIR": str(tmp_path / "data"),
            "LEDGERLINE_OCR_LANGUAGES": "en"}


@pytest.mark.slow
def test_the_wheel_with_its_locked_dependencies_serves_a_cache_hit(installed, tmp_path):
    env = user_env(tmp_path)
    ledgerline = installed / "ledgerline"
    run(ledgerline, "db", "upgrade", env=env, timeout=120)
    run(ledgerline, "accounts", "create", "acme", env=env, timeout=120)
    key = run(ledgerline, "keys", "create", "--role", "customer", "--account", "acme", env=env,
              timeout=120).stdout.strip().splitlines()[-1]
    sample = tmp_path / "sample.pdf"  # `ledgerline sample-invoice --seed 3`, by the suite's venv
    sample.write_bytes(generate(3, lang="en")[0])
    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen([str(ledgerline), "serve", "--port", str(port)], env=env,
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, server, log_path)
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/pdf"}
        first = requests.post(f"{base}/v1/accounts/acme/invoices", data=sample.read_bytes(),
                              headers={**headers, "Prefer": "wait=60"}, timeout=90)
        assert first.status_code == 201, first.text
        assert first.headers["Ledgerline-Cache"] == "miss"
        second = requests.post(f"{base}/v1/accounts/acme/invoices", data=sample.read_bytes(),
                               headers=headers, timeout=30)
        assert second.status_code == 201 and second.headers["Ledgerline-Cache"] == "hit"
        assert second.json()["extraction"] == first.json()["extraction"]
    finally:
        stop(server)
    assert "Traceback" not in log_path.read_text()


def test_without_the_tools_extra_a_sample_invoice_says_what_to_install(installed, tmp_path):
    done = subprocess.run([str(installed / "ledgerline"), "sample-invoice"],
                          env=user_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().endswith("pip install 'ledgerline[tools]'"), done.stderr
