"""`make serve` sets up what serving needs and nothing more: the runtime package with the
tooling's extra, which the README's tour uses (the suite's extras only with `make test`) and the system packages the service needs, asking for root only
when something is missing, and saying in one line what OCR lacks when it cannot."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "install-system-deps"


def planned(target: str, tmp_path) -> str:
    """What `make TARGET` would run on a machine without a venv (make's dry run)."""
    return subprocess.run(["make", "-n", "-C", str(REPO), target, f"VENV={tmp_path}/venv"],
                          capture_output=True, text=True, check=True).stdout


def test_make_serve_installs_the_runtime_package_without_the_suites_extras(tmp_path):
    serve = planned("serve", tmp_path)
    assert "scripts/install-system-deps serve" in serve
    installs = [line.split("pip install", 1)[1] for line in serve.splitlines()
                if "pip install" in line]
    assert installs and all(line.strip().endswith("-e '.[binary,tools]'") for line in installs)
    test = planned("test", tmp_path)
    assert "scripts/install-system-deps test" in test
    assert "'.[binary,tools,test,fuzz,infra]'" in test


def test_serve_needs_nothing_more_when_everything_is_there():
    done = subprocess.run([str(SCRIPT), "serve"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


@pytest.mark.skipif(os.getuid() != 0 or shutil.which("runuser") is None,
                    reason="needs root to run the script as a user without root")
def test_without_root_it_names_what_ocr_lacks_in_one_line_and_serving_goes_on(tmp_path):
    empty = Path(tempfile.mkdtemp(prefix="tessdata-"))  # where the user `nobody` may look
    empty.chmod(0o755)
    (empty / "eng.traineddata").write_bytes(b"")  # one there, thirteen missing
    env = {"PATH": "/usr/bin:/bin", "TESSDATA_PREFIX": str(empty)}
    done = subprocess.run(["runuser", "-u", "nobody", "--", "env", *(f"{k}={v}" for k, v in
                                                                    env.items()),
                           "bash", str(SCRIPT), "serve"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("install-system-deps: not root")
    assert "tesseract-ocr-deu" in line and "tesseract-ocr-osd" in line
    assert "tesseract-ocr-eng" not in line
    shutil.rmtree(empty)
