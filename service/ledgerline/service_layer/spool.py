"""Stream an upload to a temporary file, hashing it and enforcing the size cap mid-read."""
from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from typing import BinaryIO

import blake3

from ..domain.errors import EmptyBody, NotPdf, TooLarge

CHUNK = 256 * 1024
# The PDF specification lets readers accept a header within the first 1024 bytes.
PDF_HEADER_WINDOW = 1024


@dataclass
class Spooled:
    path: str
    size: int
    content_hash: str  # "blake3:<hex>"

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
    """Copy `stream` to a temp file. Raises TooLarge, EmptyBody or NotPdf, leaving nothing."""
    hasher = blake3.blake3()
    size = 0
    head = b""
    fd, path = tempfile.mkstemp(prefix="upload-", suffix=".pdf", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := stream.read(CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise TooLarge(f"the upload is larger than {max_bytes} bytes")
                if len(head) < PDF_HEADER_WINDOW:
                    head += chunk[:PDF_HEADER_WINDOW]
                hasher.update(chunk)
                out.write(chunk)
        if size == 0:
            raise EmptyBody("the request body is empty; send the PDF bytes")
        if b"%PDF-" not in head[:PDF_HEADER_WINDOW]:
            raise NotPdf("the body is not a PDF document (no %PDF- header)")
    except BaseException:
        os.unlink(path)
        raise
    return Spooled(path=path, size=size, content_hash=f"blake3:{hasher.hexdigest()}")
