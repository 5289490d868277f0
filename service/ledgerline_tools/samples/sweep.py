"""Extraction over generated invoices of every language and layout, expecting a document or a
specific refusal (`ExtractionError`), never anything else: a `KeyError` in a finder is a
failed, billed job in the service.

    python -m ledgerline_tools.samples.sweep [--per-pair 10] [--first-seed 0] [--scans 0.0] [--jobs 2]

Each language is paired with each layout `--per-pair` times, every invoice from its own seed,
so a run is reproducible and a finding names the one invoice to make again
(`ledgerline sample-invoice --lang L --seed S --template T`). `--scans` is the share of them
also read as a scanned image (OCR; slow). Prints the outcomes per language and layout, then
every internal error with its traceback's last line; exits 1 when there was any. The test
suite runs one invoice per pair (tests/fuzz/test_generated_samples.py; LEDGERLINE_FUZZ_SCALE
multiplies it).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from . import LANGUAGE_CODES, TEMPLATE_NAMES, generate, scan

CONTENT_HASH = "blake3:" + "0" * 64
DOCUMENT, REFUSED, CRASHED = "document", "refused", "internal error"


@dataclass(frozen=True)
class Case:
    seed: int
    lang: str
    template: str
    scanned: bool = False

    def __str__(self) -> str:
        again = f"ledgerline sample-invoice --lang {self.lang} --seed {self.seed} " \
                f"--template {self.template}"
        return again + (" --scan" if self.scanned else "")


@dataclass(frozen=True)
class Outcome:
    case: Case
    kind: str          # DOCUMENT, REFUSED or CRASHED
    detail: str = ""   # the refusal's code, or the error's last traceback line


def cases(per_pair: int, first_seed: int = 0, scans: float = 0.0) -> list[Case]:
    """Every (language, layout) pair `per_pair` times, each invoice from its own seed; every
    round(1 / scans)-th of them also as a scan."""
    pairs = [(lang, template) for lang in LANGUAGE_CODES for template in TEMPLATE_NAMES]
    every = round(1 / scans) if scans > 0 else 0
    out = []
    for n in range(per_pair * len(pairs)):
        lang, template = pairs[n % len(pairs)]
        out.append(Case(first_seed + n, lang, template, scanned=bool(every) and n % every == 0))
    return out


def run(case: Case, directory: str | None = None) -> Outcome:
    """Generate the invoice and extract it (in this process, without the sandbox)."""
    from ledgerline.extraction import ExtractionError, extract_pdf

    pdf, _truth = generate(case.seed, lang=case.lang, template=case.template)
    if case.scanned:
        pdf = scan(pdf, case.seed).pdf
    fd, path = tempfile.mkstemp(prefix="sweep-", suffix=".pdf", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(pdf)
        extract_pdf(path, content_hash=CONTENT_HASH)
    except ExtractionError as exc:
        return Outcome(case, REFUSED, exc.code)
    except Exception as exc:  # noqa: BLE001 - what the sweep is looking for
        last = traceback.format_exception(exc)[-2].strip().splitlines()[0]
        return Outcome(case, CRASHED, f"{type(exc).__name__}: {exc} ({last})")
    finally:
        os.unlink(path)
    return Outcome(case, DOCUMENT)


def _table(outcomes: list[Outcome]) -> list[str]:
    by_lang: dict[str, Counter] = defaultdict(Counter)
    by_template: dict[str, Counter] = defaultdict(Counter)
    for o in outcomes:
        by_lang[o.case.lang][o.kind] += 1
        by_template[o.case.template][o.kind] += 1
    lines = []
    for title, groups in (("language", by_lang), ("layout", by_template)):
        lines += [f"| {title} | invoices | documents | refused | internal errors |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name, n in sorted(groups.items()):
            lines.append(f"| {name} | {sum(n.values())} | {n[DOCUMENT]} | {n[REFUSED]} | "
                         f"{n[CRASHED]} |")
        lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-pair", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--scans", type=float, default=0.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    todo = cases(args.per_pair, args.first_seed, args.scans)
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(run, todo, chunksize=4))
    took = time.monotonic() - started
    kinds = Counter(o.kind for o in outcomes)
    refusals = Counter(o.detail for o in outcomes if o.kind == REFUSED)
    print(f"{len(outcomes)} invoices ({len(LANGUAGE_CODES)} languages x {len(TEMPLATE_NAMES)} "
          f"layouts x {args.per_pair}, seeds {args.first_seed}-"
          f"{args.first_seed + len(todo) - 1}, {sum(c.scanned for c in todo)} scanned) in "
          f"{took:.0f} s: {kinds[DOCUMENT]} documents, {kinds[REFUSED]} refused"
          f"{f' {dict(refusals)}' if refusals else ''}, {kinds[CRASHED]} internal errors\n")
    print("\n".join(_table(outcomes)))
    for o in outcomes:
        if o.kind == CRASHED:
            print(f"{o.case}: {o.detail}")
    return 1 if kinds[CRASHED] else 0


if __name__ == "__main__":
    sys.exit(main())
