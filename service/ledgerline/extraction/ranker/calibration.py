"""Calibrated confidence: a monotone map from the ranker's raw probability to the share of
values that were right.

Fitted by isotonic regression (pool-adjacent-violators) on out-of-source predictions — every
value was predicted by a model that had not seen the source of its document — so that 0.9 means
"nine in ten values this sure were right on invoices of sources the model never saw". Stored as
breakpoints; applied by step lookup. Small enough to write by hand: scikit-learn, which has it,
would be a dependency of a hundred megabytes for fifteen lines.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

MIN_POINTS = 20  # fewer outcomes than this: no map, the raw probability stands (shrunk)
UNFITTED_SHRINK = 0.8
# Each block's share right is read with one right and one wrong pseudo-outcome added (Laplace):
# a block of five right answers says 0.86, not certainty; thirty say 0.97.
PSEUDO_RIGHT, PSEUDO_WRONG = 1.0, 1.0


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


def fit(raw: list[float], correct: list[bool]) -> Calibration:
    """Isotonic regression of correctness on raw probability (pool adjacent violators)."""
    if len(raw) < MIN_POINTS:
        return Calibration((), ())
    pairs = sorted(zip(raw, correct, strict=True))
    # blocks: [right answers, outcomes, largest raw probability]
    blocks: list[list[float]] = []
    for p, ok in pairs:
        blocks.append([float(ok), 1.0, p])
        while len(blocks) > 1 and _share(blocks[-2]) >= _share(blocks[-1]):
            top = blocks.pop()
            blocks[-1][0] += top[0]
            blocks[-1][1] += top[1]
            blocks[-1][2] = top[2]
    xs, ys, floor = [], [], 0.0
    for right, n, upper in blocks:
        floor = max(floor, (right + PSEUDO_RIGHT) / (n + PSEUDO_RIGHT + PSEUDO_WRONG))
        xs.append(upper)
        ys.append(round(floor, 4))
    return Calibration(tuple(xs), tuple(ys))


def _share(block: list[float]) -> float:
    return block[0] / block[1]
