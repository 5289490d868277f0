"""A short, bounded pass of the extraction fuzz target, and a replay of every crash it found.

The long run is `fuzz/extract_fuzz.py` (docs/security.md, "Fuzzing"); this keeps CI honest in
seconds: the target still builds and runs, and no input that ever crashed extraction crashes it
again.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.fuzz.expect import prepared_or_refused, read_or_refused

TARGET = REPO / "fuzz" / "extract_fuzz.py"
REGRESSIONS = Path(__file__).parent / "regressions"
SEED = 859017520  # the pass that found crash-e28b45b0…; any fixed value keeps runs alike


def _regressions() -> list[Path]:
    return sorted(p for p in REGRESSIONS.iterdir() if p.is_file() and not p.name.startswith("."))


@pytest.mark.parametrize("crash", _regressions(), ids=lambda p: p.name)
def test_an_input_that_once_crashed_extraction_is_now_refused_or_read(crash: Path, tmp_path):
    path = tmp_path / "input.pdf"
    path.write_bytes(crash.read_bytes())
    read_or_refused(path)


@pytest.mark.parametrize("crash", _regressions(), ids=lambda p: p.name)
def test_an_input_that_once_crashed_extraction_is_prepared_for_a_provider_or_refused(
        crash: Path, tmp_path):
    path = tmp_path / "input.pdf"
    path.write_bytes(crash.read_bytes())
    prepared_or_refused(path)


@pytest.mark.slow
def test_a_bounded_fuzzing_pass_finds_no_crash(tmp_path):
    pytest.importorskip("atheris")
    seeds = tmp_path / "seeds"
    subprocess.run([sys.executable, str(TARGET), "--seed", str(seeds)], check=True,
                   capture_output=True)
    assert any(seeds.glob("sample-*.pdf"))  # generated seeds, with or without the corpus
    work = tmp_path / "work"
    work.mkdir()
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    # Bounded by time and runs both; a timeout equal to the sandbox's default wall limit. A fixed
    # seed: the pass replays the same mutations until the code changes, so a red run here is
    # the change's, and reproducible; new ground is the long run's (docs/security.md).
    proc = subprocess.run(
        [sys.executable, str(TARGET), f"-seed={SEED}", "-max_total_time=20", "-runs=2000",
         "-timeout=60",
         "-rss_limit_mb=2048", "-report_slow_units=60", "-print_final_stats=1",
         f"-artifact_prefix={artifacts}/",
         str(work), str(seeds)],
        capture_output=True, text=True, timeout=240)
    # crash-, timeout-, oom-, leak-: a slow-unit (a busy CI machine) is no failure.
    found = sorted(p.name for p in artifacts.iterdir() if not p.name.startswith("slow-unit-"))
    assert proc.returncode == 0 and not found, (
        f"the fuzzer found {found} (exit {proc.returncode}); copy each to "
        f"tests/fuzz/regressions/ so it is replayed from now on.\n{proc.stderr[-4000:]}")
    assert "Done" in proc.stderr or "stat::number_of_executed_units" in proc.stderr
