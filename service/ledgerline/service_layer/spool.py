"""Stream an upload to a temporary file, hashing it and enforcing the size cap mid-read."""
from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from typing import BinaryIO

import blake3

from ..domain.errors import EmptyBody, TooLarge, UnsupportedFormat
from ..formats import ACCEPTED, HEAD_BYTES, Format, accepted_names, detect

CHUNK = 256 * 1024


@dataclass
class Spooled:
    path: str
    size: int
    content_hash: str  # "blake3:<hex>"
    format: Format = Format.PDF  # told by the content, never by a name or header

    def sha256(self) -> bytes:
        """The SHA-256 the object store verifies; computed only when the bytes are written."""
        digest = hashlib.sha256()
        with open(self.path, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        return digest.digest()

    def discard(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def spool(stream: BinaryIO, max_bytes: int, directory: str | None = None) -> Spooled:
    """Copy `stream` to a temp file. Raises TooLarge, EmptyBody or UnsupportedFormat, leaving
    nothing."""
    hasher = blake3.blake3()
    size = 0
    head = b""
    fd, path = tempfile.mkstemp(prefix="upload-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := stream.read(CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise TooLarge(f"the upload is larger than {max_bytes} bytes")
                if len(head) < HEAD_BYTES:
                    head += chunk[:HEAD_BYTES]
                hasher.update(chunk)
                out.write(chunk)
        if size == 0:
            raise EmptyBody("the request body is empty; send the document's bytes")
        kind = detect(head)
        if kind not in ACCEPTED:
            raise UnsupportedFormat(f"the body is not an accepted document format; "
                                    f"accepted: {accepted_names()}")
    except BaseException:
        os.unlink(path)
        raise
    return Spooled(path=path, size=size, content_hash=f"blake3:{hasher.hexdigest()}",
                   format=kind)
