"""Take in an upload, hashing it and enforcing the size cap mid-read.

An upload that fits in IN_MEMORY_BYTES stays in memory, and no file is ever written for it: a
cache hit, the common case, never creates, writes and deletes a temporary file (a tenth of a
hit's time in process), and a miss hands the object store the bytes themselves. A larger one
streams to a temporary file as it arrives, so an API process holds at most IN_MEMORY_BYTES of
each upload.

A body is whole only when it holds every byte its Content-Length announced: a server hands the
application a connection's early end as the end of the body, so the spool counts (a chunked
body cut short is refused by the server's reader, http/gevent_worker.py). A spool that cannot
be written (a full disk, a missing directory) is the server's trouble, not the client's:
SpoolUnavailable, a 503.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from typing import BinaryIO

import blake3

from ..domain.errors import (BodyIncomplete, EmptyBody, SpoolUnavailable, TooLarge,
                             UnsupportedFormat)
from ..formats import ACCEPTED, HEAD_BYTES, Format, accepted_names, detect
from .local_disk import WriteFailed, writing

CHUNK = 256 * 1024
IN_MEMORY_BYTES = CHUNK  # a typical invoice PDF is 50-200 KiB


@dataclass
class Spooled:
    size: int
    content_hash: str  # "blake3:<hex>"
    format: Format = Format.PDF  # told by the content, never by a name or header
    held: bytes | None = None  # the upload, when it fits in memory
    _path: str | None = field(default=None, repr=False)  # its file, when it did not

    def source(self) -> str | bytes:
        """What the object store writes: the upload's bytes when held in memory (a miss
        writes no spool file for them, to read back and delete), else the path of its file."""
        if self.held is not None:
            return self.held
        if self._path is None:  # never: spool() holds the bytes or writes their file
            raise ValueError("a spooled upload holds its bytes or has a file")
        return self._path

    def sha256(self) -> bytes:
        """The SHA-256 the object store verifies; computed only when the bytes are written."""
        if self.held is not None:
            return hashlib.sha256(self.held).digest()
        digest = hashlib.sha256()
        with open(self._path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        return digest.digest()

    def discard(self) -> None:
        if self._path is not None:
            try:
                os.unlink(self._path)
            except FileNotFoundError:
                pass


def spool(stream: BinaryIO, max_bytes: int, directory: str | None = None, *,
          expected_size: int | None = None) -> Spooled:
    """Read `stream` whole. Raises TooLarge, EmptyBody, BodyIncomplete (fewer bytes than
    `expected_size`, the Content-Length), UnsupportedFormat or SpoolUnavailable, leaving
    nothing."""
    hasher = blake3.blake3()
    head, held, size = b"", bytearray(), 0
    out, path = None, None
    try:
        while chunk := stream.read(CHUNK):
            size += len(chunk)
            if size > max_bytes:
                raise TooLarge(f"the upload is larger than {max_bytes} bytes")
            if len(head) < HEAD_BYTES:
                head += chunk[:HEAD_BYTES]
            hasher.update(chunk)
            with _writing():
                if out is None and size > IN_MEMORY_BYTES:  # too large to hold: to a file
                    fd, path = tempfile.mkstemp(prefix="upload-", dir=directory)
                    out = os.fdopen(fd, "wb")
                    out.write(held)
                    held.clear()
                if out is None:
                    held += chunk
                else:
                    out.write(chunk)
        if out is not None:
            with _writing():
                out.close()
        if expected_size is not None and size < expected_size:
            raise BodyIncomplete(f"the body ended after {size} of the {expected_size} bytes "
                                 "its Content-Length announced; nothing was accepted. Send it "
                                 "again (with the same Idempotency-Key)")
        if size == 0:
            raise EmptyBody("the request body is empty; send the document's bytes")
        kind = detect(head)
        if kind not in ACCEPTED:
            raise UnsupportedFormat(f"the body is not an accepted document format; "
                                    f"accepted: {accepted_names()}")
    except BaseException:
        if out is not None:
            with contextlib.suppress(OSError):
                out.close()
        if path is not None:
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise
    return Spooled(size=size, content_hash=f"blake3:{hasher.hexdigest()}", format=kind,
                   held=None if out else bytes(held), _path=path)


@contextlib.contextmanager
def _writing():
    """A write of the spool: its failure is the server's (SpoolUnavailable), never the body's."""
    try:
        with writing():
            yield
    except WriteFailed as exc:
        raise SpoolUnavailable(f"the server could not write the upload to its spool "
                               f"({exc.why}); nothing was accepted. Retry later") from exc
