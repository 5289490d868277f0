"""What the document is, on generated invoices and credit notes in every language.

    .venv/bin/python bench/document_types.py [--per-language 20] [--seed 9000] [--json OUT]

For every vocabulary language, ``--per-language`` documents of ``ledgerline_tools.samples`` (layouts
dealt round-robin), half of them credit notes (a credit note's title, its own number label, the
invoice it credits; amounts printed positive, as most credit notes print them), from seeds the
ranker is never trained on (``ledgerline-train`` uses seed 7). Each is read by the text-layer
extractor; printed per language: the document types read against the truth, the precision and
recall of ``credit_note``, the share of credit notes whose gross total comes out negative and
right, and the share whose preceding invoice number is read. The goal: precision >= 0.99 for
``credit_note``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "service"))
sys.path.insert(0, str(ROOT / "bench"))

from ledgerline_tools.ranker.dataset import norm

PRECISION_GOAL = 0.99


def run(per_language: int, seed: int, out=print) -> dict:
    from ledgerline.extraction import ExtractionError, extract_pdf
    from ledgerline_tools.samples import LANGUAGE_CODES, TEMPLATE_NAMES, generate

    result = {"languages": {}}
    total = Counter()
    out(f"Document types, generated: {per_language} documents per language, half credit notes "
        f"(seeds from {seed}); goal: credit_note precision >= {PRECISION_GOAL}")
    out(f"{'lang':<5} {'docs':>4} {'credit':>6} {'read':>5} {'right':>5} {'precision':>9}"
        f" {'recall':>6} {'neg. gross right':>16} {'preceding right':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "document.pdf"
        for k, lang in enumerate(LANGUAGE_CODES):
            c = Counter()
            for n in range(per_language):
                kind = "credit_note" if n % 2 else "invoice"
                template = TEMPLATE_NAMES[(n // 2 + k) % len(TEMPLATE_NAMES)]
                pdf, truth = generate(seed + 1000 * k + n, lang=lang, template=template,
                                      document_type=kind)
                path.write_bytes(pdf)
                try:
                    doc = extract_pdf(path, content_hash="blake3:" + "0" * 64,
                                      use_embedded_xml=False)
                except ExtractionError:
                    doc = None
                fields = doc["fields"] if doc else {}
                got = (fields.get("document_type") or {}).get("value")
                c["docs"] += 1
                c["credit"] += kind == "credit_note"
                c["read"] += got == "credit_note"
                c["right"] += got == kind == "credit_note"
                if kind == "credit_note":
                    gross = norm("gross_total", (fields.get("gross_total") or {}).get("value"))
                    c["gross_right"] += gross == norm("gross_total", truth["gross_total"])
                    preceding = (fields.get("preceding_invoice_number") or {}).get("value")
                    c["preceding_right"] += norm("invoice_number", preceding) == norm(
                        "invoice_number", truth["preceding_invoice_number"])
            total.update(c)
            result["languages"][lang] = _line(lang, c, out)
    result["all"] = _line("all", total, out)
    return result


def _line(name: str, c: Counter, out) -> dict:
    precision = c["right"] / c["read"] if c["read"] else None
    recall = c["right"] / c["credit"] if c["credit"] else None
    gross = c["gross_right"] / c["credit"] if c["credit"] else None
    preceding = c["preceding_right"] / c["credit"] if c["credit"] else None
    shown = "-" if precision is None else f"{precision:.3f}"
    if name == "all" and precision is not None:
        shown += " ok" if precision >= PRECISION_GOAL else " MISS"
    out(f"{name:<5} {c['docs']:>4} {c['credit']:>6} {c['read']:>5} {c['right']:>5} {shown:>9}"
        f" {recall or 0:6.3f} {gross or 0:16.3f} {preceding or 0:15.3f}")
    return {"docs": c["docs"], "credit_notes": c["credit"], "read_as_credit_note": c["read"],
            "precision": precision, "recall": recall, "negative_gross_right": gross,
            "preceding_right": preceding}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-language", type=int, default=20)
    ap.add_argument("--seed", type=int, default=9000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    result = run(args.per_language, args.seed)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
