"""A candidate value for a field, with where it was read and how sure we are."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass


@dataclass
class Cand:
    field: str
    value: object
    score: float
    raw: str | None
    page: int | None
    bbox: list | None
    line: int | None = None
    derived: bool = False

    def out_value(self):
        v = self.value
        if isinstance(v, _dt.date):
            return v.isoformat()
        return v
