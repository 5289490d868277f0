"""Workers killed or paused after they dispatched a paid call, on PostgreSQL + S3 with stand-ins
running as their own processes: Textract charges once per page set because the recovery worker
sends the same ClientRequestToken and gets the same JobId; a chat model has no such token, so
every attempt is charged, and the ledger records exactly the attempts that were."""
from __future__ import annotations

import signal
from decimal import Decimal

import pytest

from ledgerline.domain.providers import token_cost
from ledgerline_tools.samples import generate
from tests.production.cluster import owner_pid, wait_for
from tests.production.conftest import LEASE_SECONDS
from tests.standins.process import standin_process

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LEASE = float(LEASE_SECONDS)
API_KEY = "sk-standin"  # the stand-in process's own key
PRICE_PER_PAGE = Decimal("0.02")  # not the default: the processes read the variable
PRICE_INPUT, PRICE_OUTPUT = Decimal("2.50"), Decimal("10")
HELD_SECONDS = LEASE * 3  # how long the provider takes: long enough to crash into


@pytest.fixture
def textract(production, s3_server):
    with standin_process("textract", production.workdir, env=s3_server.env) as standin:
        standin.control("processing", seconds=HELD_SECONDS)
        production.env.update(LEDGERLINE_PROVIDER="textract", AWS_DEFAULT_REGION="us-east-1",
                              AWS_ENDPOINT_URL_TEXTRACT=standin.url,
                              LEDGERLINE_TEXTRACT_PRICE_PER_PAGE=str(PRICE_PER_PAGE))
        yield standin


@pytest.fixture
def chat(production):
    key_file = production.workdir / "openai-key"
    key_file.write_text(API_KEY + "\n")
    with standin_process("openai", production.workdir) as standin:
        production.env.update(LEDGERLINE_PROVIDER="openai",
                              LEDGERLINE_OPENAI_API_KEY_FILE=str(key_file),
                              LEDGERLINE_OPENAI_BASE_URL=f"{standin.url}/v1",
                              LEDGERLINE_OPENAI_MODEL="standin-1",
                              LEDGERLINE_OPENAI_PRICE_INPUT_PER_MTOK=str(PRICE_INPUT),
                              LEDGERLINE_OPENAI_PRICE_OUTPUT_PER_MTOK=str(PRICE_OUTPUT))
        yield standin


def start(production, workers: int = 2):
    production.start_api(1)
    for _ in range(workers):
        production.start_worker()


def dispatched(production, pdf: bytes, condition: str):
    """Upload; return (invoice id, job id, pid of the worker whose call `condition` holds)."""
    response = production.upload(pdf)
    assert response.status_code == 202, response.text
    job = production.job_of(response.json()["id"])
    call = wait_for(lambda: production.sql(
        f"SELECT * FROM model_calls WHERE job_id = :id AND {condition}", id=job.id),
        "the provider call to be dispatched")[0]
    return response.json()["id"], job.id, owner_pid(call.worker)


def settled(production) -> list:
    wait_for(lambda: not production.sql("SELECT 1 FROM model_calls WHERE outcome = 'running'"),
             "every call to end", timeout=60)
    return production.model_calls()


def completed(production, invoice_id: str) -> dict:
    invoice = production.get(f"/v1/accounts/acme/invoices/{invoice_id}").json()
    assert invoice["status"] == "completed", invoice
    return invoice["extraction"]


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "paused"])
def test_textract_charges_once_when_a_worker_is_lost_after_starting_the_job(
        production, textract, stop):
    pdf, truth = generate(seed=7, lang="en", template="multi_page")
    start(production)
    invoice_id, job_id, victim = dispatched(production, pdf, "provider_job_id IS NOT NULL")
    lost = production.worker_by_pid(victim)
    lost.signal_group(stop)
    try:
        rescuer = production.wait_for_owner(job_id, not_pid=victim, timeout=LEASE + 15)
        production.wait_for_job(job_id, "completed", timeout=HELD_SECONDS + 60)
    finally:
        lost.signal_group(signal.SIGCONT)
    document = completed(production, invoice_id)
    assert document["fields"]["gross_total"]["value"] == f"{truth['gross_total']:.2f}"
    first, second = settled(production)
    assert [owner_pid(first.worker), owner_pid(second.worker)] == [victim, rescuer]
    assert first.outcome in ({"abandoned"} if stop == signal.SIGKILL
                             else {"abandoned", "cancelled", "discarded"})
    assert second.outcome == "published"
    # Both attempts sent the job's token and reached the same Textract job ...
    assert first.client_token == second.client_token is not None
    assert first.provider_job_id == second.provider_job_id is not None
    stats = textract.stats()
    assert stats["requests"]["StartExpenseAnalysis"] == 2
    # ... which Textract charged once, for its three pages, and so does the ledger.
    assert [(c["operation"], c["pages"]) for c in stats["charges"]] == [
        ("StartExpenseAnalysis", 3)]
    assert (first.cost, second.cost) == (3 * PRICE_PER_PAGE, 0)
    print(f"\ntextract, worker {'killed' if stop == signal.SIGKILL else 'paused'}: "
          f"{stats['requests']['StartExpenseAnalysis']} starts, one JobId, "
          f"{len(stats['charges'])} charge of {stats['charges'][0]['pages']} pages; ledger "
          f"{[(c.outcome, float(c.cost)) for c in (first, second)]}")


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "paused"])
def test_a_chat_model_charges_every_attempt_and_the_ledger_records_exactly_those(
        production, chat, stop):
    pdf, truth = generate(seed=7, lang="en", template="letterhead")
    # The first request is answered (and charged) only after HELD_SECONDS: a worker dies or
    # pauses while the model works on it.
    chat.fault("slow", operation="chat/completions", count=1, seconds=HELD_SECONDS)
    start(production)
    invoice_id, job_id, victim = dispatched(production, pdf, "provider_requests > 0")
    wait_for(lambda: chat.stats()["charges"], "the model to take the request")
    lost = production.worker_by_pid(victim)
    lost.signal_group(stop)
    try:
        production.wait_for_owner(job_id, not_pid=victim, timeout=LEASE + 15)
        production.wait_for_job(job_id, "completed", timeout=60)
    finally:
        lost.signal_group(signal.SIGCONT)
    assert completed(production, invoice_id)["fields"]["invoice_number"]["value"] == (
        truth["invoice_number"])
    if stop == signal.SIGSTOP:  # awake, the stale worker gets its (billed) answer and ends
        wait_for(lambda: production.sql(
            "SELECT 1 FROM model_calls WHERE job_id = :id AND fencing_token = 1 AND outcome IN "
            "('discarded', 'cancelled') AND cost_basis = 'usage'", id=job_id),
            "the paused worker to record its answer", timeout=HELD_SECONDS + 30)
    calls = settled(production)
    billed = [c for c in calls if c.outcome not in ("refused", "unstarted", "throttled")]
    charges = chat.stats()["charges"]
    assert len(charges) == 2 == len(billed) == sum(c.provider_requests for c in billed)
    published = billed[-1]
    assert published.outcome == "published" and published.cost_basis == "usage"
    assert published.cost == token_cost(published.input_tokens, published.output_tokens,
                                        input_per_mtok=PRICE_INPUT, output_per_mtok=PRICE_OUTPUT)
    logs = "".join(p.read_text(errors="replace") for p in production.workdir.glob("*.log")
                   if not p.name.endswith("-standin.log"))  # the API's and workers' own
    assert logs and API_KEY not in logs  # the key, read from its file, is never logged
    print(f"\nopenai, worker {'killed' if stop == signal.SIGKILL else 'paused'}: "
          f"{len(charges)} charges; ledger {[(c.outcome, c.provider_requests, c.cost_basis) for c in billed]}")
