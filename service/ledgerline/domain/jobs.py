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
    """Pending work whose backoff is over, or running work whose owner's lease ran out."""
    if status is JobStatus.PENDING:
        return run_after <= now
    return status is JobStatus.RUNNING and lease_expires_at is not None and lease_expires_at <= now


def may_publish(claim: Claim, *, current_owner: str | None, current_token: int,
                status: JobStatus, lease_expires_at: datetime | None, now: datetime) -> bool:
    """Publish only while holding the lease with the current fencing token.

    The database applies the same rule in one conditional UPDATE (adapters/db/jobs.py);
    tests/integration/test_rules_in_sql.py checks that the two agree on every state.
    """
    return (status is JobStatus.RUNNING
            and current_owner == claim.owner
            and current_token == claim.token
            and lease_expires_at is not None
            and now < lease_expires_at)


# --- retries ----------------------------------------------------------------------

MAX_ATTEMPTS = 5


def retry_delay(attempt: int, base: float = 0.5, cap: float = 30.0) -> float:
    """Exponential backoff for transient failures: 0.5 s, 1 s, 2 s, ... capped."""
    return min(cap, base * (2 ** max(0, attempt - 1)))


def should_retry(attempt: int, transient: bool) -> bool:
    return transient and attempt < MAX_ATTEMPTS
