"""Extraction accuracy and speed on the shared invoice corpus.

    .venv/bin/python bench/accuracy.py [--corpus ../shared/corpus] [--limit N] [--json OUT]
                                       [--generated 468] [--no-loso] [--compare OLD.json]

Scores MANIFEST rows with scorable=yes, for (a) the full extractor and (b) the text layer alone
(use_embedded_xml=False).  Per field: precision = correct / predicted, recall = correct / truth
present, F1; fields whose truth is null are not scored (null means "the truth does not say").
Amounts compare numerically, dates as ISO strings, everything else with white space removed and
case folded.  Line items are matched by net amount (multiset), scored as precision/recall/F1 over
items.  Speed: pages per second and the ratio of extraction time to pdfminer's own layout
analysis (``pdfminer.high_level.extract_pages`` fully iterated, default parameters) on the same
files in the same run, interleaved file by file so load on the machine affects both alike.
The "xml" columns score the full extractor on the documents it read from embedded XML only.
A second table gives the same figures per corpus part: the `outside/` rows (real invoices from
issuers and generators the rest of the corpus does not have, truth written from the printed page)
apart from the rest (mostly stylesheet renderings of e-invoices), since the outside figures are the
ones that say how the extractor does on a layout it has never seen.
The text-layer figures of these first tables are in-sample for the learned ranker (the committed
model was trained on the licensed corpus rows): the leave-one-source-out tables after them
(``bench/ranker_loso.py``) are the ones that count, next to the extractor before the ranker on
the same documents.
The ranker's cost is measured apart, file by file: today's extraction (parse, labelled
candidates, rules, line items) against what the ranker adds (page-wide candidates, features,
prediction, joint choice).
A third gives the text layer's line-item F1 per source folder (one upstream repository; numbered,
not named) and on each part with that source left out, so that a change of the rules can be seen
to hold without any one source; `--compare` puts an earlier run's figures beside them.
Prints no names or addresses from the corpus, only aggregate numbers.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "service"))

from ledgerline.extraction.document import FIELD_NAMES
from ledgerline_tools.ranker.dataset import in_schema, norm, norm_amount

# The fields the corpus truth carries: every field but purchase order and IBAN.
FIELDS = tuple(f for f in FIELD_NAMES if f not in ("purchase_order", "iban"))
CENT = Decimal("0.01")  # amounts of the truth agree to the cent
TEXT_GOALS = {
    "invoice_number": 0.90,
    "issue_date": 0.90,
    "currency": 0.90,
    "gross_total": 0.90,
    "net_total": 0.90,
    "tax_total": 0.90,
    "seller_name": 0.90,
    "line_items": 0.80,
}


def truth_items(truth: dict) -> list:
    """Net amounts of the truth's line items (common schema, or invoice2data's loose form)."""
    out = []
    if truth.get("line_items"):
        for li in truth["line_items"]:
            if li.get("net_amount") is not None:
                out.append(norm_amount(li["net_amount"]))
        return out
    raw = truth.get("line_items_raw") or []
    inclusive = subtotals_include_vat(truth, raw)
    for li in raw:
        if "price_subtotal" in li:
            rate = li.get("line_tax_percent")
            if inclusive and rate is not None:
                out.append(norm_amount(without_vat(li["price_subtotal"], rate)))
            else:
                out.append(norm_amount(li["price_subtotal"]))
        elif "price_unit" in li and "qty" not in li:
            out.append(norm_amount(li["price_unit"]))
    return out


def subtotals_include_vat(truth: dict, raw: list) -> bool:
    """invoice2data's `price_subtotal` is the line total as printed, with VAT where the invoice
    prints its lines so: the truth says which when its priced lines add up to its own gross
    total and not to its net total. The common schema scores net amounts."""
    priced = [li for li in raw if "price_subtotal" in li and "price_unit" in li]
    net, gross = truth.get("net_total"), truth.get("gross_total")
    if not priced or net is None or gross is None:
        return False
    added = sum(Decimal(str(li["price_subtotal"])) for li in priced)
    return abs(added - Decimal(str(gross))) <= CENT < abs(added - Decimal(str(net)))


def without_vat(amount, rate) -> Decimal:
    return (Decimal(str(amount)) * 100 / (100 + Decimal(str(rate)))).quantize(CENT)


class Score:
    def __init__(self):
        self.tp = Counter()
        self.pred = Counter()
        self.truth = Counter()
        self.by_source = defaultdict(Counter)
        self.by_folder = defaultdict(Counter)  # line items per source folder of the corpus
        self.files = 0

    def add(self, truth: dict, doc: dict, folder: str = ""):
        self.files += 1
        src = doc["source"]
        self.by_source[src]["files"] += 1
        for f in FIELDS:
            t = norm(f, truth.get(f))
            if t is None:
                continue
            p = norm(f, doc["fields"][f]["value"])
            self.truth[f] += 1
            self.by_source[src]["fields"] += 1
            if p is not None:
                self.pred[f] += 1
                if p == t:
                    self.tp[f] += 1
                    self.by_source[src]["correct"] += 1
        t_items = truth_items(truth)
        if t_items:
            p_items = [norm_amount(li["net_amount"]) for li in doc["line_items"]]
            left = Counter(t_items)
            hit = 0
            for a in p_items:
                if left[a] > 0:
                    left[a] -= 1
                    hit += 1
            self.tp["line_items"] += hit
            self.pred["line_items"] += len(p_items)
            self.truth["line_items"] += len(t_items)
            self.by_source[src]["li_tp"] += hit
            self.by_source[src]["li_pred"] += len(p_items)
            self.by_source[src]["li_truth"] += len(t_items)
            for k, v in (("tp", hit), ("pred", len(p_items)), ("truth", len(t_items))):
                self.by_folder[folder][k] += v

    def row(self, f: str):
        tp, pr, tr = self.tp[f], self.pred[f], self.truth[f]
        p = tp / pr if pr else 0.0
        r = tp / tr if tr else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return p, r, f1, tr


def corpus_part(row: dict) -> str:
    return "outside" if row["id"].startswith("outside/") else "corpus"


PARTS = ("corpus", "outside")


def source_folder(row: dict) -> str:
    """The folder a row's PDF comes from: one upstream source ("outside/<owner>+<repo>")."""
    parts = row["pdf"].split("/")
    return "/".join(parts[1:3] if parts[1] == "outside" else parts[1:2])


def f1(tp: int, pred: int, truth: int) -> float:
    return 2 * tp / (pred + truth) if pred + truth else 0.0


def leave_one_source_out(by_folder: dict) -> dict:
    """Per corpus part: line-item F1 of the text layer on all its sources, and with each source
    left out in turn, so a change measured here is not carried by one source's documents.
    Sources are numbered in folder order (the folder names are upstream repositories)."""
    out = {}
    for part in PARTS:
        folders = sorted(
            f for f in by_folder if (f.split("/")[0] == "outside") == (part == "outside")
        )
        total = Counter()
        for f in folders:
            total.update(by_folder[f])
        without = {}
        for f in folders:
            c = by_folder[f]
            if c["truth"]:
                without[f] = f1(*(total[k] - c[k] for k in ("tp", "pred", "truth")))
        out[part] = {
            "all": f1(total["tp"], total["pred"], total["truth"]),
            "without": without,
            "counts": {f: dict(by_folder[f]) for f in folders},
        }
    return out


def print_loso(loso: dict, old: dict | None) -> None:
    """The leave-one-source-out table; with `old` (an earlier run's --json), before and after."""
    print("line items, text layer, leaving one source out (sources with line-item truth)")
    for part in PARTS:
        now = loso[part]
        was = (old or {}).get(part)
        print(
            f"{part}: F1 on all {len(now['counts'])} sources {now['all']:.3f}"
            + (f" (before {was['all']:.3f})" if was else "")
        )
        print(
            f"  {'source':>8} {'items':>5} {'F1 there':>8} {'F1 without':>10}"
            + (f" {'before':>8} {'change':>7}" if was else "")
        )
        names = sorted(now["counts"])
        worse = 0
        for n, f in enumerate(names, 1):
            if f not in now["without"]:
                continue
            c = now["counts"][f]
            line = f"  {n:>8} {c['truth']:>5} {f1(c['tp'], c['pred'], c['truth']):8.3f}"
            line += f" {now['without'][f]:10.3f}"
            if was and f in was["without"]:
                delta = now["without"][f] - was["without"][f]
                worse += delta < 0
                line += f" {was['without'][f]:8.3f} {delta:+7.3f}"
            print(line)
        if was:
            print(f"  left-out sources where the change does not hold: {worse}")


def print_parts(names: list[str], parts: dict, result: dict) -> None:
    """Per corpus part: full-extractor F1 and text-layer P/R/F1 of every field."""
    head = " | ".join(
        f"{p + ' n':>11} {'full F1':>7} {'text P':>6} {'R':>6} {'F1':>6}" for p in PARTS
    )
    print(f"{'field':<15} | {head}")
    print("-" * (18 + 43 * len(PARTS)))
    for f in names:
        cells = []
        for part in PARTS:
            full, text = parts[part]
            _, _, ff, n = full.row(f)
            tp, tr, tf, _ = text.row(f)
            cells.append(f"{n:>11} {ff:7.3f} {tp:6.3f} {tr:6.3f} {tf:6.3f}")
            result.setdefault("parts", {}).setdefault(part, {})[f] = {
                "n": n,
                "full_f1": ff,
                "text_layer": [tp, tr, tf],
            }
        print(f"{f:<15} | " + " | ".join(cells))
    files = "   ".join(f"{part}: {parts[part][0].files} files" for part in PARTS)
    print(files)


def ranker_cost(pdf: Path, cost: Counter) -> None:
    """Seconds of each step of a text-layer extraction, today's and the ranker's, on one file."""
    from ledgerline.extraction import choice, parse_pdf, ranker
    from ledgerline.extraction.errors import ExtractionError
    from ledgerline.extraction.finders import find_candidates
    from ledgerline.extraction.finders.line_items import extract_line_items
    from ledgerline.extraction.finders.page_values import page_value_candidates
    from ledgerline.extraction.geometry import DocText

    t0 = time.perf_counter()
    try:
        parsed = parse_pdf(pdf)
    except ExtractionError:
        return
    if not parsed.has_text_layer:
        return
    dt = DocText(parsed.pages)
    t1 = time.perf_counter()
    found = find_candidates(dt)
    cold = DocText(parsed.pages)  # timed without the caches the finders above filled: an
    t2 = time.perf_counter()  # upper bound of what the page-wide candidates add
    page_value_candidates(cold)
    t3 = time.perf_counter()
    choice.choose(dt, found)
    t4 = time.perf_counter()
    items = extract_line_items(dt)
    t5 = time.perf_counter()
    fresh = find_candidates(dt)  # the rules' choice above set scores on the first ones
    t6 = time.perf_counter()
    ranker.choose(dt, fresh, items)  # the rules' choice (a feature) included
    t7 = time.perf_counter()
    for k, v in (("parse", t1 - t0), ("find", t2 - t1), ("page_values", t3 - t2),
                 ("rules", t4 - t3), ("items", t5 - t4), ("ranker", t7 - t6)):
        cost[k] += v


def load_rows(corpus: Path, limit: int | None):
    with open(corpus / "MANIFEST.tsv", newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["scorable"] == "yes"]
    return rows[:limit] if limit else rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(ROOT / ".." / "shared" / "corpus"))
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", default=None, help="also write the numbers as JSON here")
    ap.add_argument("--generated", type=int, default=None,
                    help="generated invoices in each training fold (default: as ledgerline-train)")
    ap.add_argument("--no-loso", action="store_true", help="skip leave-one-source-out")
    ap.add_argument(
        "--compare",
        default=None,
        help="an earlier run's --json: print its leave-one-source-out figures beside",
    )
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    if not (corpus / "MANIFEST.tsv").is_file():
        print(f"corpus not found at {corpus} (MANIFEST.tsv missing); nothing to measure")
        return 0

    from blake3 import blake3
    from pdfminer.high_level import extract_pages

    from ledgerline.extraction import ExtractionError, extract_pdf

    rows = load_rows(corpus, args.limit)
    cost = Counter()
    full, text, xml_only = Score(), Score(), Score()
    parts = {part: (Score(), Score()) for part in PARTS}
    t_full = t_text = t_miner = 0.0
    pages = 0
    errors = Counter()
    for r in rows:
        pdf = corpus / r["pdf"]
        truth = in_schema(json.loads((corpus / r["truth"]).read_text(encoding="utf-8")))
        h = "blake3:" + blake3(pdf.read_bytes()).hexdigest()
        t0 = time.perf_counter()
        n = sum(1 for _ in extract_pages(str(pdf)))
        t1 = time.perf_counter()
        try:
            doc_full = extract_pdf(pdf, content_hash=h)
        except ExtractionError as exc:
            errors[exc.code] += 1
            doc_full = None
        t2 = time.perf_counter()
        try:
            doc_text = extract_pdf(pdf, content_hash=h, use_embedded_xml=False)
        except ExtractionError as exc:
            errors[exc.code] += 1
            doc_text = None
        t3 = time.perf_counter()
        t_miner += t1 - t0
        t_full += t2 - t1
        t_text += t3 - t2
        pages += n
        if r["has_text_layer"] == "yes":
            ranker_cost(pdf, cost)
        part_full, part_text = parts[corpus_part(r)]
        if doc_full is not None:
            full.add(truth, doc_full)
            part_full.add(truth, doc_full)
            if doc_full["source"] == "embedded_xml":
                xml_only.add(truth, doc_full)
        if doc_text is not None:
            text.add(truth, doc_text, source_folder(r))
            part_text.add(truth, doc_text)

    names = list(FIELDS) + ["line_items"]
    print(
        f"files scored: {len(rows)}   pages: {pages}   extraction errors: {dict(errors) or 'none'}"
    )
    print()
    print(
        f"{'field':<15} {'n':>4} | {'full P':>6} {'R':>6} {'F1':>6} | {'xml n':>5} {'F1':>6} |"
        f" {'text P':>6} {'R':>6} {'F1':>6}  goal"
    )
    print("-" * 93)
    result = {"files": len(rows), "pages": pages, "fields": {}}
    for f in names:
        fp, fr, ff, n = full.row(f)
        _, _, xf, xn = xml_only.row(f)
        tp, tr, tf, _ = text.row(f)
        goal = TEXT_GOALS.get(f)
        mark = "" if goal is None else (f"{goal:.2f} {'ok' if tf >= goal else 'MISS'}")
        print(
            f"{f:<15} {n:>4} | {fp:6.3f} {fr:6.3f} {ff:6.3f} | {xn:>5} {xf:6.3f} |"
            f" {tp:6.3f} {tr:6.3f} {tf:6.3f}  {mark}"
        )
        result["fields"][f] = {
            "n": n,
            "full": [fp, fr, ff],
            "embedded_xml_docs_f1": xf,
            "text_layer": [tp, tr, tf],
        }
    print()
    print_parts(names, parts, result)
    print()
    result["leave_one_source_out"] = loso = leave_one_source_out(text.by_folder)
    old = None
    if args.compare:
        old = json.loads(Path(args.compare).read_text(encoding="utf-8")).get("leave_one_source_out")
    print_loso(loso, old)
    print()
    for label, sc in (("full", full), ("text-only", text)):
        for src, c in sorted(sc.by_source.items()):
            acc = c["correct"] / c["fields"] if c["fields"] else 0.0
            lp = c["li_tp"] / c["li_pred"] if c["li_pred"] else 0.0
            lr = c["li_tp"] / c["li_truth"] if c["li_truth"] else 0.0
            lf = 2 * lp * lr / (lp + lr) if lp + lr else 0.0
            print(
                f"{label:<10} source={src:<13} files={c['files']:>4} field accuracy={acc:.3f}"
                f"  line items P={lp:.3f} R={lr:.3f} F1={lf:.3f}"
            )
            result.setdefault("by_source", {}).setdefault(label, {})[src] = {
                "files": c["files"],
                "accuracy": acc,
                "line_items_f1": lf,
            }
    print()
    speed = {
        "pdfminer_extract_pages_s": t_miner,
        "full_s": t_full,
        "text_only_s": t_text,
        "full_pages_per_s": pages / t_full if t_full else 0.0,
        "text_pages_per_s": pages / t_text if t_text else 0.0,
        "full_ratio": t_full / t_miner if t_miner else 0.0,
        "text_ratio": t_text / t_miner if t_miner else 0.0,
    }
    result["speed"] = speed
    print(f"pdfminer extract_pages: {t_miner:.2f}s ({pages / t_miner:.1f} pages/s)")
    print(
        f"full extractor:         {t_full:.2f}s ({speed['full_pages_per_s']:.1f} pages/s, "
        f"ratio {speed['full_ratio']:.2f}x)"
    )
    print(
        f"text layer only:        {t_text:.2f}s ({speed['text_pages_per_s']:.1f} pages/s, "
        f"ratio {speed['text_ratio']:.2f}x)"
    )
    today = cost["parse"] + cost["find"] - cost["page_values"] + cost["rules"] + cost["items"]
    added = cost["page_values"] + cost["ranker"] - cost["rules"]
    speed["ranker_added_share"] = added / today if today else 0.0
    print(
        f"ranker's cost, text-layer files: today's extraction {today:.2f}s (parse"
        f" {cost['parse']:.2f}, candidates {cost['find'] - cost['page_values']:.2f}, rules"
        f" {cost['rules']:.2f}, line items {cost['items']:.2f}); the ranker adds {added:.2f}s"
        f" (page-wide candidates {cost['page_values']:.2f}, features + prediction + joint"
        f" choice {cost['ranker'] - cost['rules']:.2f}): +{100 * added / today:.1f} %"
    )
    print(f"cpu count: {os.cpu_count()}")
    if not args.no_loso:
        import ranker_loso

        print()
        count = ranker_loso.T.GENERATED_COUNT if args.generated is None else args.generated
        result["loso"] = ranker_loso.run(corpus, count, ranker_loso.BASELINE_REF)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
