"""The committed ranker: one LightGBM model per field, and a calibration map per field.

The model file (``model.json.gz`` beside this module) holds, per ranked field, the booster as
LightGBM's own text format and the calibration breakpoints, plus the feature names it was
trained on (a file trained on other features refuses to load). :func:`load` reads it once per
process. :meth:`Ranker.decide` turns a document's feature rows into one pick per field.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..document import AMOUNT_FIELDS
from ..finders.parties import PARTY_LABEL
from ..text import fold
from ..versions import RANKER_FORMAT, RANKER_MODEL, file_digest
from ..vocabulary import VOCABULARY as V
from .calibration import Calibration
from .features import FEATURE_NAMES, Row
from .joint import Pick, choose_field, choose_totals
from .rows import RANKED_FIELDS, DocumentRows

MODEL_PATH, FORMAT = RANKER_MODEL, RANKER_FORMAT  # named with the cache key's versions
# An amount due the page does not print, taken to be the gross total (or a gross total taken to
# be the amount due), is at most this sure.
DERIVED_CEILING = 0.6


class ModelFileError(RuntimeError):
    pass


@dataclass
class FieldPick:
    value: object
    probability: float  # raw: the ranker's, joint for the totals
    confidence: float  # calibrated
    row: Row | None  # where it is printed (None: derived or not found)
    derived: bool = False


class Ranker:
    def __init__(self, boosters: dict, calibrations: dict[str, Calibration], meta: dict):
        self.boosters = boosters  # field -> lightgbm.Booster, or None (no training data)
        self.calibrations = calibrations
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
        """{field: FieldPick} for every ranked field."""
        probs = self.probabilities(doc) if probs is None else probs
        return decide(doc, probs, self.calibrations)


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


def decide(doc: DocumentRows, probs: dict, calibrations: dict) -> dict[str, FieldPick]:
    picks: dict[str, FieldPick] = {}
    values, where = {}, {}
    for f in RANKED_FIELDS:
        values[f], where[f] = _values(doc.rows[f], probs[f])
    totals = choose_totals(
        {f: values[f] for f in AMOUNT_FIELDS}, paid=doc.paid_words, balances=doc.earlier_balances
    )
    for f in RANKED_FIELDS:
        pick: Pick = totals[f] if f in AMOUNT_FIELDS else choose_field(values[f], f)
        cal = calibrations.get(f)
        conf = cal(pick.probability) if cal is not None else pick.probability
        row = None if pick.derived else where[f].get(pick.value)
        value = pick.value
        if f in PARTY_FIELDS and value is not None:
            value, row = _labelled_spelling(value, row, doc.rows[f], probs[f])
            if doc.declared_form:
                value = _without_form(str(value), doc.declared_form)
        picks[f] = FieldPick(value, pick.probability, conf, row, pick.derived)
    due, issue = picks["due_date"], picks["issue_date"]
    if due.value is not None and due.value == issue.value and _same_place(due.row, issue.row):
        picks["due_date"] = FieldPick(None, 0.0, 0.0, None)  # one date: the issue date
    due, gross = picks["amount_due"], picks["gross_total"]
    if not doc.paid_words:
        # nothing paid yet: the amount due is the gross total, and the other way round
        if due.value is None and gross.value is not None:
            conf = min(DERIVED_CEILING, gross.confidence)
            picks["amount_due"] = FieldPick(gross.value, gross.probability, conf, None, True)
        elif gross.value is None and due.value is not None:
            conf = min(DERIVED_CEILING, due.confidence)
            picks["gross_total"] = FieldPick(due.value, due.probability, conf, None, True)
    return picks


PARTY_FIELDS = ("seller_name", "buyer_name")


def _same_place(a: Row | None, b: Row | None) -> bool:
    """Are two fields' rows the same printed value (one date read for two fields)?"""
    if a is None or b is None:
        return False
    places = {(c.line, tuple(c.bbox or ())) for c in a.cands}
    return any((c.line, tuple(c.bbox or ())) in places for c in b.cands)


def _name_core(name) -> str:
    """A name as spellings of it share it: folded, without legal forms and punctuation."""
    return re.sub(r"[\W_]+", "", V.legal_form.sub("", fold(str(name))))


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
    core = _name_core(value)
    spellings = [(q, r) for r, q in zip(rows, p, strict=True)
                 if r.value is not None and r.value != value and _labelled(r)
                 and _name_core(r.value) == core]
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
def dump(path: Path, boosters: dict, calibrations: dict, meta: dict) -> None:
    data = {
        "format": FORMAT,
        "features": list(FEATURE_NAMES),
        "meta": meta,
        "fields": {
            f: {
                "booster": None if b is None else b.model_to_string(),
                "calibration": calibrations[f].to_json(),
            }
            for f, b in boosters.items()
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
    if data.get("format") != FORMAT or data.get("features") != list(FEATURE_NAMES):
        raise ModelFileError(
            f"the ranker model {path.name} was trained on other features; "
            "rebuild it with `ledgerline-train`"
        )
    boosters, calibrations = {}, {}
    for f, entry in data["fields"].items():
        text = entry["booster"]
        boosters[f] = None if text is None else lightgbm.Booster(model_str=text)
        calibrations[f] = Calibration.from_json(entry["calibration"])
    return Ranker(boosters, calibrations, data.get("meta", {}))


@lru_cache(maxsize=1)
def load() -> Ranker:
    """The committed model, read once per process."""
    return read(MODEL_PATH)


def model_digest(path: Path = MODEL_PATH) -> str:
    """SHA-256 of the model file: part of the configuration digest of the cache key."""
    return file_digest(path)
