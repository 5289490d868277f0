"""Write many sample invoices for training and benchmarks.

    python -m ledgerline_tools.samples.corpus --out DIR --count N --seed S \
        [--langs en,de,...] [--templates letterhead,...] [--scan-variants] [--dpi 200]

Document i uses seed S * 1,000,000 + i; languages and templates are dealt round-robin, so any
N covers them evenly. Each document is ``NNNNN-LANG-TEMPLATE.pdf`` with its truth in ``.json``;
``--scan-variants`` adds ``-scan`` (flatbed) and ``-photo`` versions: an image-only PDF, one
JPEG per page, and the same truth with a ``_scan`` block. ``MANIFEST.tsv`` lists everything.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import LANGUAGE_CODES, TEMPLATE_NAMES, generate, scan
from .command import scan_info

SEEDS_PER_RUN = 1_000_000


def document_seed(run_seed: int, index: int) -> int:
    return run_seed * SEEDS_PER_RUN + index


def plan(count: int, langs, templates):
    """(index, lang, template) for each document, balanced over both."""
    for i in range(count):
        yield i, langs[i % len(langs)], templates[(i // len(langs)) % len(templates)]


def write_corpus(out: Path, count: int, seed: int, langs, templates, *, scan_variants: bool,
                 dpi: int) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, lang, template in plan(count, langs, templates):
        doc_seed = document_seed(seed, i)
        pdf, truth = generate(doc_seed, lang=lang, template=template)
        stem = f"{i:05d}-{lang}-{template}"
        rows.append(_write(out, stem, pdf, truth, "text"))
        if scan_variants:
            for variant, photo in (("scan", False), ("photo", True)):
                result = scan(pdf, doc_seed, dpi=dpi, photo=photo)
                for page, jpeg in enumerate(result.images, 1):
                    (out / f"{stem}-{variant}-p{page}.jpg").write_bytes(jpeg)
                rows.append(_write(out, f"{stem}-{variant}", result.pdf,
                                   {**truth, "_scan": scan_info(result)}, variant))
    with open(out / "MANIFEST.tsv", "w", encoding="utf-8") as fh:
        fh.write("file\tseed\tlang\tcountry\ttemplate\tvariant\tpages\tfeatures\n")
        fh.writelines("\t".join(str(r[k]) for k in ("file", "seed", "lang", "country", "template",
                                                   "variant", "pages", "features")) + "\n" for r in rows)
    return rows


def _write(out: Path, stem: str, pdf: bytes, truth: dict, variant: str) -> dict:
    (out / f"{stem}.pdf").write_bytes(pdf)
    (out / f"{stem}.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n",
                                      encoding="utf-8")
    g = truth["_generator"]
    return {"file": f"{stem}.pdf", "seed": g["seed"], "lang": g["lang"], "country": g["country"],
            "template": g["template"], "variant": variant, "pages": g["pages"],
            "features": ",".join(g["features"])}


def _names(value: str, allowed, what: str) -> tuple[str, ...]:
    names = tuple(v for v in value.split(",") if v)
    unknown = [n for n in names if n not in allowed]
    if unknown or not names:
        raise SystemExit(f"unknown {what}: {', '.join(unknown) or '(none given)'}; "
                         f"choose from {', '.join(allowed)}")
    return names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--count", required=True, type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--langs", default=",".join(LANGUAGE_CODES),
                    help="comma-separated language codes (default: all)")
    ap.add_argument("--templates", default=",".join(TEMPLATE_NAMES),
                    help="comma-separated template names (default: all)")
    ap.add_argument("--scan-variants", action="store_true")
    ap.add_argument("--dpi", type=int, default=200)
    args = ap.parse_args(argv)
    if not 0 < args.count <= SEEDS_PER_RUN:
        raise SystemExit(f"--count must be between 1 and {SEEDS_PER_RUN}")
    langs = _names(args.langs, LANGUAGE_CODES, "language")
    templates = _names(args.templates, TEMPLATE_NAMES, "template")
    started = time.perf_counter()
    rows = write_corpus(args.out, args.count, args.seed, langs, templates,
                        scan_variants=args.scan_variants, dpi=args.dpi)
    elapsed = time.perf_counter() - started
    print(f"wrote {len(rows)} PDFs ({args.count} invoices) to {args.out} in {elapsed:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
