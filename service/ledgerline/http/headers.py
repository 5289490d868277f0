"""Parsing of the request headers the upload understands."""
from __future__ import annotations

import re

from ..domain.errors import BadRequest
from ..domain.jobs import InvalidIdempotencyKey, parse_idempotency_key

MAX_WAIT = 60
MAX_PREFER = 1024  # a Prefer header longer than this is not one a client means
_WAIT = re.compile(r"(?:^|[,;\s])wait\s*=\s*(\d+)\b", re.IGNORECASE)


def idempotency_key(value: str | None) -> str | None:
    try:
        return parse_idempotency_key(value)
    except InvalidIdempotencyKey as exc:
        raise BadRequest(str(exc)) from None


def wants_fresh(cache_control: str | None) -> bool:
    """Cache-Control: no-cache asks for fresh processing."""
    if not cache_control:
        return False
    directives = {d.strip().split("=")[0].lower() for d in cache_control.split(",")}
    return "no-cache" in directives


def prefer_wait(prefer: str | None) -> int:
    """Seconds to hold the response for the result (RFC 7240 `wait`), at most 60."""
    if not prefer:
        return 0
    if len(prefer) > MAX_PREFER:
        raise BadRequest(f"the Prefer header is longer than {MAX_PREFER} characters")
    match = _WAIT.search(prefer)
    if not match:
        return 0
    digits = match.group(1).lstrip("0") or "0"
    # More digits than any wait we allow ask for the longest one; int() is never given 5,000.
    return MAX_WAIT if len(digits) > 2 else min(int(digits), MAX_WAIT)
