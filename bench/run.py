"""The benchmark suite's entry point (`make bench`): Ledgerline in its production shape.

    .venv/bin/python bench/run.py [--quick] [--only hit,miss,queue,replay,cli] [--json OUT]

Starts its own PostgreSQL and SeaweedFS S3 on loopback, runs each benchmark side by side with
the floor it is compared against, and prints one table. See bench/production.py for what each
row measures, and bench/RESULTS.md for recorded numbers.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "service"), str(ROOT)]

from bench.production import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
