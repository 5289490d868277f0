"""E-invoice XML figures, beside bench/accuracy.py's text-layer and OCR figures.

    .venv/bin/python bench/xml_accuracy.py [--seeds N] [--corpus ../shared/corpus]

1. Generated e-invoices (tests/einvoices.py: UBL EN 16931 / Peppol / XRechnung / credit note,
   CII Factur-X / XRechnung, KSeF FA(2) / FA(3) from the sample generator's truth): field accuracy
   of the standalone-XML extractor against what each XML says, the share passing the official
   rules, and the time per document (whole extraction, and the schematron part alone).
2. The corpus's PDFs that carry an e-invoice XML: the attachment read on its own, scored against
   the corpus truth (fields the truth gives), and how many pass the official rules.

Stylesheets are compiled once per process; that one-off cost is printed apart. Prints no names
or addresses from the corpus, only aggregate numbers.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "service"), str(ROOT)]

from ledgerline.extraction import extract_pdf
from ledgerline.extraction.checks import RULESET_VERSION, schematron
from ledgerline.extraction.document import FIELD_NAMES
from ledgerline.extraction.sources.einvoice_xml import (
    parse_invoice_xml,
    pick_invoice_attachment,
)
from ledgerline_tools.ranker.dataset import in_schema, norm
from tests import einvoices

HASH = "blake3:" + "0" * 64


def extract_bytes(data: bytes) -> tuple[dict, float]:
    fd, path = tempfile.mkstemp(suffix=".bin")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    try:
        started = time.perf_counter()
        document = extract_pdf(path, content_hash=HASH)
        return document, time.perf_counter() - started
    finally:
        os.unlink(path)


def rules_time(data: bytes) -> float:
    inv = parse_invoice_xml(data)
    started = time.perf_counter()
    schematron.check(inv.syntax, inv.profile, inv.root)
    return time.perf_counter() - started


def official_pass(document) -> str:
    summary = next(v for v in document["validations"] if v["rule"] == "EN16931")
    return summary["status"]


def generated(seeds: int) -> None:
    print(f"Generated e-invoices ({seeds} seeds per kind)")
    print(f"{'kind':<16} {'docs':>5} {'field acc':>10} {'rules pass':>11} "
          f"{'ms/doc':>8} {'rules ms':>9}")
    for kind in einvoices.KINDS:
        hits = total = passed = 0
        times, rule_times = [], []
        for seed in range(1, seeds + 1):
            data, expected = einvoices.make(kind, seed)
            document, elapsed = extract_bytes(data)
            times.append(elapsed)
            rule_times.append(rules_time(data))
            for name in FIELD_NAMES:
                total += 1
                hits += document["fields"][name]["value"] == expected[name]
            passed += official_pass(document) in ("pass", "skipped")
        print(f"{kind:<16} {seeds:>5} {hits / total:>10.3f} {passed / seeds:>11.2f} "
              f"{statistics.median(times) * 1000:>8.1f} "
              f"{statistics.median(rule_times) * 1000:>9.1f}")


def corpus_rows(corpus: Path) -> list[dict]:
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with open(manifest, newline="", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r["embedded_xml"] == "yes"]


def embedded(corpus: Path) -> None:
    from ledgerline.extraction import parse_pdf

    rows = corpus_rows(corpus)
    if not rows:
        print(f"\n(no corpus at {corpus}: embedded-XML figures skipped)")
        return
    hits = total = docs = 0
    outcomes: dict[str, int] = {}
    times = []
    for row in rows:
        picked = pick_invoice_attachment(parse_pdf(corpus / row["pdf"]).attachments)
        if picked is None:
            continue
        docs += 1
        document, elapsed = extract_bytes(picked[0].data)
        times.append(elapsed)
        status = official_pass(document)
        outcomes[status] = outcomes.get(status, 0) + 1
        truth = in_schema(json.loads((corpus / row["truth"]).read_text(encoding="utf-8")))
        for name in FIELD_NAMES:
            if truth.get(name) is not None:
                total += 1
                hits += norm(name, document["fields"][name]["value"]) == norm(name, truth[name])
    print(f"\nCorpus PDFs with an e-invoice XML: the attachment read on its own ({docs} of "
          f"{len(rows)} readable)")
    print(f"  field accuracy against the corpus truth: {hits}/{total} = {hits / total:.3f}")
    print("  official rules: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"  time per document: median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--corpus", type=Path, default=ROOT / ".." / "shared" / "corpus")
    args = parser.parse_args()
    started = time.perf_counter()
    schematron.warm()
    print(f"Compiling the official stylesheets once: {time.perf_counter() - started:.2f} s "
          f"({RULESET_VERSION})\n")
    generated(args.seeds)
    embedded(args.corpus.resolve())


if __name__ == "__main__":
    main()
