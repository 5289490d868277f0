"""What each job attempt did, for operators: one log line (logs.py) and its metrics.

The line names the job, its invoice and account, the attempt's number, the provider, how the
attempt's call ended (the ledger's outcome: published, failed, discarded, …, or
`attempts_exhausted` when a claim found the job past its attempts), its duration and cost,
the error code of a failure, and the request id of the upload that created the job, so that
`request_id=…` finds an upload and everything its work did.
"""
from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from prometheus_client import Counter, Histogram

from .. import logs
from ..domain.jobs import CallOutcome
from ..ports.jobs import ATTEMPTS_EXHAUSTED as EXHAUSTED

if TYPE_CHECKING:
    from .worker import Attempt

UNKNOWN = "unknown"  # the provider of a call whose ledger row names none

ATTEMPTS = Counter("ledgerline_job_attempts_total", "Job attempts by how their call ended",
                   ["provider", "outcome"])
ATTEMPT_SECONDS = Histogram("ledgerline_job_attempt_duration_seconds",
                            "A job attempt from its claim to its end, by how its call ended",
                            ["provider", "outcome"],
                            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
log = logs.get("ledgerline.job")


def attempt_ended(attempt: Attempt, seconds: float) -> None:
    job, call = attempt.job, attempt.call
    outcome = attempt.outcome.value if attempt.outcome is not None else CallOutcome.RUNNING.value
    progress = attempt.meter.latest
    billed = attempt.outcome is not None and attempt.outcome.billed
    cost = (progress.cost if progress is not None else Decimal(call.cost)) if billed else 0
    provider = call.provider or UNKNOWN
    ATTEMPTS.labels(provider, outcome).inc()
    ATTEMPT_SECONDS.labels(provider, outcome).observe(seconds)
    log.info("job attempt", job=job.claim.job_id, invoice=job.invoice_id, account=job.account,
             attempt=job.attempts, provider=provider, outcome=outcome,
             duration_ms=round(seconds * 1000, 1), cost=str(cost), error=attempt.error,
             request_id=job.request_id)


def exhausted(job_id: str, provider: str | None) -> None:
    """A claim that found its job past its attempts and failed it (no call was made)."""
    provider = provider or UNKNOWN
    ATTEMPTS.labels(provider, EXHAUSTED).inc()
    log.warning("job attempt", job=job_id, provider=provider, outcome=EXHAUSTED, cost="0",
                error=EXHAUSTED)
