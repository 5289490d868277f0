"""Confidence of values read by OCR, and the confidence they need to be taken without review,
fitted on OCR'd documents apart from text layers; a photo's thresholds apart from a scan's.

The ranker's confidence of a value (:mod:`..ranker.confidence`) and the acceptance threshold it
is held to were fitted on text layers, whose words are never misread; the word confidence is
Tesseract's own, which is not a probability at all (a cleanly printed word reads 0.93 as often
as 0.97). Their product, mapped to the share of such values that were right, put a right OCR'd
date at 0.63 against the text layer's threshold of 0.97, so no scan was ever taken without
review. So a value read by OCR is calibrated again from its evidence: the ranker's evidence of
the value (:data:`..ranker.confidence.EVIDENCE`) and how sure OCR was of its words
(:func:`features`), by the ranker's Platt scaling, on scans and photos of generated invoices the
ranker was not trained on and the benchmarks do not score; and its field's acceptance threshold
for OCR'd values is chosen on that data as the ranker chooses its own, on confidences each
computed by a calibrator fitted without the value's document (``ledgerline_tools/calibrate_ocr.py``).

Each field has one calibrator, fitted on photos' and scans' values alike, and a threshold per
:data:`KINDS` of page, chosen by what OCR did to the page it read the value from (:func:`kind`):
a page it took for a phone photo (cut from its desk and squared, or read again without its
paper's grain: :attr:`..model.Page.photo`) and a scan. With one threshold over both, a photo's
wrong values that read with a right value's evidence set every scan's: the invoice number's went
from 0.79 to 0.94 once photos read their tables again, and the clean scans taken without review
from 28 % to 19 %; with a calibrator per kind too, half the data left the scans' invoice number
and issue date with too few wrong values to fit and raised their other thresholds
(bench/RESULTS.md).

The file (``calibration.json`` beside this module) names the OCR identity and the ranker model
it was fitted with; its digest is part of the OCR identity, so a new one is a new cache key. A
field it has no entry for in a kind, or a file fitted with another pipeline or ranker, leaves
the OCR'd value the product of the ranker's and the words' confidence, never taken without
review.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import lru_cache

from ..document import ID_FIELDS
from ..ranker.confidence import EVIDENCE, Calibrator, logit
from .identity import CALIBRATION_FILE as CALIBRATION_PATH

FORMAT = "ledgerline-ocr-calibration-8"
# The kinds of page calibrated apart: one OCR took for a phone photo, and a scan.
SCAN, PHOTO = "scan", "photo"
KINDS = (SCAN, PHOTO)
# What a value's OCR evidence adds to the ranker's (confidence.EVIDENCE), in features() order.
OCR_EVIDENCE = ("logit_words", "spelt_alike", "spelt_otherwise", "read_again", "items_sum",
                "off_column", "rate_row")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FieldCalibration:
    """How a field's OCR'd values read from one kind of page are calibrated and accepted."""

    calibrator: Calibrator  # the OCR evidence of a value -> its confidence (every kind's)
    threshold: float  # the confidence such a value needs to be taken without review


def features(evidence: tuple, words: float, spelling: tuple[float, float, float],
             items_sum: float, off_column: float, rate_row: float) -> tuple[float, ...]:
    """A value's OCR evidence: the ranker's evidence of it, the (logit of the) lowest
    confidence OCR gave the words it was read from, for a name how many other places read it
    with the same letters and accents, how many with other accents, and what the second
    recogniser read in its place (+1 the name, -1 other letters, 0 neither: :mod:`.spelling`;
    for an identifier the same of its characters), for a total whether the line items, read on
    their own, add up to the net or gross total (+1), to neither (-1), or there are none (0),
    and for an identifier whether it was read
    below its label but outside the label's column (1, else 0), and for a total whether the
    chosen net and VAT are one row of a VAT breakdown that prints other rates too (1, else 0:
    :func:`..ranker.rates.one_rate_of_several`).

    The words' confidence is Tesseract's own and says little: a misread accent reads as sure as
    a right one, and a photo whose net, tax and gross were all misread alike still adds up. The
    same name read again elsewhere, and the totals confirmed by the items, are readings of other
    places of the page, whose misreads are their own.

    An identifier outside its label's column was taken from a line OCR joined across the
    table's cells: in a header-row table (labels in one row, values in the next) a photo read
    "15 de agosto de 2024  F24/09534" as one line under the labels, and the day of the date,
    left of the invoice number's label, was taken for the number, as sure as a right one."""
    return (*evidence, logit(words), *spelling, items_sum, off_column, rate_row)


# The features of OCR_EVIDENCE read by unconfirmed(), as offsets from its end.
_SPELT_ALIKE, _SPELT_OTHERWISE, _READ_AGAIN, _OFF_COLUMN, _RATE_ROW = -6, -5, -4, -2, -1
_LOGIT_P = EVIDENCE.index("logit_p")  # the ranker's own probability of the value, as a logit
# The totals a VAT breakdown's row, taken for them, makes wrong together.
RATE_ROW_TOTALS = ("net_total", "tax_total", "gross_total")


def unconfirmed(field: str, features: tuple) -> str | None:
    """Why an OCR'd value cannot be taken without review whatever its confidence, or None.

    A seller name is taken only where OCR read it letter for letter in another place of the
    page, or the second recogniser read its place letter for letter where the page gives no
    accent reason to doubt it (:func:`.spelling.read_again_vote`), and nowhere with other
    letters: a misread accent reads as sure as a right one, and on the calibration's scans the
    calibrator ranked names whose other places disagreed on a letter as high as right ones (too
    few of them to learn from), while a name read in one place only has nothing else to confirm
    it by. Its threshold is chosen among the names that pass
    (``ledgerline_tools/calibrate_ocr.py``).

    An identifier read below its label but outside the label's column (:func:`features`) is
    never taken either: whatever OCR joined it with, nothing places it under its label. Nor is
    one whose place the second recogniser read with other characters
    (:func:`.spelling.identifier_read_again_vote`): one of the two engines misread it.

    Nor are totals whose net and VAT are one row of a VAT breakdown that prints other rates
    too: on the calibration's photo whose totals row OCR did not read, the 22 % row's net, VAT
    and gross were taken, adding up and agreeing with their rate as right totals do, and the
    VAT read 0.986, as sure as right ones. Each of these is a wrong value its evidence cannot
    tell from a right one, so a calibrator fitted without its document ranks it among them;
    the thresholds are chosen among the values that pass.

    Nor is any value the ranker itself gives less than an even chance: fitted on a field's few
    wrong values, the calibrator leans on how often OCR'd values are right, and on the
    calibration's 300 dpi Portuguese scan it rated a postcode the ranker gave 0.17, taken for
    the invoice number, as sure as every right number, which left no threshold at all."""
    if features[_LOGIT_P] < 0:
        return "the ranker gives the value less than an even chance"
    if features[_OFF_COLUMN] > 0:
        return "OCR read the value below its label but outside the label's column"
    if field in ID_FIELDS and features[_READ_AGAIN] < 0:
        return "the second recogniser read the value's place with other characters"
    if field in RATE_ROW_TOTALS and features[_RATE_ROW] > 0:
        return ("the net and VAT are one row of a VAT breakdown that prints other rates too, "
                "not the totals")
    if field != "seller_name":
        return None
    if features[_SPELT_OTHERWISE] > 0:
        return "OCR read the name elsewhere on the page with other letters"
    if features[_SPELT_ALIKE] < 1 and features[_READ_AGAIN] < 1:
        return ("OCR read the name in no other place of the page, and no second reading of "
                "its place confirms its spelling")
    return None


def kind(page: int | None, photo_pages: set[int] | frozenset[int]) -> str:
    """The kind of page a value was read from, for the calibration it is held to: PHOTO where
    OCR took its page (``photo_pages``: their numbers) for a photo, or, for a value of no one
    page (derived from others), where it took any of the document's pages for one; else SCAN."""
    if page is None:
        return PHOTO if photo_pages else SCAN
    return PHOTO if page in photo_pages else SCAN


@lru_cache(maxsize=1)
def fields() -> dict[str, dict[str, FieldCalibration]]:
    """The fitted calibration by kind of page and field: none where the file is missing, or
    where it was fitted with another OCR pipeline or ranker, whose values it says nothing of (a
    stale calibration could make a wrong value look sure)."""
    try:
        data = json.loads(CALIBRATION_PATH.read_text())
    except FileNotFoundError:
        return {}
    if data.get("format") != FORMAT:
        raise ValueError(f"{CALIBRATION_PATH.name} is not a {FORMAT} file")
    unknown = {kind for entry in data["fields"].values() for kind in entry["accept_thresholds"]}
    unknown -= set(KINDS)
    if unknown:
        raise ValueError(f"{CALIBRATION_PATH.name} names kinds of page it has no use for: "
                         f"{', '.join(sorted(unknown))}")
    stale = fitted_for_another_model(data)
    if stale:
        log.warning("OCR calibration not applied: fitted with another %s; run "
                    "`make calibrate-ocr`", stale)
        return {}
    out: dict[str, dict[str, FieldCalibration]] = {kind: {} for kind in KINDS}
    for field, entry in data["fields"].items():
        calibrator = Calibrator.from_json(entry["calibrator"])
        for kind, threshold in entry["accept_thresholds"].items():
            out[kind][field] = FieldCalibration(calibrator, threshold)
    return out


def fitted_for_another_model(data: dict) -> str | None:
    """What the file was fitted with that is no longer what reads: "OCR pipeline", "ranker",
    or None when it is current. A file without these names (a test's) is taken as current."""
    from ..ranker.model import model_digest
    from .identity import OCR_PIPELINE_VERSION

    if "ocr" in data and data["ocr"].get("pipeline") != OCR_PIPELINE_VERSION:
        return "OCR pipeline"
    if "ranker" in data and data["ranker"] != model_digest():
        return "ranker"
    return None


def of_field(field: str, page_kind: str) -> FieldCalibration | None:
    """How an OCR'd value of ``field`` read from a page of ``page_kind`` (:data:`KINDS`) is
    calibrated and accepted (None: it is not, and keeps the product of the ranker's and the
    words' confidence)."""
    if page_kind not in KINDS:
        raise ValueError(f"no such kind of page: {page_kind!r} (one of {', '.join(KINDS)})")
    return fields().get(page_kind, {}).get(field)
