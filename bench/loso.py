"""Leave-one-source-out figures of the field ranker against the extractor before it, on one split.

For every source (the manifest's ``source_repo``) of the corpus and of ``outside/``, the ranker
is trained on every other source the committed model may learn from (plus the generated
invoices, as ``ledgerline-train`` does) and tested on the one left out; its confidence is
calibrated on the left-out predictions of the other sources only. The baseline ("rules") is
the text-layer extractor as it was before the ranker, the hand-tuned choice of every field
(:data:`ranker_loso.BASELINE_REF`): it needs no training, so it runs on the same documents as
they are. Printed: per field and corpus part, precision,
recall and F1 of both; per source, the key-field accuracy of both; the candidate recall (how
often the true value is among the candidates at all: what bounds any ranker); the misses of each
field by kind, before and after; the calibration table. Sources are printed as numbers, never
by name (some are people's repositories).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from decimal import Decimal

from ledgerline.extraction.ranker import train as T
from ledgerline.extraction.ranker.dataset import norm
from ledgerline.extraction.ranker.features import CLASS_INDEX, FEATURE_NAMES
from ledgerline.extraction.ranker.model import decide

KEY_FIELDS = ("invoice_number", "issue_date", "currency", "seller_name", "net_total",
              "tax_total", "gross_total")
FIELDS = ("invoice_number", "issue_date", "due_date", "currency", "seller_name",
          "seller_vat_id", "buyer_name", "buyer_vat_id", "net_total", "tax_total",
          "gross_total", "amount_due")
PARTS = ("outside", "corpus")
CONFIDENT = 0.9  # the calibration goal: of values this sure, at least GOAL_SHARE are right
GOAL_SHARE = 0.97
CONFIDENCE_BINS = (0.0, 0.5, 0.7, 0.9, 0.97, 1.01)
MISS_KINDS = ("not a candidate", "nothing chosen", "buyer as seller", "bank as seller",
              "order/customer no.", "street/postcode no.", "one VAT rate's row", "paid vs due",
              "net/gross swapped", "discount", "header row/value row", "other")


def _out(field, value):
    if hasattr(value, "isoformat"):
        value = value.isoformat()
    return norm(field, value)


class PRF:
    def __init__(self):
        self.c = defaultdict(Counter)

    def add(self, field, truth, got):
        c = self.c[field]
        c["n"] += 1
        if got is not None:
            c["pred"] += 1
            c["tp"] += got == truth

    def f1(self, field):
        c = self.c[field]
        p = c["tp"] / c["pred"] if c["pred"] else 0.0
        r = c["tp"] / c["n"] if c["n"] else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0), c["n"]


def evaluate(exs, probs):
    """Per document: the ranker's picks (calibrated per fold) and the rules' values."""
    by_source = {}
    for source in sorted({ex.doc.source for ex in exs if ex.doc.part != "generated"}):
        by_source[source] = T.calibrations(T.calibration_pairs(exs, probs, without_source=source))
    out = []
    for ex in exs:
        if ex.doc.part == "generated":
            continue
        picks = decide(ex.rows, probs[ex.doc.key], by_source[ex.doc.source])
        rules = ex.rows.rules.fields
        ranker = {}
        for f in FIELDS:
            if f in picks:
                ranker[f] = (_out(f, picks[f].value), picks[f].confidence, picks[f])
            else:  # fields the ranker does not choose keep the rules' choice
                c = rules.get(f)
                ranker[f] = (_out(f, c.out_value()) if c else None, c.score if c else 0.0, None)
        out.append((ex, ranker))
    return out


def candidate_recall(ex, field) -> bool:
    truth = norm(field, ex.doc.truth.get(field))
    rows = ex.rows.rows.get(field)
    if rows is None:  # not ranked: the rules' candidates
        return True
    return any(_out(field, r.value) == truth for r in rows)


def miss_kind(ex, field, got, pick) -> str:
    """A heuristic reading of why a field was missed (see MISS_KINDS)."""
    truth = norm(field, ex.doc.truth.get(field))
    t = ex.doc.truth
    if field in ex.rows.rows and not candidate_recall(ex, field):
        return "not a candidate"
    if got is None:
        return "nothing chosen"
    row = pick.row if pick is not None else None
    if field == "seller_name":
        if got == norm("buyer_name", t.get("buyer_name")):
            return "buyer as seller"
        if re.search(r"bank|iban|account|konto|banque|banca", str(got)):
            return "bank as seller"
    if field == "invoice_number":
        if got in (norm("purchase_order", t.get("purchase_order")),):
            return "order/customer no."
        if row is not None:
            x = dict(zip(FEATURE_NAMES, row.x, strict=True))
            if x["line_other_number"] or x["left_class"] == CLASS_INDEX["purchase_order"]:
                return "order/customer no."
            if x["line_contact"] or re.fullmatch(r"\d{4,5}", str(got)):
                return "street/postcode no."
    if field in ("net_total", "tax_total", "gross_total", "amount_due"):
        others = {f: norm(f, t.get(f)) for f in ("net_total", "gross_total", "amount_due")}
        if field in ("gross_total", "amount_due") and got in (others["gross_total"],
                                                             others["amount_due"]):
            return "paid vs due"
        swapped = {"net_total": "gross_total", "gross_total": "net_total"}.get(field)
        if swapped and got == others[swapped]:
            return "net/gross swapped"
        if row is not None:
            x = dict(zip(FEATURE_NAMES, row.x, strict=True))
            if x["row_has_percent"] and field == "tax_total":
                return "one VAT rate's row"
            if x["col_names_field"] and not x["cell_names_field"] and not x["left_names_field"]:
                return "header row/value row"
        disc = ((t.get("_adjustments") or {}).get("discount")) or 0
        if disc and isinstance(got, Decimal) and abs(got - truth) == Decimal(str(disc)):
            return "discount"
    return "other"


def _item_scores(exs, items: dict, part: str):
    """(truth items, before P/R/F1, now P/R/F1) of line items matched by net amount."""
    counts = {"before": Counter(), "now": Counter()}
    n = 0
    for ex in exs:
        if ex.doc.part != part or ex.doc.key not in items:
            continue
        truth, before, now = items[ex.doc.key]
        if not truth:
            continue
        n += len(truth)
        for who, got in (("before", before), ("now", now)):
            left = Counter(truth)
            hit = 0
            for a in got:
                if left[a] > 0:
                    left[a] -= 1
                    hit += 1
            counts[who].update({"tp": hit, "pred": len(got), "truth": len(truth)})
    return n, *(_prf(counts[who]) for who in ("before", "now"))


def _prf(c: Counter) -> list[float]:
    p = c["tp"] / c["pred"] if c["pred"] else 0.0
    r = c["tp"] / c["truth"] if c["truth"] else 0.0
    return [p, r, 2 * p * r / (p + r) if p + r else 0.0]


def report(exs, probs, baseline: dict, items: dict | None = None, out=print) -> dict:
    """``baseline``: {doc key: {field: value}} of the extractor before the ranker, on the same
    documents (:func:`baseline_values`); ``items``: {doc key: (truth, before, now)} line-item
    net amounts, scored as a multiset."""
    results = evaluate(exs, probs)
    score = {(p, who): PRF() for p in PARTS for who in ("rules", "ranker")}
    recall = defaultdict(Counter)
    per_source = defaultdict(lambda: defaultdict(Counter))
    confusion = {who: defaultdict(Counter) for who in ("rules", "ranker")}
    calib = defaultdict(lambda: defaultdict(Counter))
    for ex, ranker in results:
        part = ex.doc.part
        before = baseline.get(ex.doc.key, {})
        for f in FIELDS:
            truth = norm(f, ex.doc.truth.get(f))
            if truth is None:
                continue
            got_rules = _out(f, before.get(f))
            got, conf, pick = ranker[f]
            score[(part, "rules")].add(f, truth, got_rules)
            score[(part, "ranker")].add(f, truth, got)
            recall[(part, f)]["n"] += 1
            recall[(part, f)]["in"] += candidate_recall(ex, f)
            if f in KEY_FIELDS:
                src = per_source[(part, ex.doc.source)]
                src["docs"][ex.doc.key] = 1
                src["n"]["fields"] += 1
                src["rules"]["right"] += got_rules == truth
                src["ranker"]["right"] += got == truth
            if got_rules != truth:
                confusion["rules"][f][miss_kind(ex, f, got_rules, None)] += 1
            if got != truth:
                confusion["ranker"][f][miss_kind(ex, f, got, pick)] += 1
            if got is not None:
                k = next(i for i, hi in enumerate(CONFIDENCE_BINS[1:]) if conf < hi)
                calib[f][k]["n"] += 1
                calib[f][k]["right"] += got == truth
    result = {"fields": {}, "sources": [], "confusion": {}, "calibration": {}}
    out("Leave-one-source-out, text layer: rules vs ranker (P / R / F1)")
    for part in PARTS:
        out()
        out(f"{part:<15} {'n':>4} | {'rules P':>7} {'R':>6} {'F1':>6} | {'ranker P':>8} {'R':>6}"
            f" {'F1':>6} | {'cand. recall':>12}")
        out("-" * 84)
        mins = {"rules": 1.0, "ranker": 1.0}
        for f in FIELDS:
            rp, rr, rf, n = score[(part, "rules")].f1(f)
            kp, kr, kf, _ = score[(part, "ranker")].f1(f)
            rc = recall[(part, f)]
            cr = rc["in"] / rc["n"] if rc["n"] else 0.0
            mark = "*" if f in KEY_FIELDS else " "
            out(f"{f:<14}{mark} {n:>4} | {rp:7.3f} {rr:6.3f} {rf:6.3f} | {kp:8.3f} {kr:6.3f}"
                f" {kf:6.3f} | {cr:12.3f}")
            if f in KEY_FIELDS and n:
                mins["rules"] = min(mins["rules"], rf)
                mins["ranker"] = min(mins["ranker"], kf)
            result["fields"].setdefault(part, {})[f] = {
                "n": n, "rules": [rp, rr, rf], "ranker": [kp, kr, kf], "candidate_recall": cr}
        if items:
            n, before, now = _item_scores(exs, items, part)
            out(f"{'line items':<15} {n:>4} | {before[0]:7.3f} {before[1]:6.3f} {before[2]:6.3f} |"
                f" {now[0]:8.3f} {now[1]:6.3f} {now[2]:6.3f} |   (not ranked)")
            result["fields"][part]["line_items"] = {"n": n, "rules": before, "ranker": now}
        out(f"{'key-field min':<15} {'':>4} | {'':>7} {'':>6} {mins['rules']:6.3f} | {'':>8}"
            f" {'':>6} {mins['ranker']:6.3f} |   (* key fields)")
        result["fields"][part]["key_min"] = mins
    out()
    out("Per source (key fields right / scored), numbered within their part")
    out(f"{'source':<12} {'docs':>4} {'fields':>6} {'rules':>6} {'ranker':>6}")
    for part in PARTS:
        keys = sorted(k for k in per_source if k[0] == part)
        for n, key in enumerate(keys, start=1):
            s = per_source[key]
            nf = s["n"]["fields"]
            a, b = s["rules"]["right"] / nf, s["ranker"]["right"] / nf
            out(f"{part}#{n:<{11 - len(part)}} {len(s['docs']):>4} {nf:>6} {a:6.2f} {b:6.2f}")
            result["sources"].append({"part": part, "n": n, "docs": len(s["docs"]),
                                      "fields": nf, "rules": a, "ranker": b})
    out()
    out("Misses by kind, all real documents (rules -> ranker)")
    out(f"{'field':<15} " + " ".join(f"{k[:12]:>12}" for k in MISS_KINDS))
    for f in FIELDS:
        cells = [f"{confusion['rules'][f][k]:>5}->{confusion['ranker'][f][k]:<5}"
                 for k in MISS_KINDS]
        out(f"{f:<15} " + " ".join(f"{c:>12}" for c in cells))
        result["confusion"][f] = {who: dict(confusion[who][f]) for who in confusion}
    out()
    out(f"Calibration (ranker, all real documents): values per confidence bin, share right;"
        f" goal: >= {GOAL_SHARE} right at >= {CONFIDENT}")
    heads = [f"[{lo:.2f},{min(hi, 1.0):.2f}{']' if hi > 1 else ')'}"
             for lo, hi in zip(CONFIDENCE_BINS, CONFIDENCE_BINS[1:], strict=False)]
    out(f"{'field':<15} " + " ".join(f"{h:>15}" for h in heads) + f" {'>=0.9':>13}")
    for f in FIELDS:
        cells = []
        for k in range(len(heads)):
            b = calib[f][k]
            cells.append(f"{b['n']:>4} {b['right'] / b['n']:.2f}" if b["n"] else "      -")
        hi_n = sum(calib[f][k]["n"] for k in range(len(heads)) if CONFIDENCE_BINS[k] >= CONFIDENT)
        hi_r = sum(calib[f][k]["right"] for k in range(len(heads))
                   if CONFIDENCE_BINS[k] >= CONFIDENT)
        share = hi_r / hi_n if hi_n else None
        verdict = "-" if share is None else f"{share:.3f} {'ok' if share >= GOAL_SHARE else 'MISS'}"
        out(f"{f:<15} " + " ".join(f"{c:>15}" for c in cells) + f" {verdict:>13}")
        result["calibration"][f] = {"bins": [dict(calib[f][k]) for k in range(len(heads))],
                                    "confident_share": share, "confident_n": hi_n}
    return result
