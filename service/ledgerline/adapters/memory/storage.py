"""The object store port in memory: each object's bytes, checked against the digest the
caller sent as the local and S3 stores check theirs."""
from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Iterator
from typing import BinaryIO

from ...ports.clock import Clock, SystemClock
from ...ports.storage import (ORIGINALS_PREFIX, IntegrityError, ObjectNotFound, StoredObject,
                             Writable)


class MemoryObjectStore:
    def __init__(self, clock: Clock | None = None):
        self._clock = clock or SystemClock()
        self._objects: dict[str, StoredObject] = {}
        self._bytes: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put_file(self, key: str, source: str | bytes, sha256: bytes) -> None:
        if isinstance(source, bytes):
            data = source
        else:
            with open(source, "rb") as f:
                data = f.read()
        if hashlib.sha256(data).digest() != sha256:
            raise IntegrityError(f"checksum mismatch writing {key}")
        with self._lock:
            self._bytes[key] = data
            self._objects[key] = StoredObject(key, len(data), self._clock.now())

    def get_to_file(self, key: str, dest: Writable) -> None:
        dest.write(self._get(key))

    def open_stream(self, key: str) -> BinaryIO:
        return io.BytesIO(self._get(key))

    def _get(self, key: str) -> bytes:
        with self._lock:
            if key not in self._bytes:
                raise ObjectNotFound(key)
            return self._bytes[key]

    def exists(self, key: str) -> bool:
        with self._lock:
            return key in self._bytes

    def delete(self, key: str) -> None:
        with self._lock:
            self._bytes.pop(key, None)
            self._objects.pop(key, None)

    def delete_prefix(self, prefix: str) -> int:
        with self._lock:
            keys = [key for key in self._bytes if key.startswith(prefix)]
            for key in keys:
                del self._bytes[key]
                del self._objects[key]
        return len(keys)

    def list_originals(self) -> Iterator[StoredObject]:
        with self._lock:
            found = [o for key, o in sorted(self._objects.items())
                     if key.startswith(ORIGINALS_PREFIX)]
        yield from found

    def check(self) -> None:
        pass
