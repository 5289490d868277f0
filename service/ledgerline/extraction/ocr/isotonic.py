"""The isotonic map OCR'd values are calibrated with (``calibration.py``): a monotone map from
an uncalibrated confidence to the share of values that were right.

Fitted by isotonic regression (pool-adjacent-violators) on out-of-source predictions — every
value was predicted by a model that had not seen the source of its document — and read as a
lower bound, so that 0.9 means "at least nine in ten values this sure were right on invoices of
sources the model never saw". The outcomes weigh by their source (a source of a hundred
near-identical renderings must not make every value look easy). Stored as breakpoints; applied
by step lookup. Small enough to write by hand: scikit-learn, which has it, would be a dependency
of a hundred megabytes for these twenty lines.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

MIN_POINTS = 20  # fewer outcomes than this: no map, the raw probability stands (shrunk)
UNFITTED_SHRINK = 0.8
# Each block's confidence is the lower end of the one-sided 99 % Wilson interval of its share
# right, not the share itself: a block of five right answers says 0.48, a hundred say 0.95, so
# that "0.9 or more" is said only where many outcomes back it.
WILSON_Z = 2.33


@dataclass(frozen=True)
class Calibration:
    xs: tuple[float, ...]  # upper ends of the blocks' raw probabilities, ascending
    ys: tuple[float, ...]  # the calibrated confidence of each block, non-decreasing

    def __call__(self, p: float) -> float:
        if not self.xs:
            return p * UNFITTED_SHRINK
        k = bisect.bisect_left(self.xs, p)
        return self.ys[min(k, len(self.ys) - 1)]

    def to_json(self) -> dict:
        return {"xs": list(self.xs), "ys": list(self.ys)}

    @classmethod
    def from_json(cls, data: dict) -> Calibration:
        return cls(tuple(data["xs"]), tuple(data["ys"]))


def fit(raw: list[float], correct: list[bool], weights: list[float] | None = None) -> Calibration:
    """Isotonic regression of correctness on raw probability (pool adjacent violators), each
    outcome weighing ``weights[k]`` (1 by default), read conservatively (:data:`WILSON_Z`)."""
    if len(raw) < MIN_POINTS:
        return Calibration((), ())
    weights = weights or [1.0] * len(raw)
    # the weights scaled to sum to the effective number of outcomes (Kish), which the
    # Wilson bound takes as its n
    total, squares = sum(weights), sum(w * w for w in weights)
    weights = [w * total / squares for w in weights]
    triples = sorted(zip(raw, correct, weights, strict=True))
    # blocks: [weight right, weight, largest raw probability]
    blocks: list[list[float]] = []
    for p, ok, w in triples:
        if blocks and blocks[-1][2] == p:  # ties pool at once: one raw value, one confidence
            blocks[-1][0] += w * float(ok)
            blocks[-1][1] += w
        else:
            blocks.append([w * float(ok), w, p])
        while len(blocks) > 1 and _share(blocks[-2]) >= _share(blocks[-1]):
            top = blocks.pop()
            blocks[-1][0] += top[0]
            blocks[-1][1] += top[1]
            blocks[-1][2] = top[2]
    xs, ys, floor = [], [], 0.0
    for right, n, upper in blocks:
        floor = max(floor, wilson_lower(right, n))
        xs.append(upper)
        ys.append(round(floor, 4))
    return Calibration(tuple(xs), tuple(ys))


def wilson_lower(right: float, n: float, z: float = WILSON_Z) -> float:
    """The lower end of the Wilson score interval of right / n."""
    if n <= 0:
        return 0.0
    p = right / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - spread) / (1 + z * z / n))


def _share(block: list[float]) -> float:
    return block[0] / block[1]
