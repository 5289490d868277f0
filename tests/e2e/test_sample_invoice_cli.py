"""`ledgerline sample-invoice` as a user runs it: the PDF on stdout, the truth on stderr."""
from __future__ import annotations

import io
import json
import os
import subprocess

from pdfminer.high_level import extract_text

from ledgerline_tools.samples import generate
from tests.e2e.service import BIN


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ledgerline"), "sample-invoice", *args], capture_output=True,
                          env=dict(os.environ), timeout=120, stdin=subprocess.DEVNULL,
                          check=False)


def test_stdout_is_the_pdf_and_stderr_its_expected_fields():
    out = run("--lang", "de", "--seed", "5")
    assert out.returncode == 0, out.stderr
    truth = json.loads(out.stderr)
    assert (out.stdout, truth) == generate(5, lang="de")
    text = extract_text(io.BytesIO(out.stdout))
    assert truth["invoice_number"] in text and truth["_generator"]["lang"] == "de"


def test_every_binding_language_is_accepted():
    for lang in ("en", "de", "fr", "es", "it", "nl", "pl", "cs", "pt", "sv", "da", "no", "fi"):
        out = run("--lang", lang, "--seed", "2")
        assert out.returncode == 0 and out.stdout.startswith(b"%PDF-"), (lang, out.stderr)


def test_scan_is_an_image_only_pdf_with_the_same_fields():
    out = run("--lang", "pl", "--seed", "3", "--scan")
    assert out.returncode == 0, out.stderr
    truth = json.loads(out.stderr)
    assert extract_text(io.BytesIO(out.stdout)).strip() == ""
    assert truth["invoice_number"] == generate(3, lang="pl")[1]["invoice_number"]
    assert truth["_scan"]["dpi"] == 200


def test_an_unknown_language_is_a_usage_error():
    out = run("--lang", "xx")
    assert out.returncode == 2 and b"--lang" in out.stderr and out.stdout == b""
