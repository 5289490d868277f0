"""Fit the calibration of OCR'd values (``ledgerline/extraction/ocr/calibration.py``) on scans and photos of generated
invoices, deterministically.

    python -m ledgerline_tools.calibrate_ocr [--docs 52] [--out PATH] [--jobs 2]
    make calibrate-ocr

Documents come from the sample generator, languages and layouts dealt round-robin, from a run
seed that neither the ranker's training (``ranker/train.py``, seed 7) nor the benchmarks
(``bench/ocr.py``: seeds 1..N; ``bench/generated_accuracy.py``: run seed 0) use. Each is read
twice by OCR, through the extraction entry point as an upload is: as a flatbed scan at 150, 200
or 300 dpi (in turn) and as a phone photo, each with the generator's drawn degradation. For
every field a document's truth gives (a value given where the truth has none counts as wrong),
the uncalibrated confidence and whether the value was right are recorded; the maps are fitted
per field by the ranker's isotonic fit. The OCR identity and the ranker model's digest are
written with them: refit after a change of either (about 45 minutes on two cores).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

from ledgerline.extraction.ocr.calibration import CALIBRATION_PATH, FORMAT

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


def outcomes(index: int) -> list[tuple[str, float, bool]]:
    """(field, uncalibrated confidence, right) of every value read from document ``index``'s
    scan and photo."""
    from ledgerline.extraction import extract_pdf
    from ledgerline.extraction.ocr.calibration import uncalibrated
    from ledgerline.extraction.ocr.options import OcrOptions

    from . import samples
    from .ranker.dataset import norm
    from .samples.corpus import document_seed, plan
    from .samples.scan import scan_pdf

    _, lang, template = list(plan(index + 1, samples.LANGUAGE_CODES, samples.TEMPLATE_NAMES))[-1]
    seed = document_seed(RUN_SEED, index)
    pdf, truth = samples.generate(seed, lang=lang, template=template)
    out = []
    with tempfile.TemporaryDirectory(prefix="ocr-calibration-") as tmp:
        for _name, dpi, photo in _conditions(index):
            scan = scan_pdf(pdf, seed, dpi=dpi, photo=photo)
            path = _upload(scan.images, dpi, Path(tmp))
            with uncalibrated():
                document = extract_pdf(path, content_hash="blake3:" + "0" * 64,
                                       use_embedded_xml=False, ocr=OcrOptions())
            for field, entry in document["fields"].items():
                if field not in truth or entry["value"] is None:
                    continue
                right = norm(field, entry["value"]) == norm(field, truth[field])
                out.append((field, entry["confidence"], right))
    return out


def fit(docs: int, jobs: int = JOBS, log=print) -> dict:
    """The calibration file's content, from ``docs`` generated documents."""
    from ledgerline.extraction.ocr.identity import OCR_PIPELINE_VERSION, tesseract_version
    from ledgerline.extraction.ocr.isotonic import MIN_POINTS
    from ledgerline.extraction.ocr.isotonic import fit as fit_map
    from ledgerline.extraction.ranker.model import model_digest

    started = time.perf_counter()
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = pool.map(outcomes, range(docs), chunksize=1)
    else:
        results = [outcomes(i) for i in range(docs)]
    by_field: dict[str, tuple[list, list]] = {}
    for field, confidence, right in (o for one in results for o in one):
        xs, ys = by_field.setdefault(field, ([], []))
        xs.append(confidence)
        ys.append(right)
    fields = {}
    for field, (xs, ys) in sorted(by_field.items()):
        log(f"{field:16} {len(xs):4} values, {sum(ys):4} right")
        if len(xs) >= MIN_POINTS:  # fewer: no map, the field keeps the product
            fields[field] = fit_map(xs, ys).to_json()
    log(f"{docs} documents, {2 * docs} readings in {time.perf_counter() - started:.0f} s")
    return {"format": FORMAT, "ocr": {"pipeline": OCR_PIPELINE_VERSION,
                                      "tesseract": tesseract_version()},
            "ranker": model_digest(), "documents": docs, "run_seed": RUN_SEED, "fields": fields}


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
