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


# --- the job engine's rules ------------------------------------------------------------

from ledgerline.domain.cache import ExtractorVersions, supersedes  # noqa: E402
from ledgerline.domain.jobs import (UNBILLED_OUTCOMES, CallOutcome, exhausted,  # noqa: E402
                                    fair_position, renew_interval)


def test_a_job_is_exhausted_once_it_had_max_attempts_claims():
    assert not exhausted(MAX_ATTEMPTS - 1)
    assert exhausted(MAX_ATTEMPTS) and exhausted(MAX_ATTEMPTS + 3)


def test_an_account_without_work_in_flight_enters_at_the_head_of_the_queue():
    assert fair_position(queue_head=40, account_last=None) == 40
    assert fair_position(queue_head=None, account_last=None) == 0


def test_an_account_with_a_backlog_queues_behind_its_own_last_job():
    assert fair_position(queue_head=40, account_last=140) == 141
    assert fair_position(queue_head=40, account_last=10) == 40  # its old jobs ran long ago


def test_two_backlogs_interleave():
    head, last = 0, {"a": None, "b": None}
    order = []
    for account in ["a"] * 5 + ["b"] * 5:  # a queues five, then b five
        position = fair_position(head, last[account])
        last[account] = position
        order.append((position, account))
    assert [account for _, account in sorted(order)][:4] == ["a", "b", "a", "b"]


def test_work_that_never_reached_a_model_is_not_billed():
    assert {o.value for o in CallOutcome if not o.billed} == set(UNBILLED_OUTCOMES) == {
        "refused", "unstarted", "throttled"}
    assert CallOutcome.CANCELLED.billed and CallOutcome.ABANDONED.billed


def test_the_cache_keeps_the_most_recently_started_extraction():
    assert supersedes(NOW, NOW - timedelta(seconds=1))
    assert not supersedes(NOW - timedelta(seconds=1), NOW)
    assert not supersedes(NOW, NOW)  # a tie keeps what is there
    assert supersedes(NOW, None)     # entries from before the rule are older than any


def test_leases_are_renewed_three_times_a_lease():
    assert renew_interval(30) == 10


def test_the_versions_label_names_all_four_parts():
    versions = ExtractorVersions("invoice-v2", "p1", "m1", "c" * 64)
    assert versions.label == "invoice-v2/p1/m1/" + "c" * 64
