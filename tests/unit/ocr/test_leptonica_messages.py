"""Leptonica's refusals inside Tesseract's layout analysis ("Error in boxClipToRectangle") are
benign and are kept out of a worker's stderr once the OCR engine is loaded."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tesserocr")

SERVICE = str(Path(__file__).resolve().parents[3] / "service")
# Asks the Leptonica Tesseract loaded to clip a box outside its rectangle, which it refuses
# with an "Error in boxClipToRectangle" line on stderr, before and after it is quieted.
CHILD = """
import ctypes, sys
sys.path.insert(0, {service!r})
import tesserocr
from ledgerline.extraction.ocr import engine
maps = open('/proc/self/maps').read().split()
lept = ctypes.CDLL(next(p for p in maps if '/liblept' in p))
lept.boxCreate.restype = ctypes.c_void_p
lept.boxClipToRectangle.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
box = lept.boxCreate(500, 500, 10, 10)
if sys.argv[1] == 'quiet':
    assert engine.quiet_leptonica()
lept.boxClipToRectangle(box, 100, 100)
"""


def _stderr(mode: str) -> str:
    return subprocess.run([sys.executable, "-c", CHILD.format(service=SERVICE), mode],
                          capture_output=True, text=True, check=True).stderr


def test_leptonica_s_refusals_are_kept_out_of_stderr():
    assert "boxClipToRectangle" in _stderr("loud")  # the probe does make Leptonica speak
    assert _stderr("quiet") == ""
