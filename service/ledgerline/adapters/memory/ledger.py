"""The call ledger in memory: every call, with what it costs, written as it goes; a retried
write adds nothing."""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from ...domain.jobs import CallOutcome
from ...domain.providers import Agreement
from ...ports.extractor import Progress
from ...ports.jobs import Call
from .tables import CallRow, Now, ShadowFieldRow, Tables



class MemoryLedger:
    def __init__(self, tables: Tables, now: Now):
        self.t, self.now = tables, now

    def start_call(self, call: Call) -> None:
        if call.call_id in self.t.calls:
            return
        job = call.job
        self.t.calls[call.call_id] = CallRow(
            id=self.t.next(), call_id=call.call_id, operation=call.operation,
            account=job.account, job_id=job.claim.job_id, request_hash=call.request_hash,
            started_at=self.now(), outcome=CallOutcome.RUNNING.value, cost=Decimal(call.cost),
            worker=job.claim.owner, fencing_token=job.claim.token, provider=call.provider,
            model=call.model, cost_basis=call.cost_basis)

    def record_progress(self, call: Call, progress: Progress) -> None:
        row = self.t.calls.get(call.call_id)
        if row is not None:
            self.t.calls[row.call_id] = replace(row, **self._progress(row, progress))

    def finish_call(self, call_id: str, outcome: CallOutcome, *, call: Call | None = None,
                    progress: Progress | None = None) -> None:
        row = self.t.calls.get(call_id)
        if row is None:
            return
        row = replace(row, outcome=outcome.value, finished_at=self.now())
        if progress is not None and call is not None:
            row = replace(row, **self._progress(row, progress))
        if not outcome.billed:
            row = replace(row, cost=Decimal(0))
        self.t.calls[call_id] = row

    def _progress(self, row: CallRow, progress: Progress) -> dict:
        """A provider's progress as ledger columns; a token an earlier attempt of the job sent
        reached the provider job that attempt paid for: this one costs 0."""
        token = progress.client_token
        reused = token is not None and any(
            other.job_id == row.job_id and other.client_token == token and other.id < row.id
            for other in self.t.calls.values())
        return dict(provider=progress.provider, model=progress.model[:120], client_token=token,
                    provider_job_id=progress.provider_job_id,
                    provider_request_id=(progress.request_id or None)
                    and progress.request_id[:200],
                    provider_requests=progress.requests, input_tokens=progress.input_tokens,
                    output_tokens=progress.output_tokens, pages=progress.pages,
                    cost=Decimal(0) if reused else Decimal(progress.cost),
                    cost_basis=progress.cost_basis)

    def record_agreement(self, call: Call, *, serving_provider: str, candidate_provider: str,
                         candidate_model: str, verdicts: dict[str, Agreement]) -> None:
        now = self.now()
        for name, verdict in verdicts.items():
            self.t.shadow_fields.setdefault((call.call_id, name), ShadowFieldRow(
                call.call_id, call.job.claim.job_id, call.job.account, now, serving_provider,
                candidate_provider, candidate_model[:120], name, verdict.value))

    def mark_abandoned_calls(self, job_id: str, token: int) -> None:
        for row in list(self.t.calls.values()):
            if (row.job_id == job_id and row.outcome == CallOutcome.RUNNING.value
                    and row.fencing_token < token):
                self.t.calls[row.call_id] = replace(row, outcome=CallOutcome.ABANDONED.value)
