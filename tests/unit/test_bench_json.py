"""The benchmark run's --json: the names a check outside the suite reads, without running it."""
from __future__ import annotations

import json

import pytest

from bench.binding import BINDING, figure, write_json

# As the speed issue names them; renaming one breaks the check that reads the file.
NAMES = ("engine.ratio_c1", "engine.ratio_c4", "engine.fetch_ratio",
         "miss.overhead_ms.embedded", "miss.overhead_ms.pg_s3",
         "backfill.ratio.embedded", "backfill.ratio.pg_s3",
         "backfill.model_calls_per_unique_file", "history.claim_ratio", "history.hit_ratio",
         "load.before", "load.after")


def results() -> dict:
    """The shape the benchmarks return (only the parts the binding names go through)."""
    return {
        "engine": {"ratio_c1": 0.8, "ratio_c4": 0.6, "fetch_ratio": 1.9,
                   "c1": {"jobs_per_second": 200.0}},
        "miss": {"embedded": {"overhead_ms": 90.0}, "production": {"overhead_ms": 80.0},
                 "overhead_ms": {"embedded": 90.0, "pg_s3": 80.0}},
        "backfill": {"ratio": {"embedded": 0.95, "pg_s3": 0.91},
                     "model_calls_per_unique_file": 1.0},
        "history": {"claim_ratio": 1.04, "hit_ratio": 1.1, "idle_claim_ratio": 1.0,
                    "full": {"claim": {"median_ms": 2.6}}, "empty": {"claim": {"median_ms": 2.5}}},
        "load": {"before": 1.5, "after": 3.25, "before_line": "load average 1.50"},
    }


def test_the_binding_names_are_the_issues():
    assert BINDING == NAMES


def test_every_binding_name_resolves_to_a_number_in_the_nested_file(tmp_path):
    out = tmp_path / "speed.json"
    write_json(out, results())
    written = json.loads(out.read_text())
    for name in NAMES:
        value = figure(written, name)
        assert isinstance(value, (int, float)) and not isinstance(value, bool), name
    assert written["engine"]["ratio_c1"] == 0.8
    # ... and under its dotted name at the top, for a reader that does not walk the nesting.
    assert {name: written[name] for name in NAMES} == {
        name: figure(written, name) for name in NAMES}
    assert written["miss"]["overhead_ms"]["pg_s3"] == 80.0
    assert written["load"]["after"] == 3.25


def test_a_renamed_figure_fails_before_anything_is_written(tmp_path):
    renamed = results()
    renamed["engine"]["ratio_concurrency_1"] = renamed["engine"].pop("ratio_c1")
    out = tmp_path / "speed.json"
    with pytest.raises(KeyError):
        write_json(out, renamed)
    assert not out.exists()


def test_a_figure_that_is_not_a_number_is_refused(tmp_path):
    wrong = results()
    wrong["load"]["before"] = "load average 1.50, 1.20, 1.00 before"
    with pytest.raises(TypeError, match="load.before"):
        write_json(tmp_path / "speed.json", wrong)


def test_only_the_benchmarks_that_ran_are_required(tmp_path):
    partial = {k: v for k, v in results().items() if k in ("miss", "load")}
    write_json(tmp_path / "speed.json", partial)
    assert figure(json.loads((tmp_path / "speed.json").read_text()),
                  "miss.overhead_ms.embedded") == 90.0
