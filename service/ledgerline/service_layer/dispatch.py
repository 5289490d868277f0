"""The model call itself, kept apart from the job table's claim and publish: which extractor
runs, what the ledger row says before and while it runs, and the shadow comparison after it.

A hosted provider reports every billable step through a `LedgerMeter`, which writes it into
the attempt's ledger row at once (one short, retried write), so that the row of a worker
killed mid-call already holds the provider's token, its job id and the requests it may bill.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .. import metrics, tracing
from ..adapters.extractor import conform
from ..config import Settings
from ..domain.cache import CacheKey
from ..domain.ids import new_id
from ..domain.jobs import CallOutcome
from ..domain.providers import SHADOW_OPERATION, Provider, compare_fields, in_shadow_sample
from ..extraction.document import FIELD_NAMES
from ..ports.extractor import (FLAT, CallContext, Cancelled, ExtractionError, Extractor,
                               Progress, Throttled)
from ..ports.jobs import Call

if TYPE_CHECKING:
    from .worker import Attempt, Worker

log = logging.getLogger(__name__)


def opening(extractor: Extractor, settings: Settings) -> dict:
    """What a ledger row says when it is written, before the call: the rules cost their flat
    price; a provider's cost comes from its own counts as the call goes on."""
    if extractor.provider is not Provider.RULES:
        return dict(provider=extractor.provider.value, model=extractor.versions.model,
                    cost=0, cost_basis=None)
    return dict(provider=Provider.RULES.value, model=extractor.versions.model,
                cost=settings.price_per_call, cost_basis=FLAT)


class LedgerMeter:
    """Writes a provider's progress into its call's ledger row as it happens."""

    def __init__(self, worker: Worker, call: Call):
        self.worker, self.call = worker, call
        self.latest: Progress | None = None

    def record(self, progress: Progress) -> None:
        self.latest = progress
        self.worker.write(lambda tx: tx.ledger.record_progress(self.call, progress))


def run(extractor: Extractor, path: str, content_hash: str, context: CallContext) -> dict:
    """One call of the port, in a span of its own (tracing.py)."""
    with tracing.span("provider call", job=context.job_id, model=extractor.versions.model,
                      provider=extractor.provider.value):
        return extractor.extract(path, content_hash, context)


def shadow_compare(attempt: Attempt, path: str, served: dict) -> None:
    """Run the candidate provider on this miss (if it is in the sample) after the serving
    one published: never served, never cached, its cost recorded as shadow spend, and its
    agreement with the served document recorded per field. Nothing it does touches the job."""
    services, job = attempt.services, attempt.job
    candidate = services.shadow_extractor
    settings = services.settings
    if candidate is None or not in_shadow_sample(job.claim.job_id, settings.shadow_sample_rate):
        return
    key = CacheKey(job.account, job.content_hash, candidate.versions).digest
    call = Call(call_id=new_id("call"), operation=SHADOW_OPERATION, job=job, request_hash=key,
                **opening(candidate, settings))
    worker = attempt.worker
    worker.write(lambda tx: tx.ledger.start_call(call))
    meter = LedgerMeter(worker, call)
    outcome = CallOutcome.FAILED
    try:
        context = CallContext(job_id=job.claim.job_id, storage_key=job.storage_key, meter=meter)
        document = conform(run(candidate, path, job.content_hash, context),
                           content_hash=job.content_hash, versions=candidate.versions)
        verdicts = compare_fields(served["fields"], document["fields"], FIELD_NAMES)
        worker.write(lambda tx: tx.ledger.record_agreement(
            call, serving_provider=opening(attempt.worker.extractor, settings)["provider"],
            candidate_provider=call.provider or "", candidate_model=call.model or "",
            verdicts=verdicts))
        outcome = CallOutcome.DISCARDED  # paid, compared, never used
    except ExtractionError as exc:
        outcome = _outcome_of(exc)
        log.info("job %s: the shadow provider gave no result (%s)", job.claim.job_id, exc.code)
    except Exception:  # the candidate's bug must not cost the served result anything
        log.exception("job %s: the shadow provider crashed", job.claim.job_id)
    finally:
        metrics.MODEL_CALLS.labels(f"shadow_{outcome.value}").inc()
        progress = meter.latest
        worker.write(lambda tx: tx.ledger.finish_call(call.call_id, outcome, call=call,
                                                      progress=progress))


def _outcome_of(exc: ExtractionError) -> CallOutcome:
    if isinstance(exc, Throttled):
        return CallOutcome.THROTTLED
    if isinstance(exc, Cancelled):
        return CallOutcome.UNSTARTED if exc.before_start else CallOutcome.CANCELLED
    return CallOutcome.FAILED
