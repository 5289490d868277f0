"""Object storage for originals: a local directory (embedded default) or S3, both behind
the object store port (ports/storage.py), whose errors they raise for their vendors' own.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlparse

from ..ports.storage import (ORIGINALS_PREFIX, IntegrityError, ObjectNotFound, ObjectStore,
                             StorageUnavailable, StoredObject, Writable)

S3_DELETE_BATCH = 1000  # DeleteObjects takes at most this many keys


def _chunks(source: str | bytes) -> Iterator[bytes]:
    """The bytes of an object to store: `source` itself, or read from the file it names."""
    if isinstance(source, bytes):
        yield source
        return
    with open(source, "rb") as src:
        while chunk := src.read(1 << 20):
            yield chunk


def _body(source: str | bytes) -> BinaryIO:
    """A request body of the object to store, as a file object the caller closes."""
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")


class LocalObjectStore:
    def __init__(self, root: str):
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if self.root not in path.parents:
            raise ValueError(f"key escapes the store: {key!r}")
        return path

    def put_file(self, key: str, source: str | bytes, sha256: bytes) -> None:
        dest = self._path(key)
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".incoming-")
            try:
                digest = hashlib.sha256()
                with os.fdopen(fd, "wb") as out:
                    for chunk in _chunks(source):
                        digest.update(chunk)
                        out.write(chunk)
                    out.flush()
                    os.fsync(out.fileno())
                if digest.digest() != sha256:
                    raise IntegrityError(f"checksum mismatch writing {key}")
                os.replace(tmp, dest)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            _fsync_dir(dest.parent)
        except OSError as exc:
            raise StorageUnavailable(f"cannot write {key}: {exc.strerror}") from exc

    def get_to_file(self, key: str, dest: Writable) -> None:
        with self.open_stream(key) as src:
            shutil.copyfileobj(src, dest, 1 << 20)

    def open_stream(self, key: str):
        try:
            return open(self._path(key), "rb")
        except FileNotFoundError:
            raise ObjectNotFound(key) from None
        except OSError as exc:
            raise StorageUnavailable(str(exc)) from exc

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete(self, key: str) -> None:
        try:
            self._path(key).unlink(missing_ok=True)
        except OSError as exc:
            raise StorageUnavailable(f"cannot delete {key}: {exc.strerror}") from exc

    def delete_prefix(self, prefix: str) -> int:
        base = self._path(prefix.rstrip("/"))
        if not base.is_dir():
            return 0
        removed = sum(1 for path in base.rglob("*") if path.is_file())
        try:
            shutil.rmtree(base)
        except OSError as exc:
            raise StorageUnavailable(f"cannot delete {prefix}: {exc.strerror}") from exc
        return removed

    def list_originals(self) -> Iterator[StoredObject]:
        base = self.root / ORIGINALS_PREFIX
        for path in sorted(base.rglob("*")) if base.is_dir() else []:
            if path.is_file() and not path.name.startswith(".incoming-"):
                info = path.stat()
                yield StoredObject(str(path.relative_to(self.root)), info.st_size,
                                   datetime.fromtimestamp(info.st_mtime, timezone.utc))

    def check(self) -> None:
        if not os.access(self.root, os.W_OK):
            raise StorageUnavailable(f"{self.root} is not writable")


class S3ObjectStore:
    """Timeouts are short on purpose: a store that hangs (rather than refusing connections)
    must turn into StorageUnavailable, and an upload into a 503, within seconds, not after
    botocore's 60 s read timeout times its retries. The readiness probe is shorter still."""

    def __init__(self, bucket: str, prefix: str = "", client=None):
        import boto3
        from botocore.config import Config

        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.client = client or boto3.client("s3", config=Config(
            connect_timeout=2, read_timeout=5, retries={"max_attempts": 2, "mode": "standard"}))
        self._probe = client or boto3.client("s3", config=Config(
            connect_timeout=1, read_timeout=2, retries={"max_attempts": 1, "mode": "standard"}))
        from botocore.exceptions import BotoCoreError, ClientError

        from .s3_signed import SignedRequests  # botocore's parts: imported with boto3
        self._errors = (BotoCoreError, ClientError)
        self._signed = SignedRequests(self.client, bucket)

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def s3_location(self, key: str) -> dict:
        """Where a service that reads S3 itself (Textract) finds the object."""
        return {"Bucket": self.bucket, "Name": self._key(key)}

    def put_file(self, key: str, source: str | bytes, sha256: bytes) -> None:
        """A signed PUT over the client's connections (s3_signed.py), checked by the store
        against `sha256`; anything but a 200 goes to the client's PutObject, with its retries
        and error codes."""
        if self._signed.put(self._key(key), source, sha256):
            return
        try:
            with _body(source) as body:
                self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=body,
                                       ChecksumSHA256=base64.b64encode(sha256).decode())
        except self._errors as exc:
            raise StorageUnavailable(f"cannot store {key}: {exc}") from exc

    def get_to_file(self, key: str, dest: Writable) -> None:
        """The worker's fetch: a signed GET over the client's connections (s3_signed.py), or
        the client's GetObject for whatever that does not handle."""
        if self._signed.to_file(self._key(key), dest):
            return
        body = self.open_stream(key)
        try:
            shutil.copyfileobj(body, dest, 1 << 20)
        except self._errors as exc:
            raise StorageUnavailable(str(exc)) from exc
        finally:
            body.close()

    def open_stream(self, key: str):
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"]
        except self._errors as exc:
            if _s3_code(exc) in ("NoSuchKey", "404"):
                raise ObjectNotFound(key) from None
            raise StorageUnavailable(str(exc)) from exc

    def exists(self, key: str) -> bool:
        """A signed HEAD over the client's connections (s3_signed.py) when the object is there,
        the common case (an upload checks the original it just wrote); else the client's
        HeadObject, with its retries and error codes."""
        if self._signed.found(self._key(key)):
            return True
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._key(key))
            return True
        except self._errors as exc:
            if _s3_code(exc) in ("NoSuchKey", "404", "NotFound"):
                return False
            raise StorageUnavailable(str(exc)) from exc

    def delete(self, key: str) -> None:
        """Every version and delete marker of the key (on an unversioned bucket, the one
        'null' version): in a versioned bucket a plain DELETE would only hide the bytes."""
        self._delete_versions(self._key(key), exact=True)

    def delete_prefix(self, prefix: str) -> int:
        return self._delete_versions(self._key(prefix), exact=False)

    def _delete_versions(self, key: str, *, exact: bool) -> int:
        removed = 0
        try:
            pages = self.client.get_paginator("list_object_versions").paginate(
                Bucket=self.bucket, Prefix=key)
            for page in pages:
                found = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                         for v in page.get("Versions", []) + page.get("DeleteMarkers", [])
                         if not exact or v["Key"] == key]
                for start in range(0, len(found), S3_DELETE_BATCH):
                    chunk = found[start:start + S3_DELETE_BATCH]
                    answer = self.client.delete_objects(
                        Bucket=self.bucket, Delete={"Objects": chunk, "Quiet": True})
                    if answer.get("Errors"):
                        raise StorageUnavailable(f"cannot delete {key}: {answer['Errors'][0]}")
                    removed += len(chunk)
        except self._errors as exc:
            raise StorageUnavailable(f"cannot delete {key}: {exc}") from exc
        return removed

    def list_originals(self) -> Iterator[StoredObject]:
        strip = len(self._key(""))
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=self._key(ORIGINALS_PREFIX))
            for page in pages:
                for item in page.get("Contents", []):
                    yield StoredObject(item["Key"][strip:], item["Size"],
                                       item["LastModified"].astimezone(timezone.utc))
        except self._errors as exc:
            raise StorageUnavailable(f"cannot list the originals: {exc}") from exc

    def check(self) -> None:
        try:
            self._probe.head_bucket(Bucket=self.bucket)
        except self._errors as exc:
            raise StorageUnavailable(str(exc)) from exc


def open_store(url: str) -> ObjectStore:
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return LocalObjectStore(parsed.netloc + parsed.path)
    if parsed.scheme == "s3":
        if not parsed.netloc:
            raise ValueError("LEDGERLINE_STORAGE_URL must name a bucket: s3://BUCKET[/PREFIX]")
        return S3ObjectStore(parsed.netloc, parsed.path)
    raise ValueError(f"unsupported LEDGERLINE_STORAGE_URL scheme: {parsed.scheme!r}")


def _s3_code(exc) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
