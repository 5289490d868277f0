"""Job states, idempotency decisions, leases and fencing.

Idempotency answers "was this operation already submitted?" (key chosen by the
caller, scoped to account and caller). It never looks at the cache; the cache never
looks at idempotency keys.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import datetime, timedelta


class JobStatus(str, enum.Enum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"

    @property
    def finished(self) -> bool:
        return self in (JobStatus.COMPLETED, JobStatus.FAILED)


class CacheOutcome(str, enum.Enum):
    HIT = "hit"
    MISS = "miss"
    JOINED = "joined"
    BYPASS = "bypass"
    RETRY = "retry"  # not an upload: a new attempt for a failed invoice, asked for on purpose


class CallOutcome(str, enum.Enum):
    """How a row of the call ledger ended."""
    RUNNING = "running"        # started; not ended yet
    PUBLISHED = "published"    # its result became the job's
    DISCARDED = "discarded"    # finished after its worker lost the lease: paid, not used
    FAILED = "failed"          # the extraction or its result was unusable
    ABANDONED = "abandoned"    # its worker vanished; a later claim took the job over
    CANCELLED = "cancelled"    # stopped while the model ran (shutdown, lease lost): paid
    REFUSED = "refused"        # the pre-flight refused the file before any model saw it
    UNSTARTED = "unstarted"    # cancelled before the extraction process started
    THROTTLED = "throttled"    # the provider refused for throughput before doing any work;
                               # the job waits and tries again (not a failure of the invoice)

    @property
    def billed(self) -> bool:
        """Work that never reached a model costs nothing and is reported apart."""
        return self not in (CallOutcome.REFUSED, CallOutcome.UNSTARTED, CallOutcome.THROTTLED)


UNBILLED_OUTCOMES = tuple(o.value for o in CallOutcome if not o.billed)


# --- idempotency ----------------------------------------------------------------

MAX_IDEMPOTENCY_KEY = 255
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z:/]+$")
_SF_STRING = re.compile(r'^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$')


class InvalidIdempotencyKey(ValueError):
    pass


def parse_idempotency_key(header: str | None) -> str | None:
    """Accept a quoted sf-string (the draft's form) or a bare token; return the key."""
    if header is None:
        return None
    header = header.strip()
    quoted = _SF_STRING.match(header)
    if quoted:
        key = re.sub(r'\\(["\\])', r"\1", quoted.group(1))
    elif _TOKEN.match(header):
        key = header
    else:
        raise InvalidIdempotencyKey("Idempotency-Key must be a quoted string or a token")
    if not key:
        raise InvalidIdempotencyKey("Idempotency-Key must not be empty")
    if len(key) > MAX_IDEMPOTENCY_KEY:
        raise InvalidIdempotencyKey(f"Idempotency-Key is longer than {MAX_IDEMPOTENCY_KEY} characters")
    return key


class Replay(enum.Enum):
    SAME_OPERATION = "replay"
    KEY_REUSED = "conflict"


def decide_replay(stored_request_hash: str, request_hash: str) -> Replay:
    """An existing job was found under the caller's key: replay it or refuse."""
    if stored_request_hash == request_hash:
        return Replay.SAME_OPERATION
    return Replay.KEY_REUSED


# --- leases and fencing -----------------------------------------------------------

@dataclass(frozen=True)
class Claim:
    """What a worker holds while it works on a job."""
    job_id: str
    owner: str
    token: int
    expires_at: datetime


def lease_expiry(now: datetime, seconds: float) -> datetime:
    return now + timedelta(seconds=seconds)


def claimable(status: JobStatus, run_after: datetime, lease_expires_at: datetime | None,
              now: datetime) -> bool:
    """Pending work whose backoff is over, or running work whose owner's lease ran out.

    `now` is the database's clock: every process compares against the same time, so a host
    whose clock runs ahead can neither take a healthy lease nor hide new work from the others.
    """
    if status is JobStatus.PENDING:
        return run_after <= now
    return status is JobStatus.RUNNING and lease_expires_at is not None and lease_expires_at <= now


def exhausted(attempts: int) -> bool:
    """A claimable job that already had MAX_ATTEMPTS claims is failed, not claimed again: a
    file that kills its worker (or its lease) every time costs at most MAX_ATTEMPTS calls."""
    return attempts >= MAX_ATTEMPTS


# Lease keeping: renew every third of the lease; a renewal that fails is retried quickly, so
# one blip costs a fraction of a second rather than a third of the lease.
RENEWALS_PER_LEASE = 3
RENEWAL_RETRY_SECONDS = 0.2


def renew_interval(lease_seconds: float) -> float:
    return lease_seconds / RENEWALS_PER_LEASE


def may_publish(claim: Claim, *, current_owner: str | None, current_token: int,
                status: JobStatus, lease_expires_at: datetime | None, now: datetime) -> bool:
    """Publish only while holding the lease with the current fencing token.

    The database applies the same rule in one conditional UPDATE (adapters/db/claims.py);
    tests/integration/test_rules_in_sql.py checks that the two agree on every state.
    """
    return (status is JobStatus.RUNNING
            and current_owner == claim.owner
            and current_token == claim.token
            and lease_expires_at is not None
            and now < lease_expires_at)


# --- fairness between accounts ------------------------------------------------------

def fair_position(queue_head: int | None, account_last: int | None) -> int:
    """Where a new job of an account enters the queue (claims take the lowest position first).

    Start-time fair queuing: a job starts at the queue's head (the lowest position still in
    flight) or just after the account's own latest job in flight, whichever is later. An
    account with a backlog of a hundred jobs therefore holds positions head … head+99, and an
    account that uploads one job now gets `head`: it is claimed next, after at most the jobs
    already running. Two accounts with backlogs alternate. Positions only order the queue;
    they carry no time.
    """
    head = queue_head if queue_head is not None else 0
    if account_last is None:
        return head
    return max(head, account_last + 1)


# --- retries ----------------------------------------------------------------------

MAX_ATTEMPTS = 5


def retry_delay(attempt: int, base: float = 0.5, cap: float = 30.0) -> float:
    """Exponential backoff for transient failures: 0.5 s, 1 s, 2 s, ... capped."""
    return min(cap, base * (2 ** max(0, attempt - 1)))


def should_retry(attempt: int, transient: bool) -> bool:
    return transient and attempt < MAX_ATTEMPTS
