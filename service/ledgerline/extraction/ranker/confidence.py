"""A value's confidence from its evidence, calibrated on sources the model had not seen.

The ranker's probability says how much a value looks like the field's; whether it is right also
shows in what else the page says about it: how far it is ahead of the runner-up value, whether
a label names it, how many places print it, whether the totals it belongs to add up (net + tax =
gross, the amount due the gross) or the dates follow each other, whether its VAT is its net at a
rate the page prints (:mod:`.rates`), whether it was computed rather than read, whether a date
could be read with its day and month the other way round, and for the seller name what the
issuer's own lines and the addressee's side say of it (:mod:`.issuer`).
:func:`evidence` turns a pick into these numbers (:data:`EVIDENCE`), and a :class:`Calibrator`
per field maps them to a confidence: Platt scaling on the evidence, i.e. a logistic regression
of correctness on it, fitted on out-of-source predictions (every value predicted by a model that
had not seen its document's source), the outcomes weighing one over the square root of their
source's size; each piece of evidence may move the confidence only its own way (:data:`SIGNS`),
and a ranked field with too few wrong values to fit its own calibrator is given the one fitted
on every ranked field's outcomes (``ledgerline_tools.ranker.train``), never the bare
probability. Two values of one field thus get different confidences when their evidence
differs, and a confidence of 0.9 is what values with such evidence were right on invoices of
sources the model never saw.

:func:`accept_threshold` chooses, per field, the confidence above which no out-of-source value
was wrong: the threshold a document's field must clear to be taken without review
(:mod:`..review`). It is chosen on the documents whose truth was written from the printed page:
an e-invoice's truth is its XML's and a template's expected output names parties as the template
does (a marketplace for the page's issuer, a seller name with its GLN and supplier-number lines),
so there a value the page prints as the issuer's may count as wrong, and one such value, as sure
as every right one, left the seller name no threshold at all. Deterministic: Newton's method from zero, fixed iterations. (scikit-learn
has both, for a dependency of a hundred megabytes; these are forty lines.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

EVIDENCE = ("logit_p", "margin", "label", "places", "arithmetic", "derived", "ambiguous",
            "support", "against", "rate")
LOGIT_CLIP = 8.0
MAX_PLACES = 3
L2 = 1.0  # ridge penalty on the standardised evidence (not on the intercept)
NEWTON_STEPS = 25
MIN_OUTCOMES = 20  # fewer, or no wrong value among them: the probability itself, shrunk
# ... and fewer wrong values than this: one or two wrong values are separated from the right ones
# by almost any line, and the fit then maps nearly every value near 1 (a gross total the ranker
# gave 0.74 came out 0.992, wrong, with one other wrong gross total to learn from)
MIN_WRONG = 3
UNFITTED_SHRINK = 0.8
NEVER = 1.01  # a threshold no confidence reaches: the field always asks for review
MIN_ACCEPTED = 5  # a threshold must let at least this much weight of values through


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return max(-LOGIT_CLIP, min(LOGIT_CLIP, math.log(p / (1 - p))))


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True)
class Calibrator:
    """Evidence -> confidence for one field (no coefficients: the probability, shrunk)."""

    coef: tuple[float, ...] = ()  # per EVIDENCE name, on standardised evidence
    intercept: float = 0.0
    mean: tuple[float, ...] = ()
    scale: tuple[float, ...] = ()

    def __call__(self, x) -> float:
        if not self.coef:
            return round(UNFITTED_SHRINK * _sigmoid(x[0]), 4)
        z = self.intercept + sum(
            c * (v - m) / s for c, v, m, s in zip(self.coef, x, self.mean, self.scale, strict=True)
        )
        return round(_sigmoid(z), 4)

    def to_json(self) -> dict:
        return {"coef": list(self.coef), "intercept": self.intercept, "mean": list(self.mean),
                "scale": list(self.scale)}

    @classmethod
    def from_json(cls, data: dict) -> Calibrator:
        return cls(tuple(data["coef"]), data["intercept"], tuple(data["mean"]),
                   tuple(data["scale"]))


# Which way each piece of evidence may move a confidence (+1 up, -1 down). A value printed in
# more places, further ahead of the runner-up, named by a label, or agreeing with the totals is
# never less likely right for it; a value computed, ambiguous or spoken against never more.
# Fitted freely on a field's few wrong values out of source, a coefficient can come out the
# other way (the currency: more printed signs, lower confidence, because three wrong '$'
# readings were printed often and a word-only reading was right twice), and then it ranks
# values by an accident of those few; such evidence is left out of the fit instead.
SIGNS = {"logit_p": 1, "margin": 1, "label": 1, "places": 1, "arithmetic": 1, "derived": -1,
         "ambiguous": -1, "support": 1, "against": -1, "rate": 1}


def fit(xs: list, correct: list[bool], weights: list[float],
        signs: tuple[int, ...] = ()) -> Calibrator:
    """The calibrator of one field from its out-of-source outcomes (evidence, right?, weight).
    ``signs``: per leading evidence column, the sign its coefficient must have (0: either); a
    column whose fitted coefficient has the other sign is left out (coefficient 0) and the rest
    fitted again, until every one agrees."""
    if len(xs) < MIN_OUTCOMES or sum(not ok for ok in correct) < MIN_WRONG \
            or not any(correct):
        return Calibrator()
    x = np.asarray(xs, dtype=float)
    y = np.asarray(correct, dtype=float)
    w = np.asarray(weights, dtype=float)
    mean = np.average(x, axis=0, weights=w)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=w))
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    want = np.zeros(z.shape[1])
    want[1:1 + len(signs)] = signs
    kept = np.ones(z.shape[1], dtype=bool)
    while True:
        beta = np.zeros(z.shape[1])
        beta[kept] = _newton(z[:, kept], y, w)
        wrong_way = kept & (want * beta < 0)
        if not wrong_way.any():
            break
        kept &= ~wrong_way
    return Calibrator(tuple(float(b) for b in beta[1:]), float(beta[0]),
                      tuple(float(m) for m in mean), tuple(float(s) for s in scale))


def _newton(z: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Ridge logistic regression (no penalty on the first column, the intercept)."""
    beta = np.zeros(z.shape[1])
    ridge = np.full(z.shape[1], L2)
    ridge[0] = 0.0
    for _ in range(NEWTON_STEPS):
        p = 1 / (1 + np.exp(-np.clip(z @ beta, -30, 30)))
        grad = z.T @ (w * (p - y)) + ridge * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(ridge + 1e-9)
        beta = beta - np.linalg.solve(hess, grad)
    return beta


def accept_threshold(confidences: list[float], correct: list[bool],
                     weights: list[float]) -> float:
    """The lowest confidence at and above which every out-of-source value was right (and at
    least :data:`MIN_ACCEPTED` of them), or :data:`NEVER`."""
    best = NEVER
    wrong_above = 0.0
    right_above = 0.0
    for conf, ok, w in sorted(zip(confidences, correct, weights, strict=True), reverse=True):
        if not ok:
            wrong_above += w
        else:
            right_above += w
        if wrong_above == 0 and right_above >= MIN_ACCEPTED:
            best = conf
    # a tie with a wrong value at the same confidence is not "above every wrong value"
    wrong = [c for c, ok in zip(confidences, correct, strict=True) if not ok]
    if wrong and best <= max(wrong):
        best = NEVER
    return round(best, 4)


def evidence(probability: float, margin: float, label: float, places: int, arithmetic: float,
             derived: bool, ambiguous: bool = False, support: float = 0.0,
             against: float = 0.0, rate: float = 0.0) -> tuple[float, ...]:
    """The evidence vector of a value, in :data:`EVIDENCE` order; ``support`` and ``against``:
    what the rest of the page says for and against a seller name (:mod:`.issuer`); ``rate``:
    whether the net and VAT totals agree with a VAT rate the page prints (:mod:`.rates`)."""
    return (logit(probability), margin, label, float(min(places, MAX_PLACES)), arithmetic,
            float(derived), float(ambiguous), support, against, rate)
