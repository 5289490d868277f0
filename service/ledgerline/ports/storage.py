"""The object store port: originals kept by key, one interface for every backend.

Keys derive from the content digest inside the account's namespace; a file name never becomes
part of a key. Each backend (adapters/storage.py: a local directory, S3; adapters/memory) turns
its own errors into this port's: `ObjectNotFound` and `StorageUnavailable`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


class StorageUnavailable(Exception):
    """The store did not answer, or refused for a reason of its own; nothing was changed."""


class ObjectNotFound(Exception):
    """No object under that key."""


class IntegrityError(StorageUnavailable):
    """The store did not receive the bytes we sent."""


ORIGINALS_PREFIX = "accounts/"


def account_prefix(account: str) -> str:
    """Everything the store holds for an account lives under this prefix."""
    return f"accounts/{account}/"


def original_key(account: str, content_hash: str) -> str:
    algorithm, _, digest = content_hash.partition(":")
    return f"accounts/{account}/originals/{algorithm}/{digest[:2]}/{digest}"


def parse_original_key(key: str) -> tuple[str, str] | None:
    """(account, content hash) of a key made by original_key, else None."""
    parts = key.split("/")
    if len(parts) != 6 or parts[0] != "accounts" or parts[2] != "originals":
        return None
    content_hash = f"{parts[3]}:{parts[5]}"
    if parts[4] == parts[5][:2] and original_key(parts[1], content_hash) == key:
        return parts[1], content_hash
    return None


class Writable(Protocol):
    """Where a fetch writes: an open file, the worker's spool file, a hashing wrapper."""

    def write(self, data: bytes, /) -> object: ...


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    modified_at: datetime  # aware, UTC


class ObjectStore(Protocol):
    def put_file(self, key: str, source: str | bytes, sha256: bytes) -> None:
        """Store the file at `source` (a path), or `source` itself (its bytes), durably;
        `sha256` is its digest, verified by the store."""

    def get_to_file(self, key: str, dest: Writable) -> None: ...

    def open_stream(self, key: str): ...

    def exists(self, key: str) -> bool: ...

    def delete(self, key: str) -> None:
        """Remove the object, every version of it in a versioned bucket; a missing one is
        not an error."""

    def delete_prefix(self, prefix: str) -> int:
        """Remove every object (every version) whose key starts with `prefix`; how many."""

    def list_originals(self) -> Iterator[StoredObject]:
        """Every object under ORIGINALS_PREFIX (for the retention purge)."""

    def check(self) -> None:
        """Raise StorageUnavailable unless the store answers."""
