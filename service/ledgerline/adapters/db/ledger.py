"""The call ledger in SQL, the same on both dialects but for their INSERT (which knows ON
CONFLICT): every model call, written before it starts and as it goes, so that a worker killed
a moment later has already recorded what the call will cost. Each write can be retried after a
lost acknowledgement: rows carry ids the worker made before the first try.

On PostgreSQL a claim opens its call in its own statement and a publish ends it in its own
(postgresql/claims.py); these are the ledger's other writes.
"""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, case, exists, literal, update

from ...domain.jobs import CallOutcome
from ...domain.providers import Agreement
from ...ports.extractor import Progress
from ...ports.jobs import Call
from .clock import db_now
from .tables import model_calls, shadow_fields

PROGRESS_COLUMNS = ("provider", "model", "client_token", "provider_job_id",
                    "provider_request_id", "provider_requests", "input_tokens", "output_tokens",
                    "pages", "cost", "cost_basis")


class SqlLedger:
    def __init__(self, conn: Connection, insert: Callable):
        self.conn, self._insert = conn, insert

    def start_call(self, call: Call) -> None:
        job = call.job
        self.conn.execute(self._insert(model_calls).values(
            call_id=call.call_id, operation=call.operation, account=job.account,
            job_id=job.claim.job_id, request_hash=call.request_hash, started_at=db_now(),
            outcome=CallOutcome.RUNNING.value, cost=call.cost, worker=job.claim.owner,
            fencing_token=job.claim.token, provider=call.provider, model=call.model,
            cost_basis=call.cost_basis,
        ).on_conflict_do_nothing(index_elements=[model_calls.c.call_id]))

    def record_progress(self, call: Call, progress: Progress) -> None:
        self.conn.execute(update(model_calls).where(model_calls.c.call_id == call.call_id)
                          .values(**progress_values(call, progress)))

    def finish_call(self, call_id: str, outcome: CallOutcome, *, call: Call | None = None,
                    progress: Progress | None = None) -> None:
        values: dict[str, object] = dict(outcome=outcome.value, finished_at=db_now())
        if progress is not None and call is not None:
            values.update(progress_values(call, progress))
        if not outcome.billed:
            values["cost"] = 0
        self.conn.execute(update(model_calls).where(model_calls.c.call_id == call_id)
                          .values(**values))

    def record_agreement(self, call: Call, *, serving_provider: str, candidate_provider: str,
                         candidate_model: str, verdicts: dict[str, Agreement]) -> None:
        rows = [dict(call_id=call.call_id, job_id=call.job.claim.job_id,
                     account=call.job.account, started_at=db_now(),
                     serving_provider=serving_provider, candidate_provider=candidate_provider,
                     candidate_model=candidate_model[:120], field=name, agreement=verdict.value)
                for name, verdict in verdicts.items()]
        if rows:
            self.conn.execute(self._insert(shadow_fields).values(rows).on_conflict_do_nothing(
                index_elements=[shadow_fields.c.call_id, shadow_fields.c.field]))

    def mark_abandoned_calls(self, job_id: str, token: int) -> None:
        """Calls of earlier claims still 'running' lost their worker: nobody will finish them.

        Their end stays unknown (NULL). A worker that was only paused still ends its own call
        as 'discarded' when it wakes and its publish is refused. One probe of
        ix_model_calls_job_id."""
        self.conn.execute(update(model_calls)
                          .where(model_calls.c.job_id == job_id,
                                 model_calls.c.outcome == CallOutcome.RUNNING.value,
                                 model_calls.c.fencing_token < token)
                          .values(outcome=CallOutcome.ABANDONED.value))


def progress_values(call: Call, progress: Progress) -> dict:
    """A provider's progress as ledger columns."""
    return progress_set(call.job.claim.job_id, progress_params(progress))


def progress_params(progress: Progress) -> dict:
    return dict(provider=progress.provider, model=progress.model[:120],
                client_token=progress.client_token, provider_job_id=progress.provider_job_id,
                provider_request_id=(progress.request_id or None) and progress.request_id[:200],
                provider_requests=progress.requests, input_tokens=progress.input_tokens,
                output_tokens=progress.output_tokens, pages=progress.pages, cost=progress.cost,
                cost_basis=progress.cost_basis)


def progress_set(job_id, values: dict) -> dict:
    """The columns to set (values or bound parameters). A call that sent the same idempotency
    token as an earlier attempt of its job reached the same provider job, which the provider
    charges once: its cost is 0 and the earlier row keeps the charge (domain.providers)."""
    token = values["client_token"]
    if token is None:  # no token, nothing reused (a bound NULL token matches nothing either)
        return values
    earlier = model_calls.alias("earlier")
    reused = exists().where(earlier.c.job_id == job_id, earlier.c.client_token == token,
                            earlier.c.id < model_calls.c.id)
    return {**values, "cost": case((reused, literal(0)), else_=values["cost"])}
