"""The gevent serving model with what runs inside an API process: psycopg 3 and SQLAlchemy's
pool on real PostgreSQL, and the forkserver sandbox. Each check runs in a fresh interpreter
patched the way gunicorn's gevent worker patches it, and watches a ticker greenlet: if a
call blocked the event loop instead of yielding, the ticker stalls. (The embedded worker
thread under gevent is exercised by every `ledgerline serve` test: tests/e2e, tests/hostile.)"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

TICKER = """
from gevent import monkey
monkey.patch_all()
import json, time, gevent
gaps, last, done = [], [time.monotonic()], [False]
def tick():
    while not done[0]:
        gevent.sleep(0.01)
        now = time.monotonic(); gaps.append(now - last[0]); last[0] = now
ticker = gevent.spawn(tick)
def measure():
    gaps.clear(); last[0] = time.monotonic()
def report(**extra):
    done[0] = True; ticker.join()
    print(json.dumps({"max_gap": max(gaps), **extra}))
"""


def run_patched(body: str, env: dict | None = None) -> dict:
    import os

    out = subprocess.run([sys.executable, "-c", TICKER + textwrap.dedent(body)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, **(env or {})})
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.integration
def test_psycopg_queries_and_the_sqlalchemy_pool_yield_to_other_greenlets(pg_server):
    result = run_patched(f"""
        from sqlalchemy import text
        from ledgerline.adapters.db.engine import make_engine, transaction
        engine = make_engine({pg_server.url!r})
        def sleep_in_db(seconds=0.4):
            with transaction(engine, write=False) as conn:
                conn.execute(text(f"SELECT pg_sleep({{seconds}})"))
        sleep_in_db(0)  # imports and dialect set-up: once per process, not per request
        measure()
        started = time.monotonic()
        gevent.joinall([gevent.spawn(sleep_in_db) for _ in range(6)], raise_error=True)
        report(elapsed=time.monotonic() - started)
    """)
    # Six 0.4 s queries run side by side on the pool, and the loop never stalls.
    assert result["elapsed"] < 2.0, result
    assert result["max_gap"] < 0.1, result


def test_the_forkserver_sandbox_extracts_without_blocking_the_loop(tmp_path):
    from tests.hostile.test_api_stays_responsive import text_pdf

    pdf = tmp_path / "invoice.pdf"
    pdf.write_bytes(text_pdf(["Invoice INV-9", "Total 10.00 EUR"]))
    result = run_patched(f"""
        from ledgerline.adapters.extractor import PdfExtractor
        from ledgerline.adapters.sandbox import SandboxedExtractor, SandboxLimits
        sandbox = SandboxedExtractor(PdfExtractor(), SandboxLimits(timeout_seconds=30))
        # The fork server's start (pdfminer preloaded) is waited for once per process;
        # `ledgerline serve` starts it when the process starts (gunicorn_conf.post_worker_init).
        sandbox.extract({str(pdf)!r}, "blake3:" + "0" * 64)
        measure()
        started = time.monotonic()
        documents = gevent.joinall([gevent.spawn(sandbox.extract, {str(pdf)!r}, "blake3:" + "0" * 64)
                                    for _ in range(3)], raise_error=True)
        numbers = [g.value["fields"]["invoice_number"]["value"] for g in documents]
        report(numbers=numbers, elapsed=time.monotonic() - started)
    """)
    assert result["numbers"] == ["INV-9"] * 3
    assert result["max_gap"] < 0.1, result
