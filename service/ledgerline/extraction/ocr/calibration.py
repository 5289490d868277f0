"""Confidence of values read by OCR, calibrated on OCR'd documents apart from text layers.

A field's confidence is the ranker's calibrated probability times how sure OCR was of the words
it was read from. Both factors were fitted on other things: the ranker's map on text layers,
whose words are never misread; the word confidence is Tesseract's own, which is not a
probability at all (a cleanly printed word reads 0.93 as often as 0.97). Their product kept
every OCR'd value under 0.9, right or wrong. So for a value read by OCR the product is mapped,
field by field, to the share of such values that were right on OCR'd documents: scans and
photos of generated invoices the ranker was not trained on and the benchmarks do not score
(fitted by ``ledgerline_tools/calibrate_ocr.py``), with the same conservative isotonic map the
ranker's calibration uses (a block's value is the lower end of its 99 % Wilson interval).

The map's file (``calibration.json`` beside this module) names the OCR identity and the ranker
model it was fitted with; its digest is part of the OCR identity, so a new map is a new cache
key. A field without a map keeps the product.
"""
from __future__ import annotations

import contextlib
import json
import logging
from functools import lru_cache

from .isotonic import Calibration
from .identity import CALIBRATION_FILE as CALIBRATION_PATH

FORMAT = "ledgerline-ocr-calibration-1"
log = logging.getLogger(__name__)

_disabled = False


@lru_cache(maxsize=1)
def maps() -> dict[str, Calibration]:
    """The fitted maps by field: none where the file is missing, or where it was fitted with
    another OCR pipeline or ranker, whose confidences it says nothing of (a stale map could
    make a wrong value look sure; the uncalibrated product is the safe side)."""
    try:
        data = json.loads(CALIBRATION_PATH.read_text())
    except FileNotFoundError:
        return {}
    if data.get("format") != FORMAT:
        raise ValueError(f"{CALIBRATION_PATH.name} is not a {FORMAT} file")
    stale = fitted_for_another_model(data)
    if stale:
        log.warning("OCR confidence map not applied: fitted with another %s; run "
                    "`make calibrate-ocr`", stale)
        return {}
    return {field: Calibration.from_json(entry) for field, entry in data["fields"].items()}


def fitted_for_another_model(data: dict) -> str | None:
    """What the map was fitted with that is no longer what reads: "OCR pipeline", "ranker",
    or None when it is current. A file without these names (a test's) is taken as current."""
    from ..ranker.model import model_digest
    from .identity import OCR_PIPELINE_VERSION

    if "ocr" in data and data["ocr"].get("pipeline") != OCR_PIPELINE_VERSION:
        return "OCR pipeline"
    if "ranker" in data and data["ranker"] != model_digest():
        return "ranker"
    return None


def calibrated(field: str, confidence: float) -> float:
    """The confidence of an OCR'd value of ``field`` whose uncalibrated confidence (the
    ranker's times the words') is ``confidence``."""
    if _disabled:
        return confidence
    cal = maps().get(field)
    return confidence if cal is None else cal(confidence)


@contextlib.contextmanager
def uncalibrated():
    """Within it, OCR'd values keep the uncalibrated product: what the map is fitted on."""
    global _disabled
    saved, _disabled = _disabled, True
    try:
        yield
    finally:
        _disabled = saved
