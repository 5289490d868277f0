"""Extraction accuracy on generated invoices, per field, language, template and feature.

    .venv/bin/python bench/generated_accuracy.py [--count 234] [--seed 0] [--json OUT]

Generates ``count`` invoices with ``ledgerline_tools.samples`` (languages and templates dealt
round-robin, so 234 = every language x template pair twice), runs the text-layer extractor
(``extract_pdf``, embedded XML off: the samples carry none) on each, and prints the share of
fields whose extracted value equals the truth, normalised as ``bench/accuracy.py`` does
(amounts as numbers, dates as ISO strings, text without white space and case-folded). A field
whose truth is null is not scored. Line items: F1 over net amounts (multiset), scored on
net-priced invoices. Also prints generation speed (invoices/s) against extraction speed in the
same run. These are the baseline figures for a learned field ranker: the rules were not built
for these layouts, languages or amounts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "service"))
sys.path.insert(0, str(ROOT / "bench"))

from ledgerline_tools.ranker.dataset import norm, norm_amount

FIELDS = ("invoice_number", "issue_date", "due_date", "currency", "seller_name", "seller_vat_id",
          "buyer_name", "buyer_vat_id", "net_total", "tax_total", "gross_total", "amount_due",
          "purchase_order", "iban")
KEY_FIELDS = ("invoice_number", "issue_date", "currency", "seller_name", "net_total",
              "tax_total", "gross_total")
SHORT = {"invoice_number": "number", "issue_date": "date", "currency": "cur",
         "seller_name": "seller", "net_total": "net", "tax_total": "tax", "gross_total": "gross",
         "amount_due": "due", "buyer_name": "buyer", "seller_vat_id": "s.vat"}
GROUP_FIELDS = KEY_FIELDS + ("amount_due", "buyer_name", "seller_vat_id")
FEATURES = ("multi_rate", "vat_inclusive", "line_discount", "doc_discount", "voucher",
            "partial_payment", "prepaid", "rounding", "reverse_charge", "ship_to")


class Tally:
    def __init__(self):
        self.correct = Counter()
        self.scored = Counter()
        self.docs = 0
        self.li = Counter()

    def add(self, truth: dict, doc: dict | None):
        self.docs += 1
        for field in FIELDS:
            expected = norm(field, truth.get(field))
            if expected is None:
                continue
            self.scored[field] += 1
            got = norm(field, doc["fields"][field]["value"]) if doc else None
            self.correct[field] += got == expected
        if truth["_generator"]["prices_include_vat"]:
            return
        want = Counter(norm_amount(li["net_amount"]) for li in truth["line_items"])
        got = [norm_amount(li["net_amount"]) for li in doc["line_items"]] if doc else []
        hits = sum((Counter(got) & want).values())
        self.li.update(tp=hits, pred=len(got), truth=sum(want.values()))

    def acc(self, field: str) -> float | None:
        return self.correct[field] / self.scored[field] if self.scored[field] else None

    def line_f1(self) -> float | None:
        if not self.li["truth"]:
            return None
        p = self.li["tp"] / self.li["pred"] if self.li["pred"] else 0.0
        r = self.li["tp"] / self.li["truth"] if self.li["truth"] else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    def key_min(self) -> float:
        values = [a for a in (self.acc(f) for f in KEY_FIELDS) if a is not None]
        return min(values) if values else 0.0


def cell(value: float | None) -> str:
    return "    -" if value is None else f"{value:5.2f}"


def group_table(title: str, groups: dict[str, Tally]) -> list[str]:
    head = f"{title:<16} {'docs':>4} " + " ".join(f"{SHORT[f]:>6}" for f in GROUP_FIELDS)
    out = [head + f" {'lines':>6} {'keymin':>6}", "-" * (len(head) + 14)]
    for name, t in groups.items():
        out.append(f"{name:<16} {t.docs:>4} " + " ".join(f"{cell(t.acc(f)):>6}" for f in GROUP_FIELDS)
                   + f" {cell(t.line_f1()):>6} {t.key_min():6.2f}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=234)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    from blake3 import blake3

    from ledgerline.extraction import ExtractionError, extract_pdf
    from ledgerline_tools.samples import LANGUAGE_CODES, TEMPLATE_NAMES, generate
    from ledgerline_tools.samples.corpus import document_seed, plan

    overall, by_lang, by_template = Tally(), defaultdict(Tally), defaultdict(Tally)
    by_feature = defaultdict(Tally)
    t_gen = t_extract = 0.0
    pages = 0
    errors = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "invoice.pdf"
        for i, lang, template in plan(args.count, LANGUAGE_CODES, TEMPLATE_NAMES):
            t0 = time.perf_counter()
            pdf, truth = generate(document_seed(args.seed, i), lang=lang, template=template)
            t1 = time.perf_counter()
            path.write_bytes(pdf)
            try:
                doc = extract_pdf(path, content_hash="blake3:" + blake3(pdf).hexdigest(),
                                  use_embedded_xml=False)
            except ExtractionError as exc:
                errors[exc.code] += 1
                doc = None
            t2 = time.perf_counter()
            t_gen += t1 - t0
            t_extract += t2 - t1
            pages += truth["_generator"]["pages"]
            for tally in (overall, by_lang[lang], by_template[template]):
                tally.add(truth, doc)
            for feature in truth["_generator"]["features"]:
                by_feature[feature].add(truth, doc)
            by_feature["(plain)" if not truth["_generator"]["features"] else "(any feature)"].add(truth, doc)

    print(f"generated invoices: {args.count}   pages: {pages}   seed: {args.seed}   "
          f"extraction errors: {dict(errors) or 'none'}")
    print()
    print(f"{'field':<16} {'scored':>6} {'accuracy':>8}")
    print("-" * 32)
    for field in FIELDS:
        print(f"{field:<16} {overall.scored[field]:>6} {cell(overall.acc(field)):>8}")
    print(f"{'line items F1':<16} {overall.li['truth']:>6} {cell(overall.line_f1()):>8}")
    print(f"{'key-field min':<16} {'':>6} {overall.key_min():8.2f}")
    print()
    print("\n".join(group_table("language", {k: by_lang[k] for k in LANGUAGE_CODES})))
    print()
    print("\n".join(group_table("template", {k: by_template[k] for k in TEMPLATE_NAMES})))
    print()
    order = [f for f in ("(plain)", "(any feature)", *FEATURES) if f in by_feature]
    print("\n".join(group_table("feature", {k: by_feature[k] for k in order})))
    print()
    speed = {"generate_invoices_per_s": args.count / t_gen, "extract_invoices_per_s":
             args.count / t_extract, "generate_to_extract_time": t_gen / t_extract}
    print(f"generation: {t_gen:.1f} s ({speed['generate_invoices_per_s']:.1f} invoices/s, "
          f"{pages / t_gen:.1f} pages/s); extraction: {t_extract:.1f} s "
          f"({speed['extract_invoices_per_s']:.1f} invoices/s); generation takes "
          f"{speed['generate_to_extract_time']:.2f}x the extraction time; cpu count {os.cpu_count()}")
    if args.json:
        result = {"count": args.count, "seed": args.seed, "speed": speed,
                  "fields": {f: overall.acc(f) for f in FIELDS},
                  "line_items_f1": overall.line_f1(),
                  "by_language": {k: {f: t.acc(f) for f in GROUP_FIELDS} for k, t in by_lang.items()},
                  "by_template": {k: {f: t.acc(f) for f in GROUP_FIELDS}
                                  for k, t in by_template.items()}}
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
