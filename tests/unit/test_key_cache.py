"""Key lookups are reused for at most a second, and forgetting one is immediate."""
from __future__ import annotations

import pytest

from ledgerline.domain.key_cache import MAX_AGE_SECONDS, PRUNE_ABOVE, KeyCache


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_lookup_is_reused_within_its_second_and_never_after():
    clock = Clock()
    cache = KeyCache(clock=clock)
    cache.put("h", "caller", looked_up_at=clock.now)
    clock.now += MAX_AGE_SECONDS - 0.01
    assert cache.get("h") == "caller"
    clock.now += 0.01
    assert cache.get("h") is None


def test_the_age_counts_from_before_the_lookup():
    clock = Clock()
    cache = KeyCache(clock=clock)
    asked_at = clock.now
    clock.now += 0.6  # a slow database answer
    cache.put("h", "caller", looked_up_at=asked_at)
    clock.now += 0.4
    assert cache.get("h") is None


def test_forgetting_a_key_takes_effect_at_once():
    clock = Clock()
    cache = KeyCache(clock=clock)
    cache.put("a", 1, clock.now)
    cache.put("b", 2, clock.now)
    cache.forget("a")
    assert cache.get("a") is None and cache.get("b") == 2
    cache.clear()
    assert cache.get("b") is None


def test_no_cache_may_keep_a_lookup_longer_than_a_second():
    with pytest.raises(ValueError):
        KeyCache(max_age=MAX_AGE_SECONDS + 0.5)


def test_memory_stays_bounded_by_the_keys_of_the_last_second():
    clock = Clock()
    cache = KeyCache(clock=clock)
    for i in range(PRUNE_ABOVE):
        cache.put(f"old-{i}", i, clock.now)
    clock.now += MAX_AGE_SECONDS
    cache.put("new", 0, clock.now)
    assert len(cache._entries) == 1
