"""The worker's fetch of an original, checked against the content hash it is stored under.

Originals are content-addressed: a job names the BLAKE3 hash of the bytes its upload received,
so what any store hands back is hashed as it is written and compared with it. That covers the
bytes end to end, from the upload's spool to the worker's, a stronger check than the store's
own checksum (which the S3 fetch leaves out for it: adapters/s3_signed.py).
"""
from __future__ import annotations

import blake3

from ..ports.storage import ObjectStore, Writable


class CorruptOriginal(Exception):
    """The stored bytes are not the uploaded file's: they hash to something else."""


class _Hashing:
    """A file being written, hashing what goes through."""

    def __init__(self, dest: Writable):
        self.dest = dest
        self.hasher = blake3.blake3()

    def write(self, data: bytes) -> None:
        self.hasher.update(data)
        self.dest.write(data)


def fetch_original(store: ObjectStore, key: str, content_hash: str, dest: Writable) -> None:
    """Write the original under `key` to `dest`, raising CorruptOriginal when its bytes do not
    hash to `content_hash` ("blake3:<hex>"); the store's own errors pass through."""
    hashing = _Hashing(dest)
    store.get_to_file(key, hashing)
    got = f"blake3:{hashing.hasher.hexdigest()}"
    if got != content_hash:
        raise CorruptOriginal(f"the stored original {key} hashes to {got}, not to the uploaded "
                              f"file's {content_hash}")
