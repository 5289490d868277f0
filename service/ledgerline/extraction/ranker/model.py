"""The committed ranker: one LightGBM model per field, a calibrator and an acceptance threshold
per field.

The model file (``model.json.gz`` beside this module) holds, per ranked field, the booster as
LightGBM's own text format; per ranked field and the currency, the calibrator that turns a
value's evidence into its confidence and the confidence a value must reach for its document to
be taken without review (:mod:`.confidence`); and the feature and evidence names it was trained
on (a file trained on others refuses to load). :func:`load` reads it once per process.
:meth:`Ranker.decide` turns a document's feature rows into one pick per field.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..document import AMOUNT_FIELDS, DATE_FIELDS
from ..finders.parties import PARTY_LABEL
from ..versions import RANKER_FORMAT, RANKER_MODEL, file_digest
from .confidence import EVIDENCE, Calibrator, evidence
from .features import FEATURE_INDEX, FEATURE_NAMES, Row
from .issuer import issuer_evidence, name_core
from .joint import CASH_ROUNDING, Pick, adds_up, choose_field, choose_totals, distribution
from .rates import rate_agreement
from .rows import RANKED_FIELDS, DocumentRows
from .stated import same_place, unstated, withheld_note

MODEL_PATH, FORMAT = RANKER_MODEL, RANKER_FORMAT  # named with the cache key's versions
# An amount due the page does not print, taken to be the gross total (or a gross total taken to
# be the amount due), is at most this sure.
DERIVED_CEILING = 0.6
# A seller name the page speaks against (the addressee's side, a label or a sentence, another
# name holding the issuer's own lines) is at most this sure: below every acceptance threshold
# the seller name has had, so that a person looks. Out of source, the wrong seller names taken
# without review were of this kind, and with few of them left in the other sources, the
# threshold fitted without them let them through.
DISPUTED_CEILING = 0.5


class ModelFileError(RuntimeError):
    pass


@dataclass
class FieldPick:
    value: object
    probability: float  # raw: the ranker's, joint for the totals
    confidence: float  # calibrated from the evidence
    row: Row | None  # where it is printed (None: derived or not found)
    derived: bool = False
    evidence: tuple = ()  # confidence.EVIDENCE of the value
    # a value found but not given, the page not stating it (:mod:`.stated`): its review note
    withheld: str = ""
    found: object = None  # the value withheld


class Ranker:
    def __init__(self, boosters: dict, calibrators: dict[str, Calibrator], thresholds: dict,
                 meta: dict):
        self.boosters = boosters  # field -> lightgbm.Booster, or None (no training data)
        self.calibrators = calibrators  # field -> Calibrator (the ranked fields and currency)
        # field -> the confidence a value must reach for its document to be taken without review
        self.thresholds = thresholds
        self.meta = meta

    def probabilities(self, doc: DocumentRows) -> dict[str, np.ndarray]:
        out = {}
        for f in RANKED_FIELDS:
            x = doc.matrices[f]
            booster = self.boosters.get(f)
            if booster is None or not len(x):
                out[f] = np.zeros(len(x))
            else:
                out[f] = booster.predict(x, num_threads=1)
        return out

    def decide(self, doc: DocumentRows, probs: dict[str, np.ndarray] | None = None):
        """{field: FieldPick} for every ranked field and the currency."""
        probs = self.probabilities(doc) if probs is None else probs
        return decide(doc, probs, self.calibrators)


def _values(rows: list[Row], p: np.ndarray) -> tuple[dict, dict]:
    """Per value: the highest probability of any place it is printed, and that place."""
    best: dict = {}
    where: dict = {}
    for r, q in zip(rows, p, strict=True):
        if r.value is None:
            continue
        if q > best.get(r.value, -1.0):
            best[r.value] = float(q)
            where[r.value] = r
    return best, where


def decide(doc: DocumentRows, probs: dict, calibrators: dict) -> dict[str, FieldPick]:
    """One pick per ranked field and the currency, each with its confidence from its evidence
    (:mod:`.confidence`; ``calibrators`` empty: the raw probability)."""
    picks: dict[str, FieldPick] = {}
    values, where = {}, {}
    for f in RANKED_FIELDS:
        values[f], where[f] = _values(doc.rows[f], probs[f])
    totals = choose_totals(
        {f: values[f] for f in AMOUNT_FIELDS}, paid=doc.paid_words, balances=doc.earlier_balances,
        deducted=_over_a_deduction(doc), subtotals=_subtotals(doc), after=doc.after_allowances,
    )
    for f in RANKED_FIELDS:
        pick: Pick = totals[f] if f in AMOUNT_FIELDS else choose_field(values[f], f)
        row = None if pick.derived else where[f].get(pick.value)
        value = pick.value
        if f in PARTY_FIELDS and value is not None:
            value, row = _labelled_spelling(value, row, doc.rows[f], probs[f])
            if doc.declared_form:
                value = _without_form(str(value), doc.declared_form)
        picks[f] = FieldPick(value, pick.probability, pick.probability, row, pick.derived)
    due, issue = picks["due_date"], picks["issue_date"]
    if due.value is not None and due.value == issue.value and same_place(due.row, issue.row):
        picks["due_date"] = FieldPick(None, 0.0, 0.0, None)  # one date: the issue date
    due, gross = picks["amount_due"], picks["gross_total"]
    if not doc.paid_words:
        # nothing paid yet: the amount due is the gross total, and the other way round
        if due.value is None and gross.value is not None:
            picks["amount_due"] = FieldPick(gross.value, gross.probability, 0.0, None, True)
        elif gross.value is None and due.value is not None:
            picks["gross_total"] = FieldPick(due.value, due.probability, 0.0, None, True)
    for f, why in unstated(picks, doc.rows, doc.item_amounts).items():
        picks[f] = FieldPick(None, 0.0, 0.0, None, withheld=withheld_note(picks[f].value, why),
                             found=picks[f].value)
    picks["currency"] = _currency_pick(doc)
    for f, pick in picks.items():
        if pick.value is None:
            continue
        pick.evidence = _evidence(f, pick, picks, doc, values.get(f, {}))
        cal = calibrators.get(f)
        pick.confidence = cal(pick.evidence) if cal is not None else pick.probability
        if pick.derived and f in ("amount_due", "gross_total") and pick.row is None:
            pick.confidence = min(DERIVED_CEILING, pick.confidence)
        if f == SELLER and pick.evidence[EVIDENCE.index("against")] > 0:
            # scaled, not cut: a cut ties every disputed name at the ceiling, the wrong ones
            # with the right ones, where their evidence still tells them apart
            pick.confidence = round(DISPUTED_CEILING * pick.confidence, 4)
    return picks


# What a low confidence rests on, said in a review reason: the evidence (confidence.EVIDENCE)
# that is weak, strongest doubt first.
CLOSE_MARGIN = 0.2


def describe(field: str, pick: FieldPick) -> str:
    """The evidence of a pick in words: what speaks against it (or "")."""
    if not pick.evidence:
        return ""
    (_logit, margin, label, places, arithmetic, derived, ambiguous, _support, against,
     _rate) = pick.evidence
    doubts = []
    if against:
        doubts.append("the page speaks against it (the addressee's side, the buyer's name, "
                      "or a label rather than a name)")
    if ambiguous:
        doubts.append("its day and month could be read the other way round")
    if derived and field == CURRENCY:
        # evidence "derived" of a currency: named by a word only (no place), or a '$' sign
        # resolved by the country the page names (:func:`_evidence`)
        doubts.append("named by a word only, not printed as a code" if pick.derived else
                      "no code is printed: read from a '$' sign and the country the page names")
    elif derived:
        doubts.append("computed from the other totals, not printed" if pick.row is None
                      else "not printed where it can be shown")
    if arithmetic < 0:
        doubts.append(_DISAGREES[field])
    if not label:
        doubts.append("no label names it")
    if margin < CLOSE_MARGIN:
        doubts.append(f"another value is nearly as likely (margin {margin:.2f})")
    if places <= 1 and not derived:
        doubts.append("printed once")
    return ", ".join(doubts)


# What a value contradicts, per field (:func:`_arithmetic` says which ones it checks).
_DISAGREES = {
    "net_total": "net + tax does not make the gross total",
    "tax_total": "net + tax does not make the gross total",
    "gross_total": "net + tax does not make the gross total",
    "amount_due": "the amount due is more than the gross total",
    "issue_date": "the due date comes before it",
    "due_date": "it comes before the issue date",
}


def _over_a_deduction(doc: DocumentRows) -> frozenset:
    """Net totals printed over a deduction in their column of totals."""
    k = FEATURE_INDEX["col_deduction_below"]
    return frozenset(r.value for r in doc.rows["net_total"] if r.x[k])


def _subtotals(doc: DocumentRows) -> frozenset:
    """Gross-total candidates printed, wherever they are printed, over a deduction and a figure
    under it in their column of totals ("Gross Total", "Commission", "Net Total"; "Subtotal",
    "Discount", "Total"): the invoice's total is the figure after the deduction. Positive figures
    only: on a page that prints every total negative, a negative figure deducts nothing."""
    below, amounts = FEATURE_INDEX["col_deduction_below"], FEATURE_INDEX["col_amounts_below"]
    places: dict = {}
    for r in doc.rows["gross_total"]:
        printed = r.cands[0].value
        over = bool(r.x[below]) and r.x[amounts] >= 2 and isinstance(printed, Decimal) \
            and printed > 0
        places[r.value] = places.get(r.value, True) and over
    return frozenset(v for v, over in places.items() if over)


CURRENCY = "currency"
CONFIDENCE_FIELDS = (*RANKED_FIELDS, CURRENCY)  # the fields whose confidence is calibrated here


def _currency_pick(doc: DocumentRows) -> FieldPick:
    """The rules' currency, its probability the rules' score."""
    c = doc.rules.fields.get(CURRENCY)
    if c is None:
        return FieldPick(None, 0.0, 0.0, None)
    return FieldPick(c.value, c.score, c.score, None, derived=c.page is None)


def _evidence(f: str, pick: FieldPick, picks: dict, doc: DocumentRows, values: dict) -> tuple:
    """What the page says about a pick besides its probability (:data:`confidence.EVIDENCE`)."""
    if f == CURRENCY:
        votes = doc.currency_votes
        total = sum(votes.values()) or 1
        ranked = sorted(votes.values(), reverse=True) + [0, 0]
        chosen = doc.rules.fields[CURRENCY]
        inferred = pick.derived or chosen.evidence.kind == "context_symbol"  # '$' by country
        return evidence(pick.probability, (ranked[0] - ranked[1]) / total,
                        1.0 if chosen.evidence.kind == "label" else 0.0,
                        votes.get(pick.value, 0), 0.0, inferred)
    shares = distribution(values)
    ranked = sorted((q for v, q in shares.items() if v is not None), reverse=True) + [0.0, 0.0]
    row = pick.row
    label = max((c.evidence.label_weight or 0.0 for c in (row.cands if row else ())
                 if c.evidence.kind == "label"), default=0.0)
    if f in PARTY_FIELDS and row is not None and any(c.evidence.kind == PARTY_LABEL
                                                     for c in row.cands):
        label = max(label, 1.0)
    places = sum(1 for r in doc.rows[f] if r.value == pick.value)
    ambiguous = f in DATE_FIELDS and not doc.date_order_settled and row is not None and any(
        _either_way(c.raw) for c in row.cands)
    support = against = 0.0
    if f == SELLER:
        buyer = picks.get("buyer_name")
        support, against = issuer_evidence(pick.value, doc.rows[f],
                                           None if buyer is None else buyer.value)
    rate = 0.0
    if f in TOTALS:
        net, tax = picks.get("net_total"), picks.get("tax_total")
        rate = rate_agreement(None if net is None else net.value,
                              None if tax is None else tax.value, doc.vat_rates)
    return evidence(pick.probability, ranked[0] - ranked[1], label, places,
                    _arithmetic(f, picks), pick.derived, ambiguous, support, against, rate)


# The totals that add up (net + VAT = gross), and whose confidence the VAT rate speaks for: the
# net and VAT it relates, and the gross total they make.
TOTALS = ("net_total", "tax_total", "gross_total")


_DAY_MONTH = re.compile(r"(?<!\d)(\d{1,2})[./-](\d{1,2})[./-]\d{2,4}(?!\d)")


def _either_way(raw: str | None) -> bool:
    """Can the printed date be read with its day and month the other way round ("02/03/2021")?"""
    m = _DAY_MONTH.search(raw or "")
    return bool(m) and m.group(1) != m.group(2) and int(m.group(1)) <= 12 \
        and int(m.group(2)) <= 12


def _arithmetic(f: str, picks: dict) -> float:
    """+1 where the value agrees with the other totals or dates, -1 where it contradicts them,
    0 where they cannot tell (a total missing or computed from the others). A net, VAT and gross
    total that add up agree only as far as the other two are sure: a subtotal, its discount and
    the figure after it add up as well, and then the ranker doubts at least one of them."""
    def printed(name):
        p = picks.get(name)
        return None if p is None or p.value is None or p.derived else p.value

    if f in TOTALS:
        n, t, g = printed("net_total"), printed("tax_total"), printed("gross_total")
        if n is None or t is None or g is None:
            return 0.0
        if not adds_up(abs(n), abs(t), abs(g)):
            return -1.0
        return min(picks[o].probability for o in TOTALS if o != f)
    if f == "amount_due":
        d, g = printed("amount_due"), printed("gross_total")
        if d is None or g is None:
            return 0.0
        return 1.0 if d == g else (-1.0 if abs(d) > abs(g) + CASH_ROUNDING else 0.0)
    if f in ("issue_date", "due_date"):
        i, d = printed("issue_date"), printed("due_date")
        if i is None or d is None or isinstance(i, str) or isinstance(d, str):
            return 0.0
        return 1.0 if d >= i else -1.0
    return 0.0


SELLER = "seller_name"
PARTY_FIELDS = (SELLER, "buyer_name")


def _labelled(row: Row) -> bool:
    """Does a place of the row's value stand in a labelled party block?"""
    return any(c.evidence.kind == PARTY_LABEL for c in row.cands)


def _labelled_spelling(value, row: Row | None, rows: list[Row], p: np.ndarray):
    """The spelling of a chosen name that the party's labelled block prints. A company's name
    appears in several places (letterhead, footer, register details, the block under "Seller"),
    with or without its legal form, in capitals or not; the ranker says which name is the
    party's, and the labelled block is where the invoice states the party, so among the
    spellings of that name it is the one given."""
    if row is None or _labelled(row):
        return value, row
    core = name_core(value)
    spellings = [(q, r) for r, q in zip(rows, p, strict=True)
                 if r.value is not None and r.value != value and _labelled(r)
                 and name_core(r.value) == core]
    if not core or not spellings:
        return value, row
    _q, best = max(spellings, key=lambda s: s[0])
    return best.value, best


def _without_form(name: str, form: str) -> str:
    """The name without the legal form its French mention states apart ("Au bon moulin SARL",
    "SARL au capital de …": the dénomination is "Au bon moulin")."""
    stripped = re.sub(rf"[\s,]+{re.escape(form)}\.?$", "", name, flags=re.IGNORECASE)
    return stripped if len(stripped) >= 2 else name


# ---------------------------------------------------------------------------- the file
def dump(path: Path, boosters: dict, calibrators: dict, thresholds: dict, meta: dict) -> None:
    data = {
        "format": FORMAT,
        "features": list(FEATURE_NAMES),
        "evidence": list(EVIDENCE),
        "meta": meta,
        "fields": {
            f: {
                "booster": None if boosters.get(f) is None else boosters[f].model_to_string(),
                "calibrator": calibrators[f].to_json(),
                "accept_threshold": thresholds[f],
            }
            for f in CONFIDENCE_FIELDS
        },
    }
    blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")
    # mtime=0: the same model gives the same bytes
    path.write_bytes(gzip.compress(blob, compresslevel=9, mtime=0))


def read(path: Path) -> Ranker:
    import lightgbm

    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"cannot read the ranker model {path.name}: {exc}") from exc
    if (
        data.get("format") != FORMAT
        or data.get("features") != list(FEATURE_NAMES)
        or data.get("evidence") != list(EVIDENCE)
    ):
        raise ModelFileError(
            f"the ranker model {path.name} was trained on other features; "
            "rebuild it with `ledgerline-train`"
        )
    boosters, calibrators, thresholds = {}, {}, {}
    for f, entry in data["fields"].items():
        text = entry["booster"]
        boosters[f] = None if text is None else lightgbm.Booster(model_str=text)
        calibrators[f] = Calibrator.from_json(entry["calibrator"])
        thresholds[f] = entry["accept_threshold"]
    return Ranker(boosters, calibrators, thresholds, data.get("meta", {}))


@lru_cache(maxsize=1)
def load() -> Ranker:
    """The committed model, read once per process."""
    return read(MODEL_PATH)


def model_digest(path: Path = MODEL_PATH) -> str:
    """SHA-256 of the model file: part of the configuration digest of the cache key."""
    return file_digest(path)
