"""Fit the calibration of OCR'd values (``ledgerline/extraction/ocr/calibration.py``) on scans and photos of generated
invoices, deterministically, with thresholds for each kind of page apart.

    python -m ledgerline_tools.calibrate_ocr [--docs 52] [--out PATH] [--jobs 2]
    make calibrate-ocr

Documents come from the sample generator, languages and layouts dealt round-robin, from a run
seed that neither the ranker's training (``ranker/train.py``, seed 7) nor the benchmarks
(``bench/ocr.py``: seeds 1..N; ``bench/generated_accuracy.py``: run seed 0) use. Each is read
twice by OCR, as an upload is: as a flatbed scan at 150, 200 or 300 dpi (in turn) and as a
phone photo, each with the generator's drawn degradation. For every value read by OCR whose
field the document's truth gives (a value given where the truth has none counts as wrong), its
OCR evidence (``calibration.features``), whether it was right, and the kind of page it was read
from are recorded: the kind OCR found at run time (``calibration.kind``: a page it took for a
photo, else a scan), as extraction will find it, not the kind the generator made. Per field, the
ranker's Platt scaling is fitted on the values of both kinds (the evidence means the same on
either, and half the data leaves fields with too few wrong values to fit), and each kind's
acceptance threshold is chosen on its own values' confidences from calibrators fitted without
the value's document (:func:`fit_field`): a photo's wrong values, read with a right value's
evidence, no longer set the scans' thresholds. The OCR identity and the ranker model's digest
are written with them: refit after a change of either (about 3 minutes on two quiet cores, 13
under load).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ledgerline.extraction.ocr.calibration import (
    CALIBRATION_PATH,
    FORMAT,
    KINDS,
    unconfirmed,
)
from ledgerline.extraction.ranker.confidence import Calibrator, accept_threshold
from ledgerline.extraction.ranker.confidence import fit as fit_calibrator

RUN_SEED = 11  # samples.corpus.document_seed(11, i): a run no training or benchmark uses
DOCS = 52  # every language (13) with four of the layouts, dealt in turn
SCAN_DPIS = (150, 200, 300)
JOBS = min(2, os.cpu_count() or 1)


def _conditions(index: int) -> list[tuple[str, int, bool]]:
    """(name, dpi, photo) of the readings of document ``index``."""
    dpi = SCAN_DPIS[index % len(SCAN_DPIS)]
    return [(f"scan {dpi} dpi", dpi, False), ("phone photo", 200, True)]


def _upload(images: tuple[bytes, ...], dpi: int, folder: Path) -> Path:
    """A one-page scan as its JPEG, several pages as a scanner's image-only PDF."""
    from .samples.scan import image_pdf

    if len(images) == 1:
        path = folder / "page.jpg"
        path.write_bytes(images[0])
    else:
        path = folder / "scan.pdf"
        path.write_bytes(image_pdf(list(images), dpi))
    return path


def outcomes(index: int) -> list[tuple[str, str, str, tuple, bool]]:
    """(condition, kind of page, field, OCR evidence, right) of every value read by OCR from
    document ``index``'s scan and photo whose field its truth gives (a value given where the
    truth has none is wrong); the kind is the one extraction finds (``pipeline.ocr_kind``)."""
    from ledgerline.extraction.geometry import DocText
    from ledgerline.extraction.ocr.options import OcrOptions
    from ledgerline.extraction.pipeline import ocr_evidence, ocr_kind, read_pages, text_reading

    from . import samples
    from .samples.corpus import document_seed, plan
    from .samples.scan import scan_pdf

    _, lang, template = list(plan(index + 1, samples.LANGUAGE_CODES, samples.TEMPLATE_NAMES))[-1]
    seed = document_seed(RUN_SEED, index)
    pdf, truth = samples.generate(seed, lang=lang, template=template)
    out = []
    with tempfile.TemporaryDirectory(prefix="ocr-calibration-") as tmp:
        for name, dpi, photo in _conditions(index):
            scan = scan_pdf(pdf, seed, dpi=dpi, photo=photo)
            path = _upload(scan.images, dpi, Path(tmp))
            # read as an upload is (extraction's entry point tells an image by its content)
            parsed, _ = read_pages(path, image=path.suffix != ".pdf", ocr_options=OcrOptions())
            if not parsed.has_text_layer:  # OCR found no text: no value to learn from
                continue
            dt = DocText(parsed.pages)
            reading = text_reading(dt)
            for field, evidence in ocr_evidence(reading, dt).items():
                if field not in truth:
                    continue
                cand = reading.fields[field]
                out.append((name, ocr_kind(dt, cand), field, evidence,
                            _same(field, cand.out_value(), truth[field])))
    return out


def _same(field: str, value, truth) -> bool:
    """Is the value read the truth's? A credit note's amounts are compared as magnitudes: the
    page prints them either way, and their sign is the document type's, not the reading's."""
    from ledgerline.extraction.document import AMOUNT_FIELDS, json_value

    from .ranker.dataset import norm

    got, want = norm(field, json_value(field, value)), norm(field, truth)
    if field in AMOUNT_FIELDS and got is not None and want is not None:
        return abs(got) == abs(want)
    return got == want


def fit(docs: int, jobs: int = JOBS, log=print) -> dict:
    """The calibration file's content, from ``docs`` generated documents."""
    from ledgerline.extraction.ocr.identity import OCR_PIPELINE_VERSION, tesseract_version
    from ledgerline.extraction.ranker.model import model_digest

    started = time.perf_counter()
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = pool.map(outcomes, range(docs), chunksize=1)
    else:
        results = [outcomes(i) for i in range(docs)]
    found: dict[tuple[str, str], set[int]] = {}  # (condition, kind) -> documents
    by_field: dict[str, list[Outcome]] = {}
    for index, one in enumerate(results):
        for condition, kind, field, evidence, right in one:
            found.setdefault((condition.split(" ")[0], kind), set()).add(index)
            by_field.setdefault(field, []).append(Outcome(evidence, right, index, kind))
    log("readings whose values were taken for each kind of page (documents):")
    for (condition, kind), documents in sorted(found.items()):
        log(f"  {condition:6} read as a {kind:6} {len(documents):4}")
    fields: dict[str, dict] = {}
    for field, got in sorted(by_field.items()):
        calibrator, thresholds = fit_field(field, got)
        log(f"{field:16} {len(got):4} values, {sum(o.right for o in got):4} right; thresholds "
            + ", ".join(f"{kind} {t}" for kind, t in thresholds.items()))
        fields[field] = {"calibrator": calibrator.to_json(), "accept_thresholds": thresholds}
    log(f"{docs} documents, {2 * docs} readings in {time.perf_counter() - started:.0f} s")
    return {"format": FORMAT, "ocr": {"pipeline": OCR_PIPELINE_VERSION,
                                      "tesseract": tesseract_version()},
            "ranker": model_digest(), "documents": docs, "run_seed": RUN_SEED, "fields": fields}


@dataclass(frozen=True)
class Outcome:
    evidence: tuple  # calibration.features of the value
    right: bool
    document: int  # the generated document it was read from
    kind: str  # the kind of page it was read from (calibration.KINDS)


def fit_field(field: str, got: list[Outcome]) -> tuple[Calibrator, dict[str, float]]:
    """The calibrator of a field's OCR'd values, fitted on all of them, scans' and photos'
    alike, and the acceptance threshold of each kind of page's values, chosen as the ranker
    chooses its own (``accept_threshold``) on that kind's confidences, each computed by a
    calibrator fitted without the value's document (neither its scan nor its photo): no value
    of the kind at least that sure was wrong on a document its calibrator had not seen. The
    threshold is chosen among the values the page confirms (``calibration.unconfirmed``): the
    others are never taken without review, and their wrong ones would only raise it. A kind
    with no value of the field gets no threshold (its values are never taken unseen)."""
    held: dict[str, tuple[list[float], list[bool]]] = {}
    for document in sorted({o.document for o in got}):
        held_out = _fit([o for o in got if o.document != document])
        for o in got:
            if o.document == document and unconfirmed(field, o.evidence) is None:
                confidences, right = held.setdefault(o.kind, ([], []))
                confidences.append(held_out(o.evidence))
                right.append(o.right)
    thresholds = {kind: accept_threshold(held[kind][0], held[kind][1], [1.0] * len(held[kind][1]))
                  for kind in KINDS if kind in held}
    return _fit(got), thresholds


def _fit(got: list[Outcome]) -> Calibrator:
    return fit_calibrator([o.evidence for o in got], [o.right for o in got], [1.0] * len(got))


def main(argv=None) -> int:
    from .ranker.train import HASH_SEED

    if os.environ.get("PYTHONHASHSEED") != HASH_SEED:  # the generator's names, as training's
        os.execve(sys.executable, [sys.executable, "-m", __spec__.name, *sys.argv[1:]],
                  {**os.environ, "PYTHONHASHSEED": HASH_SEED})
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=DOCS)
    ap.add_argument("--jobs", type=int, default=JOBS)
    ap.add_argument("--out", type=Path, default=CALIBRATION_PATH)
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    data = fit(args.docs, args.jobs)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
