"""Names the service makes: record ids, a kind's prefix and 96 random bits (`job_…`, `inv_…`,
`call_…`), made by the writer before its first try so that a retried write names the same
record; and the pseudonym under which the call ledger keeps a deleted account's costs."""
from __future__ import annotations

import hashlib
import secrets


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def pseudonym(account: str) -> str:
    """What the call ledger says instead of a deleted account's name."""
    return "deleted-" + hashlib.sha256(account.encode()).hexdigest()[:12]
