"""OCR accuracy, speed and memory on scanned and photographed versions of generated invoices.

    .venv/bin/python bench/ocr.py [--docs N] [--quick] [--corpus ../shared/corpus] [--json OUT]

Invoices come from ``ledgerline.samples`` (deterministic PDFs in 13 languages with their truth);
their scans and photos are made from those PDFs in the same run: rendered at 150, 200 and 300 dpi
with a drawn degradation (slight rotation, blur, noise, uneven light, JPEG), then one
degradation at a time at 200 dpi, and phone photos (perspective, stronger blur and noise, the
desk around the page). Every variant goes through the service's extraction entry point, like an
upload, and the key fields (invoice number, issue date, currency, gross total, seller name) are
scored against the truth (precision, recall, F1) beside the text-layer F1 of the same PDFs.

Speed: OCR time per page in-process (tesserocr, the service's engine with OSD and deskew)
against the ``tesseract`` command line alone on the same image files, interleaved page by page,
both single-threaded (OMP_THREAD_LIMIT=1), with the same languages. Memory: peak RSS of a child
process reading one page, against the command line's peak RSS on it. Languages: the same
measurements with English alone, to show what reading every vocabulary language costs.

Where ../shared/corpus is present, its real scans (has_text_layer=no) are read too and reported
by manifest row number only: nothing from the corpus is printed.
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
from decimal import Decimal, InvalidOperation
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "service"))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # the command line would use every core

from ledgerline.extraction import extract_pdf
from ledgerline.extraction.ocr import OcrOptions, read_image
from ledgerline.extraction.ocr.engine import tesseract_version

KEY_FIELDS = ("invoice_number", "issue_date", "currency", "gross_total", "seller_name")
HASH = "blake3:" + "0" * 64
GOAL_F1_GAP = 0.05
GOAL_TIME_RATIO = 1.1


# -- scoring -----------------------------------------------------------------------------------

def norm(field: str, value):
    if value is None:
        return None
    if field == "gross_total":
        try:
            return Decimal(str(value)).normalize()
        except InvalidOperation:
            return None
    if field == "issue_date":
        return str(value)[:10]
    return "".join(str(value).split()).casefold()


class Score:
    def __init__(self):
        self.correct = self.predicted = self.present = 0
        self.seconds: list[float] = []

    def add(self, truth: dict, document: dict | None) -> None:
        for field in KEY_FIELDS:
            want = norm(field, truth.get(field))
            got = None
            if document is not None:
                got = norm(field, document["fields"][field]["value"])
            self.present += want is not None
            self.predicted += got is not None
            self.correct += got is not None and got == want

    @property
    def f1(self) -> float:
        p = self.correct / self.predicted if self.predicted else 0.0
        r = self.correct / self.present if self.present else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0


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

def variants(quick: bool):
    """(name, dpi, photo, degradation override or None)."""
    from ledgerline.samples.scan import Degradation

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
    return out


def make_variant(pdf: bytes, seed: int, dpi: int, photo: bool, degradation) -> list[bytes]:
    """One JPEG per page."""
    import pypdfium2 as pdfium

    from ledgerline.samples.scan import degrade, scan_pdf

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
    from ledgerline.samples.scan import image_pdf

    path = work / f"{name}.pdf"
    path.write_bytes(image_pdf(list(images), dpi))
    return str(path)


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


def inprocess_page(path: str, options: OcrOptions) -> float:
    started = time.perf_counter()
    read_image(path, options)
    return time.perf_counter() - started


def inprocess_peak_mb(path: str, options: OcrOptions) -> tuple[float, float]:
    """(peak RSS, what the page added to it) of a fresh process that loads the engine, then
    reads one page: the second figure is what a sandbox child spends beyond the shared models."""
    helper = ("import json, sys\n"
              f"sys.path.insert(0, {str(ROOT / 'service')!r})\n"
              "from ledgerline.extraction.ocr import OcrOptions, read_image, warm\n"
              "o = OcrOptions(languages=tuple(sys.argv[2].split(',')))\n"
              "def hwm():\n"  # VmHWM: ru_maxrss would count the bench process forked from
              "    for line in open('/proc/self/status'):\n"
              "        if line.startswith('VmHWM:'):\n"
              "            return int(line.split()[1]) / 1024\n"
              "warm(o)\n"
              "base = hwm()\n"
              "read_image(sys.argv[1], o)\n"
              "peak = hwm()\n"
              "print(json.dumps([peak, peak - base]))\n")
    out = subprocess.run([sys.executable, "-c", helper, path, ",".join(options.languages)],
                         check=True, capture_output=True, text=True).stdout
    peak, added = json.loads(out)
    return peak, added


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fmt_langs(options: OcrOptions) -> str:
    return "all 13" if len(options.languages) > 1 else options.languages[0]


# -- the corpus' real scans ---------------------------------------------------------------------

def corpus_scans(corpus: Path):
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    with manifest.open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [(n, r) for n, r in enumerate(rows, start=2) if r["has_text_layer"] == "no"]


# -- the run ---------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=16, help="generated invoices (default 16)")
    ap.add_argument("--quick", action="store_true", help="fewer documents and variants")
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args(argv)
    docs = 4 if args.quick else args.docs
    from ledgerline import samples

    every = OcrOptions()
    english = OcrOptions(languages=("en",))
    version = subprocess.run(["tesseract", "--version"], capture_output=True, text=True,
                             check=True)
    langs = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True,
                           check=True)
    import tesserocr

    print(f"engine in-process: tesseract {tesseract_version()} (tesserocr "
          f"{tesserocr.__version__}); command line: {version.stdout.splitlines()[0]}; "
          f"language data: {' '.join(langs.stdout.splitlines()[1:])} "
          f"({langs.stdout.splitlines()[0].split(chr(34))[1]})")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1 and 5 min), "
          f"{os.cpu_count()} cores; OMP_THREAD_LIMIT={os.environ['OMP_THREAD_LIMIT']}")
    results: dict = {"variants": {}, "speed": {}, "corpus": []}
    with tempfile.TemporaryDirectory(prefix="ocr-bench-") as tmp:
        work = Path(tmp)
        invoices = [samples.generate(seed) for seed in range(1, docs + 1)]
        text = Score()
        for i, (pdf, truth) in enumerate(invoices):
            path = work / f"doc{i}.pdf"
            path.write_bytes(pdf)
            document, seconds = extract(str(path), every)
            text.add(truth, document)
            text.seconds.append(seconds)
        print(f"\n{docs} generated invoices ({len({t['_generator']['lang'] for _, t in invoices})}"
              f" languages); key fields: {', '.join(KEY_FIELDS)}\n")
        header = (f"{'variant':<22} {'F1':>6} {'text F1':>8} {'gap':>6} {'goal':>5} "
                  f"{'s/doc':>6} {'F1 en only':>10}")
        print(header)
        print("-" * len(header))
        print(f"{'text layer (PDF)':<22} {text.f1:6.3f} {text.f1:8.3f} {0:6.3f} {'':>5} "
              f"{statistics.mean(text.seconds):6.2f}")
        pages_for_speed = []
        for name, dpi, photo, degradation in variants(args.quick):
            score, score_en = Score(), Score()
            for i, (pdf, truth) in enumerate(invoices):
                images = make_variant(pdf, 100 + i, dpi, photo, degradation)
                path = as_upload(images, dpi, work, f"v{i}")
                document, seconds = extract(path, every)
                score.add(truth, document)
                score.seconds.append(seconds)
                if name in ("scan 200 dpi", "phone photo"):
                    score_en.add(truth, extract(path, english)[0])
                if i < 3 and not photo and degradation is None:
                    page = work / f"speed-{dpi}-{i}.jpg"
                    page.write_bytes(images[0])
                    pages_for_speed.append((dpi, str(page)))
            gap = text.f1 - score.f1
            en = f"{score_en.f1:10.3f}" if score_en.present else f"{'':>10}"
            print(f"{name:<22} {score.f1:6.3f} {text.f1:8.3f} {gap:6.3f} "
                  f"{'ok' if gap <= GOAL_F1_GAP else 'MISS':>5} "
                  f"{statistics.mean(score.seconds):6.2f} {en}")
            results["variants"][name] = {"f1": score.f1, "text_f1": text.f1,
                                         "seconds_per_doc": statistics.mean(score.seconds),
                                         "f1_english_only": score_en.f1 or None}
        speed_table(pages_for_speed, every, english, results)
        corpus_table(Path(args.corpus), every, results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    return 0


def speed_table(pages, every: OcrOptions, english: OcrOptions, results: dict) -> None:
    print("\nOCR time per page (median, s) and peak memory (MB), same image files: MB process"
          " is the peak of a\nprocess with the engine loaded that reads one page, MB page what"
          " the page added to it\n")
    header = (f"{'dpi':>4} {'langs':>7} {'in-process':>10} {'tesseract':>10} {'ratio':>6} "
              f"{'goal':>5} {'MB process':>10} {'MB page':>7} {'MB tesseract':>12}")
    print(header)
    print("-" * len(header))
    for options in (every, english):
        for dpi in sorted({d for d, _ in pages}):
            files = [p for d, p in pages if d == dpi]
            inproc, cli, cli_mb = [], [], []
            inprocess_page(files[0], options)  # the engine is loaded before anything is timed
            for path in files:  # interleaved, so load on the machine hits both alike
                inproc.append(inprocess_page(path, options))
                seconds, mb = cli_page(path, options.tesseract_languages)
                cli.append(seconds)
                cli_mb.append(mb)
            peak_mb, page_mb = inprocess_peak_mb(files[0], options)
            ratio = statistics.median(inproc) / statistics.median(cli)
            print(f"{dpi:>4} {fmt_langs(options):>7} {statistics.median(inproc):10.2f} "
                  f"{statistics.median(cli):10.2f} {ratio:6.2f} "
                  f"{'ok' if ratio <= GOAL_TIME_RATIO else 'MISS':>5} "
                  f"{peak_mb:10.0f} {page_mb:7.0f} {max(cli_mb):12.0f}")
            results["speed"][f"{dpi}/{fmt_langs(options)}"] = {
                "inprocess_s": statistics.median(inproc), "cli_s": statistics.median(cli),
                "ratio": ratio, "inprocess_peak_mb": peak_mb, "page_mb": page_mb,
                "cli_peak_mb": max(cli_mb)}


def corpus_table(corpus: Path, options: OcrOptions, results: dict) -> None:
    rows = corpus_scans(corpus)
    if not rows:
        print(f"\n(no corpus at {corpus}: real scans skipped)")
        return
    print("\nReal scans in the corpus (has_text_layer=no), by manifest row\n")
    header = f"{'row':>4} {'pages':>5} {'correct':>7} {'found':>5} {'in truth':>8} {'s':>6}"
    print(header)
    print("-" * len(header))
    total = Score()
    for number, row in rows:
        truth = json.loads((corpus / row["truth"]).read_text())
        score = Score()
        document, seconds = extract(str(corpus / row["pdf"]), options)
        score.add(truth, document)
        total.add(truth, document)
        pages = document["document"]["pages"] if document else "-"
        print(f"{number:>4} {pages:>5} {score.correct:>7} {score.predicted:>5} "
              f"{score.present:>8} {seconds:6.1f}  {LAST_ERROR[0]}")
        results["corpus"].append({"row": number, "correct": score.correct,
                                  "found": score.predicted, "in_truth": score.present})
    print(f"{'all':>4} {'':>5} {total.correct:>7} {total.predicted:>5} {total.present:>8}"
          f"   key-field F1 {total.f1:.3f}")


if __name__ == "__main__":
    sys.exit(main())
