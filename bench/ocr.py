"""OCR accuracy, confidence, speed and memory: real scans and photos of the corpus, and scanned and
photographed versions of generated invoices.

    .venv/bin/python bench/ocr.py [--docs N] [--quick] [--corpus ../shared/corpus] [--json OUT]
                                  [--skip-generated] [--skip-cost] [--skip-corpus]

Real scans: every ``has_text_layer=no`` row of ``../shared/corpus`` that has truth (scanned,
photographed and fax-like invoices and till receipts, image-only PDFs and image files), read
through the service's extraction entry point like an upload, **leaving each source out**: a row
whose source the committed ranker may have learned from (a licensed document of the same
repository among its training rows) is scored with a ranker trained as ``ledgerline-train``
trains it but without that source. Rows are reported by manifest row number only: nothing from
the corpus is printed.

Generated invoices come from ``ledgerline_tools.samples`` (deterministic PDFs in 13 languages with their
truth); their scans and photos are made from those PDFs in the same run: rendered at 150, 200 and
300 dpi with a drawn degradation (slight rotation, blur, noise, uneven light, JPEG), then one
degradation at a time at 200 dpi, and phone photos (perspective, stronger blur and noise, the
desk around the page). Each variant is scored beside the text-layer figures of the same PDFs.

Scores: key fields (``document.KEY_FIELDS``: invoice number, issue date, currency, gross total,
seller name): precision, recall, F1, where a value given for a field whose truth is null counts
as predicted (an invented value lowers precision); line items matched by net amount (multiset),
F1. Straight-through: a document is auto-accepted when ``review.required`` is false; it is right
when every key field equals the truth (a value where the truth is null is wrong). Goals (issue
"scans and phone photos"): real scans key-field F1 >= 0.85 and line items >= 0.80; every
generated condition within 0.05 of the text layer's key-field F1 and 0.10 of its line-item F1;
auto-accepted OCR documents >= 99 % right, and >= 30 % of the clean-scan conditions' documents
(the ``scan …`` and ``clean …`` variants) auto-accepted.

Speed: OCR time per page in-process (the service's engine: OSD, deskew, every recogniser it
runs) against the ``tesseract`` command line alone on the same image files, interleaved page by
page, both single-threaded (OMP_THREAD_LIMIT=1), with the same languages (goal <= 1.5x).
Memory: peak RSS of a worker process that loads the OCR engines as the sandbox's fork server
does and then extracts a 10-page image-only scan (goal <= 1 GiB), and a one-page figure beside
the command line's peak on that page.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from decimal import Decimal, InvalidOperation
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "service"))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # the command line would use every core

from ledgerline.extraction import extract_pdf  # noqa: E402
from ledgerline.extraction.document import KEY_FIELDS  # noqa: E402
from ledgerline.extraction.ocr import OcrOptions, read_image  # noqa: E402
from ledgerline.extraction.ocr.identity import tesseract_version  # noqa: E402

HASH = "blake3:" + "0" * 64
GOAL_F1_GAP = 0.05
GOAL_ITEMS_GAP = 0.10
GOAL_REAL_F1 = 0.85
GOAL_REAL_ITEMS = 0.80
GOAL_AUTO_RIGHT = 0.99
GOAL_AUTO_SHARE = 0.30
GOAL_TIME_RATIO = 1.5
GOAL_WORKER_MB = 1024
MEMORY_PAGES = 10
NUMBER_SIGN = ("#", "№")


# -- scoring -----------------------------------------------------------------------------------

def norm(field: str, value):
    if value is None:
        return None
    if field in ("gross_total", "amount"):
        try:
            return Decimal(str(value)).normalize()
        except InvalidOperation:
            return None
    if field == "issue_date":
        return str(value)[:10]
    text = str(value)
    if field == "invoice_number":  # "# 4711" is the number 4711, as the ranker's truth reads it
        text = text.strip().lstrip("".join(NUMBER_SIGN))
    return "".join(text.split()).casefold()


def f1(tp: int, pred: int, truth: int) -> float:
    return 2 * tp / (pred + truth) if pred + truth else 0.0


class Score:
    """Key fields, line items and the straight-through figures of a set of documents."""

    def __init__(self):
        self.c = Counter()
        self.seconds: list[float] = []

    def add(self, truth: dict, document: dict | None) -> Counter:
        one = Counter()
        right = document is not None
        for field in KEY_FIELDS:
            want = norm(field, truth.get(field))
            got = norm(field, document["fields"][field]["value"]) if document else None
            one["truth"] += want is not None
            one["pred"] += got is not None
            one["tp"] += got is not None and got == want
            right = right and got == want
        wanted = [norm("amount", li.get("net_amount")) for li in truth.get("line_items") or []]
        wanted = [w for w in wanted if w is not None]
        if wanted:
            got = [norm("amount", li.get("net_amount")) for li in
                   (document["line_items"] if document else [])]
            left = Counter(wanted)
            for a in got:
                if left[a] > 0:
                    left[a] -= 1
                    one["li_tp"] += 1
            one["li_pred"] += len(got)
            one["li_truth"] += len(wanted)
        one["docs"] += 1
        if document is not None and not document["review"]["required"]:
            one["auto"] += 1
            one["auto_right"] += right
        self.c.update(one)
        return one

    @property
    def f1(self) -> float:
        return f1(self.c["tp"], self.c["pred"], self.c["truth"])

    @property
    def items_f1(self) -> float | None:
        return f1(self.c["li_tp"], self.c["li_pred"], self.c["li_truth"]) \
            if self.c["li_truth"] else None

    @property
    def auto_share(self) -> float:
        return self.c["auto"] / self.c["docs"] if self.c["docs"] else 0.0

    @property
    def auto_right(self) -> float | None:
        return self.c["auto_right"] / self.c["auto"] if self.c["auto"] else None

    def summary(self) -> dict:
        return {"f1": self.f1, "items_f1": self.items_f1, "auto_share": self.auto_share,
                "auto_right": self.auto_right, "counts": dict(self.c),
                "seconds_per_doc": statistics.mean(self.seconds) if self.seconds else None}


def fmt(value: float | None, width: int = 6) -> str:
    return f"{value:{width}.3f}" if value is not None else f"{'-':>{width}}"


def table_header(header: str) -> None:
    print(header)
    print("-" * len(header))


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISS"


LAST_ERROR: list[str] = [""]


def extract(path: str, options: OcrOptions) -> tuple[dict | None, float]:
    from ledgerline.extraction.errors import ExtractionError

    started = time.perf_counter()
    LAST_ERROR[0] = ""
    try:
        document = extract_pdf(path, content_hash=HASH, use_embedded_xml=False, ocr=options)
    except ExtractionError as exc:
        document, LAST_ERROR[0] = None, exc.code
    return document, time.perf_counter() - started


# -- variants ------------------------------------------------------------------------------------

def variants(quick: bool, only: set[str] | None = None):
    """(name, dpi, photo, degradation override or None); with ``only``, the conditions whose
    short name (``condition_key``) is in it."""
    from ledgerline_tools.samples.scan import Degradation

    def one(**kw):
        base = {"rotation": 0.0, "blur": 0.0, "noise": 0.0, "lighting": 0.0,
                "light_angle": 0.0, "quality": 92, "grey": True, "perspective": 0.0}
        base.update(kw)
        return Degradation(**base)

    out = [("scan 150 dpi", 150, False, None), ("scan 200 dpi", 200, False, None),
           ("scan 300 dpi", 300, False, None)]
    if not quick:
        out += [("clean 200 dpi", 200, False, one()),
                ("rotated 2.5°", 200, False, one(rotation=2.5)),
                ("blurred (r 1.3 px)", 200, False, one(blur=1.3)),
                ("noisy (σ 18)", 200, False, one(noise=18.0)),
                ("JPEG quality 30", 200, False, one(quality=30))]
    out.append(("phone photo", 200, True, None))
    if only is not None:
        out = [v for v in out if condition_key(v[0]) in only]
    return out


def condition_key(name: str) -> str:
    """A condition's short name for ``--conditions``: "150dpi", "clean200", "rotated", "blurred",
    "noisy", "jpeg", "photo"."""
    words = name.split()
    if words[0] == "scan":
        return words[1] + "dpi"
    if words[0] == "clean":
        return "clean" + words[1]
    return {"phone": "photo", "JPEG": "jpeg"}.get(words[0], words[0])


def all_condition_keys() -> list[str]:
    return [condition_key(v[0]) for v in variants(False)]


def clean_scan(name: str) -> bool:
    return name.startswith(("scan ", "clean "))


def make_variant(pdf: bytes, seed: int, dpi: int, photo: bool, degradation) -> list[bytes]:
    """One JPEG per page."""
    import pypdfium2 as pdfium

    from ledgerline_tools.samples.scan import degrade, scan_pdf

    if degradation is None:
        return list(scan_pdf(pdf, seed, dpi=dpi, photo=photo).images)

    doc = pdfium.PdfDocument(pdf)
    try:
        return [degrade(doc[i].render(scale=dpi / 72).to_pil().convert("RGB"), degradation,
                        dpi=dpi, noise_seed=seed * 1000 + i) for i in range(len(doc))]
    finally:
        doc.close()


def as_upload(images: list[bytes], dpi: int, work: Path, name: str) -> str:
    """A one-page scan as the JPEG it is; several pages as a scanner's image-only PDF."""
    if len(images) == 1:
        path = work / f"{name}.jpg"
        path.write_bytes(images[0])
        return str(path)
    from ledgerline_tools.samples.scan import image_pdf

    path = work / f"{name}.pdf"
    path.write_bytes(image_pdf(list(images), dpi))
    return str(path)


def generated_table(docs: int, quick: bool, work: Path, every: OcrOptions,
                    english: OcrOptions, results: dict, only: set[str] | None = None
                    ) -> tuple[list, Score]:
    from ledgerline_tools import samples

    invoices = [samples.generate(seed) for seed in range(1, docs + 1)]
    text = Score()
    for i, (pdf, truth) in enumerate(invoices):
        path = work / f"doc{i}.pdf"
        path.write_bytes(pdf)
        document, seconds = extract(str(path), every)
        text.add(truth, document)
        text.seconds.append(seconds)
    langs = len({t["_generator"]["lang"] for _, t in invoices})
    print(f"\n{docs} generated invoices ({langs} languages); key fields: {', '.join(KEY_FIELDS)};"
          f"\nline items matched by net amount; auto = share of documents auto-accepted "
          f"(review not required), right = share of those with every key field right\n")
    header = (f"{'variant':<20} {'F1':>6} {'gap':>6} {'goal':>4} {'items':>6} {'gap':>6} "
              f"{'goal':>4} {'auto':>5} {'right':>6} {'s/doc':>6} {'F1 en':>6}")
    table_header(header)
    print(f"{'text layer (PDF)':<20} {text.f1:6.3f} {'':>6} {'':>4} {fmt(text.items_f1)} "
          f"{'':>6} {'':>4} {text.auto_share:5.2f} {fmt(text.auto_right)} "
          f"{statistics.mean(text.seconds):6.2f}")
    results["generated"] = {"text layer": text.summary()}
    pages_for_speed = []
    ocr_all, clean = Score(), Score()
    for name, dpi, photo, degradation in variants(quick, only):
        score, score_en = Score(), Score()
        for i, (pdf, truth) in enumerate(invoices):
            images = make_variant(pdf, 100 + i, dpi, photo, degradation)
            path = as_upload(images, dpi, work, f"v{i}")
            document, seconds = extract(path, every)
            score.add(truth, document)
            ocr_all.add(truth, document)
            if clean_scan(name):
                clean.add(truth, document)
            score.seconds.append(seconds)
            if name in ("scan 200 dpi", "phone photo"):
                score_en.add(truth, extract(path, english)[0])
            if i < 3 and not photo and degradation is None:
                page = work / f"speed-{dpi}-{i}.jpg"
                page.write_bytes(images[0])
                pages_for_speed.append((dpi, str(page)))
        gap = text.f1 - score.f1
        items_gap = (text.items_f1 or 0.0) - (score.items_f1 or 0.0)
        en = fmt(score_en.f1) if score_en.c["docs"] else f"{'':>6}"
        print(f"{name:<20} {score.f1:6.3f} {gap:6.3f} {verdict(gap <= GOAL_F1_GAP):>4} "
              f"{fmt(score.items_f1)} {items_gap:6.3f} {verdict(items_gap <= GOAL_ITEMS_GAP):>4} "
              f"{score.auto_share:5.2f} {fmt(score.auto_right)} "
              f"{statistics.mean(score.seconds):6.2f} {en}")
        results["generated"][name] = {**score.summary(), "gap": gap, "items_gap": items_gap,
                                      "f1_english_only": score_en.f1 if score_en.c["docs"]
                                      else None}
    print(f"\nclean-scan conditions: {clean.c['auto']} of {clean.c['docs']} documents "
          f"auto-accepted ({clean.auto_share:.0%}; goal >= {GOAL_AUTO_SHARE:.0%}: "
          f"{verdict(clean.auto_share >= GOAL_AUTO_SHARE)})")
    results["generated_clean_scans"] = clean.summary()
    return pages_for_speed, ocr_all


# -- speed and memory ------------------------------------------------------------------------------

def cli_page(path: str, languages: str) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of `tesseract` on one image, started from a small helper
    process: a child forked from this large one would carry its memory into the figure."""
    helper = ("import os, sys, time, json\n"
              "t = time.perf_counter()\n"
              "pid = os.posix_spawnp('tesseract', ['tesseract', sys.argv[1], 'stdout', '-l', "
              "sys.argv[2]], dict(os.environ), file_actions=[(os.POSIX_SPAWN_OPEN, 1, "
              "'/dev/null', os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, '/dev/null', "
              "os.O_WRONLY, 0)])\n"
              "_, status, usage = os.wait4(pid, 0)\n"
              "print(json.dumps([time.perf_counter() - t, usage.ru_maxrss / 1024, status]))\n")
    out = subprocess.run([sys.executable, "-c", helper, path, languages], check=True,
                         capture_output=True, text=True).stdout
    seconds, mb, status = json.loads(out)
    if status:
        raise RuntimeError(f"tesseract failed on {path}")
    return seconds, mb


def inprocess_page(path: str, options: OcrOptions, second: bool = True) -> float:
    """Seconds to read one image in process; ``second=False``: Tesseract alone, the second
    recogniser's vote left out (what the page cost before it)."""
    from ledgerline.extraction.ocr.engine import engine_for

    engine = engine_for(options.tesseract_languages)
    saved = engine.second
    if not second:
        engine.second = None
    try:
        started = time.perf_counter()
        read_image(path, options)
        return time.perf_counter() - started
    finally:
        engine.second = saved


# A fresh process loads the OCR engines as the sandbox's fork server does (ocr.warm), then
# extracts the file as an extraction child does: its peak RSS (VmHWM; ru_maxrss would count the
# bench process it was started from) is the worker's, shared models included.
_WORKER = """
import json, sys, time
sys.path.insert(0, {service!r})
from ledgerline.extraction import extract_pdf
from ledgerline.extraction.ocr import OcrOptions, warm
o = OcrOptions(languages=tuple(sys.argv[2].split(',')))
def hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            return int(line.split()[1]) / 1024
warm(o)
base = hwm()
t = time.perf_counter()
d = extract_pdf(sys.argv[1], content_hash='blake3:' + '0' * 64, use_embedded_xml=False, ocr=o)
print(json.dumps([hwm(), base, time.perf_counter() - t, d['document']['pages']]))
"""


def worker_peak(path: str, options: OcrOptions) -> tuple[float, float, float, int]:
    """(peak MB, MB after loading the engines, seconds, pages) of a worker extracting `path`."""
    out = subprocess.run([sys.executable, "-c", _WORKER.format(service=str(ROOT / "service")),
                          path, ",".join(options.languages)],
                         check=True, capture_output=True, text=True).stdout
    peak, base, seconds, pages = json.loads(out)
    return peak, base, seconds, pages


def ten_page_scan(work: Path) -> str:
    """A 10-page image-only PDF at 300 dpi (the configured DPI, the largest pages OCR reads),
    pages of generated invoices with a scanner's drawn degradation."""
    from ledgerline_tools import samples
    from ledgerline_tools.samples.scan import image_pdf, scan_pdf

    pages: list[bytes] = []
    seed = 1
    while len(pages) < MEMORY_PAGES:
        pdf, _ = samples.generate(seed)
        pages += scan_pdf(pdf, 500 + seed, dpi=300).images
        seed += 1
    path = work / "ten-pages.pdf"
    path.write_bytes(image_pdf(pages[:MEMORY_PAGES], 300))
    return str(path)


def fmt_langs(options: OcrOptions) -> str:
    return "all 13" if len(options.languages) > 1 else options.languages[0]


def speed_table(pages, every: OcrOptions, english: OcrOptions, results: dict) -> None:
    print("\nOCR time per page (median, s), same image files, interleaved page by page, against "
          "the command line\nwith the same languages; no 2nd: in process without the second "
          "recogniser's vote;\nMB tesseract: the command line's peak RSS on those pages\n")
    header = (f"{'dpi':>4} {'langs':>7} {'in-process':>10} {'no 2nd':>7} {'tesseract':>10} "
              f"{'ratio':>6} {'goal':>5} {'MB tesseract':>12}")
    table_header(header)
    for options in (every, english):
        for dpi in sorted({d for d, _ in pages}):
            files = [p for d, p in pages if d == dpi]
            inproc, alone, cli, cli_mb = [], [], [], []
            inprocess_page(files[0], options)  # the engines are loaded before anything is timed
            for path in files:  # interleaved, so load on the machine hits all three alike
                inproc.append(inprocess_page(path, options))
                alone.append(inprocess_page(path, options, second=False))
                seconds, mb = cli_page(path, options.tesseract_languages)
                cli.append(seconds)
                cli_mb.append(mb)
            ratio = statistics.median(inproc) / statistics.median(cli)
            print(f"{dpi:>4} {fmt_langs(options):>7} {statistics.median(inproc):10.2f} "
                  f"{statistics.median(alone):7.2f} {statistics.median(cli):10.2f} {ratio:6.2f} "
                  f"{verdict(ratio <= GOAL_TIME_RATIO):>5} {max(cli_mb):12.0f}")
            results["speed"][f"{dpi}/{fmt_langs(options)}"] = {
                "inprocess_s": statistics.median(inproc),
                "without_second_s": statistics.median(alone), "cli_s": statistics.median(cli),
                "ratio": ratio, "cli_peak_mb": max(cli_mb)}


def memory_table(work: Path, every: OcrOptions, english: OcrOptions, results: dict) -> None:
    path = ten_page_scan(work)
    print(f"\nPeak RSS of a worker (engines loaded as the fork server loads them, then one "
          f"{MEMORY_PAGES}-page\nimage-only scan at 300 dpi extracted; goal <= {GOAL_WORKER_MB}"
          f" MB)\n")
    header = (f"{'langs':>7} {'MB engines':>10} {'MB peak':>8} {'goal':>5} {'pages':>5} "
              f"{'s/page':>6}")
    table_header(header)
    for options in (every, english):
        peak, base, seconds, pages = worker_peak(path, options)
        print(f"{fmt_langs(options):>7} {base:10.0f} {peak:8.0f} "
              f"{verdict(peak <= GOAL_WORKER_MB):>5} {pages:>5} {seconds / pages:6.2f}")
        results["memory"][fmt_langs(options)] = {"engines_mb": base, "peak_mb": peak,
                                                 "pages": pages, "seconds": seconds}


# -- the corpus' real scans, leaving each source out ---------------------------------------------

def corpus_scans(corpus: Path) -> list[tuple[int, dict]]:
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    with manifest.open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [(n, r) for n, r in enumerate(rows, start=2)
            if r["has_text_layer"] == "no" and r["truth"] and (corpus / r["truth"]).is_file()]


def learned_sources(corpus: Path) -> set[str]:
    """The sources the committed ranker may have learned from: every licensed corpus row that
    ``ledgerline-train`` reads."""
    from ledgerline_tools.ranker.dataset import is_trainable, manifest_rows

    return {r["source_repo"] for r in manifest_rows(corpus) if r["has_text_layer"] == "yes"
            and r["scorable"] == "yes" and is_trainable(r)}


class FoldRankers:
    """Rankers trained as ``ledgerline-train`` trains, each without one source; built on first
    use (featurising the training documents once)."""

    def __init__(self, corpus: Path):
        self.corpus = corpus
        self.examples = None
        self.models: dict = {}

    def without(self, source: str):
        from ledgerline_tools.ranker import train as T
        from ledgerline.extraction.ranker.model import Ranker, load

        if source not in self.models:
            if self.examples is None:
                from ledgerline_tools.ranker.dataset import (
                    corpus_documents,
                    generated_documents,
                )

                self.examples = T.examples(corpus_documents(self.corpus) + generated_documents(
                    T.GENERATED_COUNT, T.GENERATED_SEED))
            boosters = T.fit([ex for ex in self.examples
                              if ex.doc.trainable and ex.doc.source != source])
            committed = load()
            self.models[source] = Ranker(boosters, committed.calibrators, committed.thresholds,
                                         committed.meta)
        return self.models[source]


def with_ranker(ranker):
    """Extraction with this ranker instead of the committed one (a context manager)."""
    import contextlib

    from ledgerline.extraction import ranker as R

    @contextlib.contextmanager
    def swap():
        saved = R.load
        R.load = (lambda: ranker) if ranker is not None else saved
        try:
            yield
        finally:
            R.load = saved

    return swap()


def corpus_table(corpus: Path, options: OcrOptions, results: dict) -> Score | None:
    rows = corpus_scans(corpus)
    if not rows:
        print(f"\n(no corpus at {corpus}: real scans skipped)")
        return None
    learned = learned_sources(corpus)
    folds = FoldRankers(corpus)
    print(f"\nReal scans and photos in the corpus (has_text_layer=no, {len(rows)} rows), leaving "
          f"each source out;\nby manifest row: key fields correct / found / in truth, line items "
          f"correct / found / in truth,\nauto = auto-accepted, fold = scored by a ranker trained "
          f"without the row's source\n")
    header = (f"{'row':>4} {'pages':>5} {'key':>9} {'items':>11} {'auto':>5} {'fold':>4} "
              f"{'s':>6}")
    table_header(header)
    total = Score()
    for number, row in rows:
        truth = json.loads((corpus / row["truth"]).read_text())
        fold = row["source_repo"] in learned
        with with_ranker(folds.without(row["source_repo"]) if fold else None):
            document, seconds = extract(str(corpus / row["pdf"]), options)
        one = total.add(truth, document)
        total.seconds.append(seconds)
        pages = document["document"]["pages"] if document else "-"
        items = (f"{one['li_tp']}/{one['li_pred']}/{one['li_truth']}" if one["li_truth"]
                 else "-")
        auto = "yes" if one["auto"] else ""
        print(f"{number:>4} {pages:>5} {one['tp']:>3}/{one['pred']}/{one['truth']:<3} "
              f"{items:>11} {auto:>5} {'yes' if fold else '':>4} {seconds:6.1f}  "
              f"{LAST_ERROR[0]}")
        results["corpus"].append({"row": number, **dict(one), "fold": fold,
                                  "error": LAST_ERROR[0] or None})
    c = total.c
    print(f"\nall {len(rows)}: key fields {c['tp']} right of {c['pred']} found, {c['truth']} in "
          f"truth: F1 {total.f1:.3f} (goal >= {GOAL_REAL_F1}: "
          f"{verdict(total.f1 >= GOAL_REAL_F1)});\nline items {c['li_tp']}/{c['li_pred']}/"
          f"{c['li_truth']}: F1 {fmt(total.items_f1).strip()} (goal >= {GOAL_REAL_ITEMS}: "
          f"{verdict((total.items_f1 or 0) >= GOAL_REAL_ITEMS)}); auto-accepted {c['auto']}, "
          f"every key field right in {c['auto_right']}")
    results["corpus_total"] = total.summary()
    return total


def straight_through(parts: list[tuple[str, Score | None]], results: dict) -> None:
    print("\nStraight-through on OCR'd documents: auto-accepted documents with every key field "
          f"right (goal >= {GOAL_AUTO_RIGHT:.0%})\n")
    header = f"{'documents':<28} {'docs':>5} {'auto':>5} {'right':>5} {'share':>6} {'goal':>5}"
    table_header(header)
    for name, score in parts:
        if score is None:
            continue
        c = score.c
        share = score.auto_right
        ok = share is None or share >= GOAL_AUTO_RIGHT
        print(f"{name:<28} {c['docs']:>5} {c['auto']:>5} {c['auto_right']:>5} "
              f"{fmt(share)} {verdict(ok):>5}")
        results["straight_through"][name] = {"docs": c["docs"], "auto": c["auto"],
                                             "right": c["auto_right"]}


# -- the run ---------------------------------------------------------------------------------------

def main(argv=None) -> int:
    from ledgerline_tools.ranker.train import HASH_SEED

    if os.environ.get("PYTHONHASHSEED") != HASH_SEED:  # fold rankers train as ledgerline-train
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, "PYTHONHASHSEED": HASH_SEED})
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=16, help="generated invoices (default 16)")
    ap.add_argument("--quick", action="store_true", help="fewer documents and variants")
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--skip-generated", action="store_true")
    ap.add_argument("--skip-cost", action="store_true", help="no speed and memory tables")
    ap.add_argument("--skip-corpus", action="store_true")
    ap.add_argument("--conditions", help="generated conditions to run, comma-separated, of: "
                    + ", ".join(all_condition_keys()) + " (default: all)")
    args = ap.parse_args(argv)
    only = None
    if args.conditions:
        only = {c.strip() for c in args.conditions.split(",") if c.strip()}
        unknown = only - set(all_condition_keys())
        if unknown:
            ap.error(f"unknown conditions {', '.join(sorted(unknown))}; known: "
                     + ", ".join(all_condition_keys()))
    docs = 4 if args.quick else args.docs

    every = OcrOptions()
    english = OcrOptions(languages=("en",))
    version = subprocess.run(["tesseract", "--version"], capture_output=True, text=True,
                             check=True)
    langs = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True,
                           check=True)
    from ledgerline.extraction.ocr import preprocessing_tag

    print(f"OCR: {preprocessing_tag(every)}; in-process tesseract {tesseract_version()}; "
          f"command line: {version.stdout.splitlines()[0]}; language data: "
          f"{' '.join(langs.stdout.splitlines()[1:])}")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1 and 5 min), "
          f"{os.cpu_count()} cores; OMP_THREAD_LIMIT={os.environ['OMP_THREAD_LIMIT']}")
    results: dict = {"generated": {}, "speed": {}, "memory": {}, "corpus": [],
                     "straight_through": {}}
    real = generated = None
    with tempfile.TemporaryDirectory(prefix="ocr-bench-") as tmp:
        work = Path(tmp)
        if not args.skip_corpus:
            real = corpus_table(Path(args.corpus), every, results)
        pages_for_speed = []
        if not args.skip_generated:
            pages_for_speed, generated = generated_table(docs, args.quick, work, every,
                                                         english, results, only)
        straight_through([("real scans (out of source)", real),
                          ("generated, every condition", generated)], results)
        if not args.skip_cost:
            if not pages_for_speed:
                pages_for_speed = speed_pages(work)
            speed_table(pages_for_speed, every, english, results)
            memory_table(work, every, english, results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    return 0


def speed_pages(work: Path) -> list[tuple[int, str]]:
    """Pages for the speed table when the generated table did not run: three scans per dpi."""
    from ledgerline_tools import samples
    from ledgerline_tools.samples.scan import scan_pdf

    out = []
    for dpi in (150, 200, 300):
        for i in range(3):
            pdf, _ = samples.generate(i + 1)
            page = work / f"speed-{dpi}-{i}.jpg"
            page.write_bytes(scan_pdf(pdf, 100 + i, dpi=dpi).images[0])
            out.append((dpi, str(page)))
    return out


if __name__ == "__main__":
    sys.exit(main())
