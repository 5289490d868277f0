import pytest

from ledgerline.domain.errors import BadRequest
from ledgerline.http.headers import idempotency_key, prefer_wait, wants_fresh


@pytest.mark.parametrize("value, fresh", [
    (None, False), ("no-cache", True), ("max-age=0, no-cache", True), ("No-Cache", True),
    ("no-store", False), ("max-age=0", False),
])
def test_cache_control_no_cache_asks_for_fresh_processing(value, fresh):
    assert wants_fresh(value) is fresh


@pytest.mark.parametrize("value, seconds", [
    (None, 0), ("wait=5", 5), ("respond-async, wait=10", 10), ("wait=600", 60), ("return=minimal", 0),
])
def test_prefer_wait_is_bounded(value, seconds):
    assert prefer_wait(value) == seconds


def test_malformed_idempotency_key_is_a_bad_request():
    with pytest.raises(BadRequest):
        idempotency_key('"open')
