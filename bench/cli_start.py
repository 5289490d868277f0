"""How fast the `ledgerline` command starts: `ledgerline --help`, and `ledgerline extract FILE`
up to the moment it reads the page (goals: 0.3 s and 1 s), next to the interpreter's own start
and to the command as it was before its heavy modules were imported where used (the sandbox's
fork server warming up the official rules and Tesseract's models before the first file).

The start of `extract` is the whole command's time less the time its sandboxed child takes to
read the page (imports, parsing, the ranker), measured on its own on the same file in the same
run; each figure is the median of several runs in fresh processes.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
GOAL_HELP_S, GOAL_EXTRACT_START_S = 0.3, 1.0
READING = r"""
import sys, time
from ledgerline.bootstrap import configured_extractor
from ledgerline.config import Settings
extractor = configured_extractor(Settings.from_env(), warm_up=False)
extractor.warm()  # the fork server started and a child forked: what remains is the reading
began = time.perf_counter()
extractor.extract(sys.argv[1], "blake3:" + "0" * 64)
print(time.perf_counter() - began)
"""
BEFORE = r"""
import json, sys
from ledgerline.bootstrap import configured_extractor
from ledgerline.config import Settings
extractor = configured_extractor(Settings.from_env(), warm_up=True)
print(json.dumps(extractor.extract(sys.argv[1], "blake3:" + "0" * 64))[:1])
"""


def _seconds(argv: list[str], env: dict) -> float:
    began = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300)
    return time.perf_counter() - began


def _median(times: int, measure) -> float:
    return statistics.median(measure() for _ in range(times))


def bench_cli(_pg, _s3, work: Path, quick: bool) -> dict:
    from ledgerline_tools.samples import generate

    runs = 3 if quick else 7
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGERLINE_")}
    env["LEDGERLINE_DATA_DIR"] = str(work / "cli")
    pdf = work / "cli-invoice.pdf"
    pdf.write_bytes(generate(1, lang="en", template="letterhead")[0])
    ledgerline, python = str(BIN / "ledgerline"), sys.executable
    interpreter = _median(runs, lambda: _seconds([python, "-c", "pass"], env))
    help_s = _median(runs, lambda: _seconds([ledgerline, "--help"], env))
    total = _median(runs, lambda: _seconds([ledgerline, "extract", str(pdf)], env))

    def reading() -> float:
        done = subprocess.run([python, "-c", READING, str(pdf)], env=env, check=True,
                              capture_output=True, text=True, timeout=300)
        return float(done.stdout.strip().splitlines()[-1])

    read_s = _median(runs, reading)
    before = _median(max(1, runs // 2), lambda: _seconds([python, "-c", BEFORE, str(pdf)], env))
    return {"runs": runs, "interpreter_s": interpreter, "help_s": help_s,
            "extract_total_s": total, "reading_s": read_s, "extract_start_s": total - read_s,
            "before_total_s": before, "before_start_s": before - read_s}


def rows(c: dict) -> list[tuple]:
    return [
        (f"CLI: `ledgerline --help`, median of {c['runs']}", f"{c['help_s']:.2f} s",
         f"{c['interpreter_s']:.2f} s `python -c pass`",
         f"goal <= {GOAL_HELP_S} s: {'met' if c['help_s'] <= GOAL_HELP_S else 'NOT met'}"),
        ("CLI: `ledgerline extract FILE`, start before reading the page",
         f"{c['extract_start_s']:.2f} s", f"{c['before_start_s']:.2f} s with the warm-up first",
         f"goal <= {GOAL_EXTRACT_START_S} s: "
         f"{'met' if c['extract_start_s'] <= GOAL_EXTRACT_START_S else 'NOT met'}"),
        ("  the whole command / reading the page (a one-page text PDF)",
         f"{c['extract_total_s']:.2f} s / {c['reading_s']:.2f} s",
         f"{c['before_total_s']:.2f} s whole, with the warm-up first", ""),
    ]
