"""Readiness tells the truth about extraction: a service whose embedded worker cannot read scans
(Tesseract's data for a configured language missing) is not ready, and says why; one whose
sandbox has warmed up with every language is, and names them."""
from __future__ import annotations

import os
import subprocess
import time

import requests

from tests.e2e.service import BIN, served, stop
from tests.servers import free_port

SYSTEM_TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"


def env_for(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGERLINE_")}
    return {**env, "LEDGERLINE_DATA_DIR": str(tmp_path / "data"), **extra}


def settled_readiness(base: str, proc, deadline_s: float = 120) -> requests.Response:
    """/readyz once the sandbox is no longer starting."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the service exited"
        try:
            answer = requests.get(f"{base}/readyz", timeout=5)
            if answer.json()["checks"].get("sandbox") != "starting":
                return answer
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise AssertionError("the sandbox never finished starting")


def test_missing_language_data_makes_the_service_unready_with_the_reason(tmp_path):
    partial = tmp_path / "tessdata"  # English and orientation only
    partial.mkdir()
    for lang in ("eng", "osd"):
        (partial / f"{lang}.traineddata").symlink_to(f"{SYSTEM_TESSDATA}/{lang}.traineddata")
    env = env_for(tmp_path, TESSDATA_PREFIX=str(partial), LEDGERLINE_OCR_LANGUAGES="en,de")
    port = free_port()
    with open(tmp_path / "serve.log", "wb") as log:
        proc = subprocess.Popen([str(BIN / "ledgerline"), "serve", "--port", str(port),
                                 "--workers", "1"], env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        answer = settled_readiness(f"http://127.0.0.1:{port}", proc)
    finally:
        stop(proc)
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "unavailable"
    assert body["checks"] == {"database": "ok", "storage": "ok", "spool": "ok", "sandbox": "ok",
                              "ocr": "unavailable"}
    assert "deu" in body["reasons"]["ocr"] and "tesseract-ocr-deu" in body["reasons"]["ocr"]


def test_a_warmed_sandbox_is_ready_and_names_the_languages_loaded(tmp_path):
    env = env_for(tmp_path, LEDGERLINE_OCR_LANGUAGES="en,fr")
    with served(env, "--workers", "1", log_path=tmp_path / "serve.log") as base:
        answer = requests.get(f"{base}/readyz", timeout=5)
    assert answer.status_code == 200
    assert answer.json() == {"status": "ready", "checks": {
        "database": "ok", "storage": "ok", "spool": "ok", "sandbox": "ok", "ocr": "ok"},
        "ocr": {"languages": ["eng", "fra"]}}


def test_an_api_without_a_worker_does_not_answer_for_extraction(tmp_path):
    env = env_for(tmp_path)
    with served(env, "--no-embedded-worker", log_path=tmp_path / "serve.log") as base:
        checks = requests.get(f"{base}/readyz", timeout=5).json()["checks"]
    assert checks["sandbox"] == checks["ocr"] == "not_used"
