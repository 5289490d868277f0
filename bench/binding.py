"""The benchmark run's --json: every figure nested as the benchmarks return them, and the
figures a check outside the suite reads, by their dotted names: both nested ("engine.ratio_c1"
is {"engine": {"ratio_c1": ...}}) and as a top-level key of that very name, so that a reader
of either style finds the same number."""
from __future__ import annotations

import json
from pathlib import Path

BINDING = ("engine.ratio_c1", "engine.ratio_c4", "engine.fetch_ratio",
           "miss.overhead_ms.embedded", "miss.overhead_ms.pg_s3",
           "backfill.ratio.embedded", "backfill.ratio.pg_s3",
           "backfill.model_calls_per_unique_file", "history.claim_ratio", "history.hit_ratio",
           "load.before", "load.after")


def figure(results: dict, dotted: str):
    """The value at a dotted name in the nested results; KeyError when it is not there."""
    value = results
    for part in dotted.split("."):
        value = value[part]
    return value


def jsonable(value):
    """`value` with every key JSON can hold: (processes, concurrency) becomes "1x4"."""
    if isinstance(value, dict):
        return {("x".join(map(str, k)) if isinstance(k, tuple) else k): jsonable(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def write_json(path: Path, results: dict) -> None:
    """Each binding name of a benchmark that ran (and the load) must resolve to a number: a
    renamed figure fails here, before anything is written, not in the check."""
    for dotted in BINDING:
        if dotted.split(".")[0] in results:
            value = figure(results, dotted)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{dotted} is {value!r}, not a number")
    flat = {dotted: figure(results, dotted) for dotted in BINDING
            if dotted.split(".")[0] in results}
    path.write_text(json.dumps({**jsonable(results), **flat}, indent=2, default=str))
