"""A job's hot path on SQLite: each write a sequence of statements inside its single writer's
transaction (BEGIN IMMEDIATE), which serialises them: the same outcome as PostgreSQL's one
statement each (postgresql/claims.py)."""
from __future__ import annotations

from sqlalchemy import update

from ....domain.jobs import CallOutcome
from ....ports.extractor import Progress
from ....ports.jobs import Call, CallOpening, ClaimedJob, Exhausted
from .. import outbox
from ..claims import COMPLETED, SqlClaims, completed, fenced, result_row
from ..tables import jobs, results


class SqliteClaims(SqlClaims):
    def claim_and_start(self, owner: str, lease_seconds: float, extractor_versions: str,
                        opening: CallOpening) -> ClaimedJob | Exhausted | None:
        job = self.claim_next(owner, lease_seconds, extractor_versions)
        if isinstance(job, ClaimedJob):
            self._ledger.start_call(opening.of(job))
        return job

    def publish_and_finish(self, job: ClaimedJob, call: Call, document: dict, *,
                           result_id: str, record_in_cache: bool,
                           progress: Progress | None = None) -> bool:
        published = self._publish(job, document, result_id, record_in_cache)
        self._ledger.finish_call(call.call_id, CallOutcome.PUBLISHED if published
                                 else CallOutcome.DISCARDED, call=call, progress=progress)
        return published

    def _publish(self, job: ClaimedJob, document: dict, result_id: str,
                 record_in_cache: bool) -> bool:
        """Store the result and complete the job, only if the claim still holds; a retry after
        a lost acknowledgement finds its own committed result and reports success."""
        conn = self.conn
        conn.execute(self._insert(results).values(**result_row(job, document, result_id))
                     .on_conflict_do_nothing(index_elements=[results.c.id]))
        done = conn.execute(
            update(jobs).where(fenced(job.claim)).values(**completed(result_id))).rowcount
        if not done:
            if self.ended_under(job.claim, COMPLETED):
                return True
            # The claim is gone: leave no trace of the refused result.
            conn.execute(results.delete().where(results.c.id == result_id))
            return False
        if record_in_cache:
            self.make_current(job, result_id)
        outbox.job_event(conn, job.claim.job_id, "invoice.completed")
        return True
