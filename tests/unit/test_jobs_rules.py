from datetime import datetime, timedelta, timezone

import pytest

from ledgerline.domain.jobs import (MAX_ATTEMPTS, Claim, InvalidIdempotencyKey, JobStatus, Replay,
                                    claimable, decide_replay, may_publish,
                                    parse_idempotency_key, retry_delay, should_retry)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("header, key", [
    ('"abc-123"', "abc-123"),
    ("abc-123", "abc-123"),
    ('"with space"', "with space"),
    (r'"quote\"inside"', 'quote"inside'),
    ("  token  ", "token"),
    (None, None),
])
def test_idempotency_key_accepts_sf_string_and_token(header, key):
    assert parse_idempotency_key(header) == key


@pytest.mark.parametrize("header", ['""', '"unterminated', "a b", "é", '"' + "x" * 256 + '"', "x" * 256])
def test_idempotency_key_rejects_malformed_or_too_long(header):
    with pytest.raises(InvalidIdempotencyKey):
        parse_idempotency_key(header)


def test_idempotency_key_at_the_limit_is_accepted():
    assert parse_idempotency_key("k" * 255) == "k" * 255


def test_same_key_same_request_is_a_replay():
    assert decide_replay("h1", "h1") is Replay.SAME_OPERATION


def test_same_key_other_request_is_refused():
    assert decide_replay("h1", "h2") is Replay.KEY_REUSED


def test_pending_work_is_claimable_once_its_backoff_is_over():
    assert claimable(JobStatus.PENDING, NOW, None, NOW)
    assert not claimable(JobStatus.PENDING, NOW + timedelta(seconds=1), None, NOW)


def test_running_work_is_claimable_only_after_its_lease_ran_out():
    assert not claimable(JobStatus.RUNNING, NOW, NOW + timedelta(seconds=1), NOW)
    assert claimable(JobStatus.RUNNING, NOW, NOW, NOW)
    assert not claimable(JobStatus.COMPLETED, NOW, NOW - timedelta(hours=1), NOW)


def claim(token=3, owner="w1"):
    return Claim("job_1", owner, token, NOW + timedelta(seconds=30))


def test_owner_with_current_token_and_live_lease_may_publish():
    assert may_publish(claim(), current_owner="w1", current_token=3, status=JobStatus.RUNNING,
                       lease_expires_at=NOW + timedelta(seconds=5), now=NOW)


@pytest.mark.parametrize("owner, token, status, expires", [
    ("w2", 4, JobStatus.RUNNING, NOW + timedelta(seconds=5)),   # taken over by another worker
    ("w1", 4, JobStatus.RUNNING, NOW + timedelta(seconds=5)),   # same name, newer claim
    ("w1", 3, JobStatus.RUNNING, NOW),                          # lease ran out
    ("w1", 3, JobStatus.COMPLETED, NOW + timedelta(seconds=5)),  # someone already published
])
def test_a_worker_that_lost_its_lease_may_not_publish(owner, token, status, expires):
    assert not may_publish(claim(), current_owner=owner, current_token=token, status=status,
                           lease_expires_at=expires, now=NOW)


def test_backoff_grows_and_is_capped():
    delays = [retry_delay(n) for n in range(1, 12)]
    assert delays == sorted(delays)
    assert delays[0] == 0.5 and delays[-1] == 30.0


def test_only_transient_failures_are_retried_and_only_a_few_times():
    assert should_retry(1, transient=True)
    assert not should_retry(1, transient=False)
    assert not should_retry(MAX_ATTEMPTS, transient=True)
