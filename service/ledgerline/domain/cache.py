"""The exact result cache key and the request hashes derived from the same inputs.

The key names everything that changes the answer: the account (results never cross
accounts), the exact bytes, and every version and setting of the extraction. It says
nothing about who may read: that is `identity.Caller`'s job.
"""
from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass


class CacheMode(str, enum.Enum):
    ON = "on"          # serve finished results, join in-flight work
    OFF = "off"        # no finished-result cache; in-flight joining stays on
    SHADOW = "shadow"  # neither serve nor join; only record what would have been saved

    @property
    def serves_results(self) -> bool:
        return self is CacheMode.ON

    @property
    def joins_in_flight(self) -> bool:
        return self is not CacheMode.SHADOW

    @property
    def records_results(self) -> bool:
        # Shadow mode keeps entries so that would-be hits can be counted.
        return self is not CacheMode.OFF


@dataclass(frozen=True)
class ExtractorVersions:
    schema: str
    preprocessing: str
    model: str
    model_config_digest: str

    @property
    def label(self) -> str:
        """All four in one readable string: stored on each job, compared by each claim."""
        return "/".join([self.schema, self.preprocessing, self.model, self.model_config_digest])


@dataclass(frozen=True)
class CacheKey:
    account: str
    content_hash: str
    versions: ExtractorVersions

    @property
    def digest(self) -> str:
        """A stable hex digest; also the request hash written to the call ledger."""
        v = self.versions
        parts = [self.account, self.content_hash, v.schema, v.preprocessing, v.model,
                 v.model_config_digest]
        return _digest(parts)


@dataclass(frozen=True)
class UploadRequest:
    """What defines one upload operation, for idempotency: same key, same request."""
    account: str
    content_hash: str
    fresh: bool  # Cache-Control: no-cache

    @property
    def request_hash(self) -> str:
        return _digest(["extract_invoice", self.account, self.content_hash, str(self.fresh)])


@dataclass(frozen=True)
class RetryRequest:
    """A new attempt for a failed invoice, for idempotency: same key, same invoice."""
    account: str
    invoice_id: str

    @property
    def request_hash(self) -> str:
        return _digest(["retry_invoice", self.account, self.invoice_id])


def supersedes(started_at, current_started_at) -> bool:
    """A finished extraction replaces the cache's current result only if it started later.

    So a slow extraction that ends after a fresh one (`Cache-Control: no-cache`) never
    overwrites it: the current result is always the most recently started extraction. An
    entry without a start time (written before this rule) is older than any.
    """
    return current_started_at is None or started_at > current_started_at


def _digest(parts: list[str]) -> str:
    encoded = json.dumps(parts, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()
