"""Identical uploads that arrive together across several API processes and several worker
processes cause exactly one model call per distinct file, and every caller gets that result."""
from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.production.cluster import text_layer_pdfs, variant

pytestmark = [pytest.mark.integration, pytest.mark.slow]

API_PROCESSES = 4
# One key's fifty callers may all be accepted by one API process, whose `Prefer: wait` cap per
# key (32 by default) would answer the rest 202 at once. Those answers are right, but this
# file is about one model call, so every caller is let wait wherever it lands.
WAIT_FOR_EVERY_CALLER = {"LEDGERLINE_MAX_WAITS_PER_KEY": "100"}


def fire_at_once(cluster, bodies: list[bytes]) -> list:
    """POST every body at the same moment (a barrier releases all threads together)."""
    barrier = threading.Barrier(len(bodies))

    def one(i: int):
        barrier.wait()
        role = "customer" if i % 2 else "supplier"
        for _ in range(3):
            answer = cluster.upload(bodies[i], role=role, Prefer="wait=60")
            # A database too busy to answer within its statement timeout (a loaded machine)
            # refuses with 503 having accepted nothing: the client retries, as clients do.
            if answer.status_code != 503 or answer.json().get("code") != "unavailable":
                break
            time.sleep(float(answer.headers.get("Retry-After", "1")))
        return answer

    with ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(one, range(len(bodies))))


def answers(responses) -> Counter:
    """The status codes, and the problem of each answer that is not a 201."""
    return Counter(r.status_code if r.status_code == 201 else f"{r.status_code} {r.text[:300]}"
                   for r in responses)


def extraction_of(response) -> str:
    return json.dumps(response.json()["extraction"], sort_keys=True)


def test_a_hundred_identical_uploads_make_one_model_call(production):
    production.start_api(API_PROCESSES, env=WAIT_FOR_EVERY_CALLER)
    production.start_worker()
    production.start_worker()
    pdf = text_layer_pdfs()[5].read_bytes()

    responses = fire_at_once(production, [pdf] * 100)

    assert all(r.status_code == 201 for r in responses), answers(responses)
    assert len({extraction_of(r) for r in responses}) == 1
    assert all(r.json()["status"] == "completed" for r in responses)
    outcomes = Counter(r.headers["Ledgerline-Cache"] for r in responses)
    assert outcomes["miss"] == 1 and set(outcomes) <= {"miss", "joined", "hit"}, outcomes
    assert len({r.json()["id"] for r in responses}) == 100  # one invoice record per caller
    calls = production.model_calls()
    assert len(calls) == 1 and calls[0].outcome == "published"
    assert len(production.api_pids()) == API_PROCESSES  # none of them fell over


def test_twenty_files_five_copies_each_make_twenty_model_calls(production):
    production.start_api(API_PROCESSES, env=WAIT_FOR_EVERY_CALLER)
    production.start_worker()
    production.start_worker()
    files = [variant(p.read_bytes(), "mix") for p in text_layer_pdfs()[:20]]
    bodies = [files[i % 20] for i in range(100)]

    responses = fire_at_once(production, bodies)

    assert all(r.status_code == 201 for r in responses), answers(responses)
    by_file: dict[int, set] = {}
    for i, r in enumerate(responses):
        by_file.setdefault(i % 20, set()).add(extraction_of(r))
    assert all(len(results) == 1 for results in by_file.values())
    assert len({r.json()["content_hash"] for r in responses}) == 20
    calls = production.model_calls()
    assert len(calls) == 20
    assert len({c.request_hash for c in calls}) == 20
    assert {c.outcome for c in calls} == {"published"}
    # Both worker processes took part.
    assert len({c.worker.rsplit(":", 1)[0] for c in calls}) == 2
