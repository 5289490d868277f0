"""The per-key token bucket, on a clock the test moves by hand."""
import pytest

from ledgerline.domain.ratelimit import PRUNE_ABOVE, RateLimiter, retry_after_header


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_a_key_may_burst_up_to_its_minute_then_waits_for_a_token():
    clock = Clock()
    limiter = RateLimiter(60, clock)
    assert [limiter.take("k") for _ in range(60)] == [0.0] * 60
    assert limiter.take("k") == pytest.approx(1.0)
    clock.now += 0.5
    assert limiter.take("k") == pytest.approx(0.5)
    clock.now += 0.5
    assert limiter.take("k") == 0.0


def test_refused_requests_do_not_spend_tokens():
    clock = Clock()
    limiter = RateLimiter(6, clock)
    for _ in range(6):
        limiter.take("k")
    for _ in range(100):
        limiter.take("k")
    clock.now += 10  # one token at 6 a minute
    assert limiter.take("k") == 0.0


def test_keys_have_separate_buckets():
    limiter = RateLimiter(1, Clock())
    assert limiter.take("a") == 0.0 and limiter.take("b") == 0.0
    assert limiter.take("a") > 0


def test_an_idle_key_refills_only_to_its_capacity():
    clock = Clock()
    limiter = RateLimiter(2, clock)
    limiter.take("k")
    clock.now += 3600
    assert [limiter.take("k") for _ in range(3)][:2] == [0.0, 0.0]
    assert limiter.take("k") > 0


def test_zero_turns_the_limit_off_and_negative_is_refused():
    limiter = RateLimiter(0, Clock())
    assert not limiter.enabled and all(limiter.take("k") == 0.0 for _ in range(1000))
    with pytest.raises(ValueError):
        RateLimiter(-1)


def test_full_buckets_are_forgotten_when_many_keys_were_seen():
    clock = Clock()
    limiter = RateLimiter(60, clock)
    for i in range(PRUNE_ABOVE):
        limiter.take(i)
    clock.now += 60
    limiter.take("busy")
    limiter.take("last")
    assert len(limiter._buckets) <= 2


@pytest.mark.parametrize("seconds, header", [(0.01, "1"), (1.0, "1"), (1.2, "2"), (19.5, "20")])
def test_retry_after_is_whole_seconds_and_never_zero(seconds, header):
    assert retry_after_header(seconds) == header


def test_wait_time_looks_without_spending():
    clock = Clock()
    limiter = RateLimiter(2, clock)
    assert limiter.wait_time("addr") == 0.0
    assert limiter.take("addr") == 0.0 and limiter.take("addr") == 0.0
    assert limiter.wait_time("addr") == pytest.approx(30.0)
    assert limiter.wait_time("addr") == pytest.approx(30.0)  # looking spends nothing
    clock.now += 30
    assert limiter.wait_time("addr") == 0.0 and limiter.take("addr") == 0.0
