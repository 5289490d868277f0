"""Leave-one-source-out figures of the field ranker against the extractor before it, on one split.

For every source (the manifest's ``source_repo``) of the corpus and of ``outside/``, the ranker
is trained on every other source the committed model may learn from (plus the generated
invoices, as ``ledgerline-train`` does) and tested on the one left out; its calibrators and
acceptance thresholds are fitted on the left-out predictions of the other sources only. Each
document is read by the extraction pipeline itself with that fold's model
(:func:`ledgerline.extraction.pipeline.document_of_pages`), so that the values, their signs
(credit notes), confidences and the review decision are the service's. The baseline ("rules")
is the text-layer extractor as it was before the ranker (:data:`ranker_loso.BASELINE_REF`): it
needs no training, so it runs on the same documents as they are.

Printed, per corpus part: precision, recall and F1 of both, precision also with values the page
does not state counted as false positives (``outside/`` only, whose truth was written from the
page: there ``null`` means "not printed"; the e-invoice rows' ``null`` means "unknown"); per
source, the key-field accuracy; the candidate recall (how often the true value is among the
candidates at all: what bounds any ranker); the misses of each field by kind; per key field the
reliability table of the confidence (out of source) and its AUROC; straight-through processing
(the share of documents taken without review, and the share of those with every key field
right); the document type. Sources are printed as numbers, never by name (some are people's
repositories).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from decimal import Decimal

from ledgerline.extraction.document_type import (
    CORRECTION_CODES,
    CREDIT_NOTE,
    CREDIT_NOTE_CODES,
    INVOICE,
)
from ledgerline.extraction.pipeline import document_of_pages
from ledgerline_tools.ranker import train as T
from ledgerline_tools.ranker.dataset import norm
from ledgerline.extraction.ranker.features import CLASS_INDEX, FEATURE_NAMES
from ledgerline.extraction.ranker.model import decide

KEY_FIELDS = ("invoice_number", "issue_date", "currency", "seller_name", "net_total",
              "tax_total", "gross_total")
FIELDS = ("invoice_number", "issue_date", "due_date", "currency", "seller_name",
          "seller_vat_id", "buyer_name", "buyer_vat_id", "net_total", "tax_total",
          "gross_total", "amount_due")
PARTS = ("outside", "corpus")
CONFIDENCE_BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01)
AUROC_GOAL, STP_PRECISION_GOAL, STP_SHARE_GOAL = 0.85, 0.99, 0.5
MISS_KINDS = ("not a candidate", "nothing chosen", "buyer as seller", "bank as seller",
              "order/customer no.", "street/postcode no.", "one VAT rate's row", "paid vs due",
              "net/gross swapped", "discount", "header row/value row", "other")


def _out(field, value):
    if hasattr(value, "isoformat"):
        value = value.isoformat()
    return norm(field, value)


class PRF:
    """Precision, recall, F1 per field; ``invented`` counts values given where the page states
    none (hand-written truth only)."""

    def __init__(self):
        self.c = defaultdict(Counter)

    def add(self, field, truth, got, *, judged_null: bool = False):
        c = self.c[field]
        if truth is None:
            if judged_null and got is not None:
                c["invented"] += 1
            return
        c["n"] += 1
        if got is not None:
            c["pred"] += 1
            c["tp"] += got == truth

    def f1(self, field, *, invented: bool = False):
        c = self.c[field]
        pred = c["pred"] + (c["invented"] if invented else 0)
        p = c["tp"] / pred if pred else 0.0
        r = c["tp"] / c["n"] if c["n"] else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0), c["n"]


class FoldRanker:
    """The model of one fold for one document: its out-of-source probabilities, and the
    calibrators and thresholds fitted without the document's source."""

    def __init__(self, probs: dict, calibrators: dict, thresholds: dict):
        self.probs, self.calibrators, self.thresholds = probs, calibrators, thresholds

    def decide(self, doc):
        for f, p in self.probs.items():
            if len(p) != len(doc.rows[f]):
                raise RuntimeError(f"{f}: the pipeline's candidates differ from the fold's")
        return decide(doc, self.probs, self.calibrators)


def confidence_by_source(exs, probs) -> dict[str, tuple[dict, dict]]:
    """Per real source: (calibrators, thresholds) fitted on the other trainable sources'
    out-of-source outcomes."""
    pairs = T.calibration_pairs(exs, probs)
    out = {}
    for source in sorted({ex.doc.source for ex in exs if ex.doc.part != "generated"}):
        kept = {f: [o for o in got if o.source != source] for f, got in pairs.items()}
        out[source] = T.fit_confidence(kept)
    return out


def evaluate(exs, probs):
    """Per real document: (example, the pipeline's document with its fold's model, the picks)."""
    fitted = confidence_by_source(exs, probs)
    out = []
    for ex in exs:
        if ex.doc.part == "generated":
            continue
        cals, thresholds = fitted[ex.doc.source]
        ranker = FoldRanker(probs[ex.doc.key], cals, thresholds)
        document = document_of_pages(ex.doc.pages, ranker=ranker)
        picks = decide(ex.rows, probs[ex.doc.key], cals)
        out.append((ex, document, picks))
    return out


def candidate_recall(ex, field) -> bool:
    truth = norm(field, ex.doc.truth.get(field))
    rows = ex.rows.rows.get(field)
    if rows is None:  # not ranked: the rules' candidates
        return True
    return any(T.same(field, r.value, truth, ex.doc.truth) for r in rows)


def miss_kind(ex, field, got, pick) -> str:
    """A heuristic reading of why a field was missed (see MISS_KINDS)."""
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
    if field == "invoice_number" and row is not None:
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
        truth = norm(field, t.get(field))
        if disc and isinstance(got, Decimal) and truth is not None \
                and abs(got - truth) == Decimal(str(disc)):
            return "discount"
    return "other"


def truth_type(truth: dict) -> str | None:
    """The truth's document type as the service names it: the outside truth writes the word,
    the e-invoice rows their UNTDID 1001 code (a correction that reduces what is owed, its
    totals negative, is a credit note); None where the truth does not say."""
    kind = truth.get("document_type")
    if kind in (INVOICE, CREDIT_NOTE) or kind is None:
        return kind
    code = str(kind).strip().upper()
    if code in CREDIT_NOTE_CODES:
        return CREDIT_NOTE
    gross = norm("gross_total", truth.get("gross_total"))
    if code in CORRECTION_CODES and gross is not None and gross < 0:
        return CREDIT_NOTE
    return INVOICE


def auroc(scores: list[float], right: list[bool]) -> float | None:
    """The probability that a right value is more confident than a wrong one (ties half)."""
    pos = [s for s, ok in zip(scores, right, strict=True) if ok]
    neg = [s for s, ok in zip(scores, right, strict=True) if not ok]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


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


def _values(document: dict) -> dict:
    return {f: _out(f, document["fields"][f]["value"]) for f in FIELDS}


def all_key_fields_right(ex, values: dict) -> bool:
    """Every key field as the truth has it; on outside documents a value the page does not
    state is wrong, elsewhere a field the truth does not know is not judged."""
    for f in KEY_FIELDS:
        truth = norm(f, ex.doc.truth.get(f))
        if truth is None and ex.doc.part != "outside":
            continue
        if values[f] != truth:
            return False
    return True


def report(exs, probs, baseline: dict, items: dict | None = None, out=print,
           results: list | None = None) -> dict:
    """``baseline``: {doc key: {field: value}} of the extractor before the ranker, on the same
    documents (:func:`baseline_values`); ``items``: {doc key: (truth, before, now)} line-item
    net amounts, scored as a multiset; ``results``: :func:`evaluate`'s, when already run."""
    results = results if results is not None else evaluate(exs, probs)
    score = {(p, who): PRF() for p in PARTS for who in ("rules", "ranker")}
    recall = defaultdict(Counter)
    per_source = defaultdict(lambda: defaultdict(Counter))
    confusion = {who: defaultdict(Counter) for who in ("rules", "ranker")}
    outcomes = defaultdict(list)  # (part, field) -> (confidence, right)
    stp = defaultdict(Counter)
    held_back = defaultdict(Counter)  # part -> reason's field (and "only <field>") -> documents
    kinds = defaultdict(Counter)
    for ex, document, picks in results:
        part = ex.doc.part
        before = baseline.get(ex.doc.key, {})
        values = _values(document)
        judged = part == "outside"
        for f in FIELDS:
            truth = norm(f, ex.doc.truth.get(f))
            got_rules = _out(f, before.get(f))
            got = values[f]
            score[(part, "rules")].add(f, truth, got_rules, judged_null=judged)
            score[(part, "ranker")].add(f, truth, got, judged_null=judged)
            if got is not None and (truth is not None or judged):
                outcomes[(part, f)].append((document["fields"][f]["confidence"], got == truth,
                                            truth is None))
            if truth is None:
                continue
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
                confusion["ranker"][f][miss_kind(ex, f, got, picks.get(f))] += 1
        accepted = not document["review"]["required"]
        right = all_key_fields_right(ex, values)
        stp[part].update({"docs": 1, "accepted": accepted, "accepted_right": accepted and right,
                          "right": right})
        if right and not accepted:  # what holds back a document with every key field right
            held = sorted({r.split(":")[0] for r in document["review"]["reasons"]})
            held_back[part].update(held)
            held_back[part]["only " + held[0] if len(held) == 1 else "several"] += 1
        kinds[part][(truth_type(ex.doc.truth),
                     document["fields"]["document_type"]["value"])] += 1
    result = {"fields": {}, "sources": [], "confusion": {}, "reliability": {}, "auroc": {},
              "straight_through": {}, "document_type": {}}
    _print_fields(score, recall, items, exs, result, out)
    _print_sources(per_source, result, out)
    _print_misses(confusion, result, out)
    _print_reliability(outcomes, result, out)
    _print_straight_through(stp, held_back, result, out)
    _print_document_types(kinds, result, out)
    return result


def _print_fields(score, recall, items, exs, result, out):
    out("Leave-one-source-out, text layer: rules vs ranker (P / R / F1); 'P inv.': precision with"
        " values the page does not state counted as false positives (outside/ only)")
    for part in PARTS:
        out()
        out(f"{part:<15} {'n':>4} | {'rules P':>7} {'R':>6} {'F1':>6} | {'ranker P':>8} {'R':>6}"
            f" {'F1':>6} | {'P inv.':>6} {'F1 inv.':>7} {'invented':>8} | {'cand. recall':>12}")
        out("-" * 113)
        mins = {"rules": 1.0, "ranker": 1.0, "ranker_invented": 1.0}
        for f in FIELDS:
            rp, rr, rf, n = score[(part, "rules")].f1(f)
            kp, kr, kf, _ = score[(part, "ranker")].f1(f)
            ip, _ir, iff, _ = score[(part, "ranker")].f1(f, invented=True)
            invented = score[(part, "ranker")].c[f]["invented"]
            rc = recall[(part, f)]
            cr = rc["in"] / rc["n"] if rc["n"] else 0.0
            mark = "*" if f in KEY_FIELDS else " "
            out(f"{f:<14}{mark} {n:>4} | {rp:7.3f} {rr:6.3f} {rf:6.3f} | {kp:8.3f} {kr:6.3f}"
                f" {kf:6.3f} | {ip:6.3f} {iff:7.3f} {invented:>8} | {cr:12.3f}")
            if f in KEY_FIELDS and n:
                mins["rules"] = min(mins["rules"], rf)
                mins["ranker"] = min(mins["ranker"], kf)
                mins["ranker_invented"] = min(mins["ranker_invented"], iff)
            result["fields"].setdefault(part, {})[f] = {
                "n": n, "rules": [rp, rr, rf], "ranker": [kp, kr, kf],
                "ranker_invented_counted": [ip, iff], "invented": invented,
                "candidate_recall": cr}
        if items:
            n, before, now = _item_scores(exs, items, part)
            out(f"{'line items':<15} {n:>4} | {before[0]:7.3f} {before[1]:6.3f} {before[2]:6.3f} |"
                f" {now[0]:8.3f} {now[1]:6.3f} {now[2]:6.3f} |   (not ranked)")
            result["fields"][part]["line_items"] = {"n": n, "rules": before, "ranker": now}
        out(f"{'key-field min':<15} {'':>4} | {'':>7} {'':>6} {mins['rules']:6.3f} | {'':>8}"
            f" {'':>6} {mins['ranker']:6.3f} | {'':>6} {mins['ranker_invented']:7.3f}")
        result["fields"][part]["key_min"] = mins


def _print_sources(per_source, result, out):
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


def _print_misses(confusion, result, out):
    out()
    out("Misses by kind, all real documents (rules -> ranker)")
    out(f"{'field':<15} " + " ".join(f"{k[:12]:>12}" for k in MISS_KINDS))
    for f in FIELDS:
        cells = [f"{confusion['rules'][f][k]:>5}->{confusion['ranker'][f][k]:<5}"
                 for k in MISS_KINDS]
        out(f"{f:<15} " + " ".join(f"{c:>12}" for c in cells))
        result["confusion"][f] = {who: dict(confusion[who][f]) for who in confusion}


def _print_reliability(outcomes, result, out):
    heads = [f"[{lo:.2f},{min(hi, 1.0):.2f}{']' if hi > 1 else ')'}"
             for lo, hi in itertools.pairwise(CONFIDENCE_BINS)]
    for part in PARTS:
        out()
        out(f"Reliability, {part}: values per confidence bin and the share right (out of "
            f"source); AUROC (goal >= {AUROC_GOAL})")
        out(f"{'field':<15} " + " ".join(f"{h:>13}" for h in heads) + f" {'AUROC':>7}")
        for f in FIELDS:
            got = outcomes[(part, f)]
            cells, bins = [], []
            for lo, hi in itertools.pairwise(CONFIDENCE_BINS):
                inside = [ok for c, ok, _ in got if lo <= c < hi]
                bins.append({"n": len(inside), "right": sum(inside)})
                cells.append(f"{len(inside):>4} {sum(inside) / len(inside):.2f}" if inside
                             else "        -")
            area = auroc([c for c, _, _ in got], [ok for _, ok, _ in got])
            shown = "-" if area is None else f"{area:.3f}"
            if f in KEY_FIELDS and area is not None:
                shown += " ok" if area >= AUROC_GOAL else " MISS"
            mark = "*" if f in KEY_FIELDS else " "
            out(f"{f:<14}{mark} " + " ".join(f"{c:>13}" for c in cells) + f" {shown:>7}")
            result["reliability"].setdefault(part, {})[f] = bins
            result["auroc"].setdefault(part, {})[f] = area
        _print_confident_wrong(outcomes, part, result, out)


CONFIDENT = 0.9


def _print_confident_wrong(outcomes, part, result, out):
    """The share of key-field values at confidence >= CONFIDENT that are wrong, without and
    with the values the page does not state (outside/ only) counted as wrong."""
    sure = [(ok, invented) for f in KEY_FIELDS for c, ok, invented in outcomes[(part, f)]
            if c >= CONFIDENT]
    stated = [ok for ok, invented in sure if not invented]
    wrong = sum(not ok for ok in stated) / len(stated) if stated else None
    wrong_any = sum(not ok for ok, _ in sure) / len(sure) if sure else None
    shown = "-" if wrong is None else f"{wrong:.3f}"
    shown_any = "-" if wrong_any is None else f"{wrong_any:.3f}"
    out(f"key fields at confidence >= {CONFIDENT}: {len(stated)} values, {shown} wrong; with "
        f"values the page does not state: {len(sure)} values, {shown_any} wrong")
    result.setdefault("confident_wrong", {})[part] = {
        "n": len(stated), "wrong": wrong, "n_with_invented": len(sure),
        "wrong_with_invented": wrong_any}


def _print_straight_through(stp, held_back, result, out):
    out()
    out(f"Straight-through processing (review.required false): share of documents taken, and of"
        f" those the share with every key field right (goals: >= {STP_PRECISION_GOAL} right, >="
        f" {STP_SHARE_GOAL} taken on outside/)")
    out(f"{'part':<10} {'docs':>5} {'taken':>6} {'share':>6} {'all right':>9} {'precision':>9}"
        f" | {'all right, any':>14}")
    for part in PARTS:
        c = stp[part]
        share = c["accepted"] / c["docs"] if c["docs"] else 0.0
        precision = c["accepted_right"] / c["accepted"] if c["accepted"] else None
        shown = "-" if precision is None else f"{precision:.3f}"
        out(f"{part:<10} {c['docs']:>5} {c['accepted']:>6} {share:6.3f} {c['accepted_right']:>9}"
            f" {shown:>9} | {c['right'] / max(1, c['docs']):14.3f}")
        result["straight_through"][part] = {"docs": c["docs"], "accepted": c["accepted"],
                                            "share": share, "precision": precision,
                                            "all_right_any": c["right"],
                                            "held_back": dict(held_back[part])}
    out("Reviewed although every key field is right, by the fields the review names (and the"
        " documents held back by one field alone):")
    for part in PARTS:
        shown = ", ".join(f"{k} {n}" for k, n in sorted(held_back[part].items(),
                                                         key=lambda kv: (-kv[1], kv[0])))
        out(f"{part:<10} {shown or '-'}")


def _print_document_types(kinds, result, out):
    out()
    out("Document type (truth -> read), text layer")
    for part in PARTS:
        c = Counter({k: n for k, n in kinds[part].items() if k[0] is not None})
        said = sum(n for (_t, got), n in c.items() if got == CREDIT_NOTE)
        right = c[(CREDIT_NOTE, CREDIT_NOTE)]
        truly = sum(n for (t, _g), n in c.items() if t == CREDIT_NOTE)
        accuracy = sum(n for (t, g), n in c.items() if t == g) / max(1, sum(c.values()))
        precision = right / said if said else None
        out(f"{part:<10} {sum(c.values())} documents, accuracy {accuracy:.3f}; credit notes: {truly} in the truth, {said} read"
            f" as one, {right} of them right (precision "
            f"{'-' if precision is None else f'{precision:.3f}'}); invoices read as invoices "
            f"{c[(INVOICE, INVOICE)]}")
        result["document_type"][part] = {"accuracy": accuracy, "credit_notes": truly,
                                         "read_as_credit_note": said, "right": right,
                                         "precision": precision}


# ---------------------------------------------------------------------------- split by repository
def repository_splits(exs) -> dict[str, list[tuple[str, ...]]]:
    """Coarser splits than one source at a time: the ``outside/`` repositories in two halves
    (every other one, in name order), each half held out while the model learns from the other
    and the rest of the corpus; and all of ``outside/`` held out at once."""
    outside = sorted({ex.doc.source for ex in exs if ex.doc.part == "outside"})
    return {"halves by repository": [tuple(outside[0::2]), tuple(outside[1::2])],
            "all of outside/ held out": [tuple(outside)]}


def split_report(exs, loso_probs, split_probs: dict[str, dict], out=print) -> dict:
    """Key-field F1 on ``outside/`` of each split, next to leave-one-source-out's: a model that
    learns the sources it is shown does much better on them than on repositories held out
    together. Confidence as in leave-one-source-out, fitted without the held-out sources."""
    pairs = T.calibration_pairs(exs, loso_probs)
    runs = {"leave one source out": (loso_probs, None)}
    runs.update({name: (probs, held) for name, (probs, held) in split_probs.items()})
    table = {}
    for name, (probs, held) in runs.items():
        score = PRF()
        fitted = {}
        for ex in exs:
            if ex.doc.part != "outside" or ex.doc.key not in probs:
                continue
            hidden = next((h for h in held if ex.doc.source in h), (ex.doc.source,)) \
                if held else (ex.doc.source,)
            if hidden not in fitted:
                fitted[hidden] = T.fit_confidence(
                    {f: [o for o in got if o.source not in hidden] for f, got in pairs.items()})
            cals, thresholds = fitted[hidden]
            document = document_of_pages(
                ex.doc.pages, ranker=FoldRanker(probs[ex.doc.key], cals, thresholds))
            values = _values(document)
            for f in KEY_FIELDS:
                score.add(f, norm(f, ex.doc.truth.get(f)), values[f])
        table[name] = {f: score.f1(f)[2] for f in KEY_FIELDS}
    out()
    out("outside/ key-field F1 by split (leave one source out against repositories held out"
        " together)")
    out(f"{'split':<26} " + " ".join(f"{f[:9]:>9}" for f in KEY_FIELDS) + f" {'min':>6}")
    for name, f1s in table.items():
        out(f"{name:<26} " + " ".join(f"{f1s[f]:9.3f}" for f in KEY_FIELDS)
            + f" {min(f1s.values()):6.3f}")
    return table
