"""Every object store backend honours the same interface (ports/storage.py): the local
directory, S3, and the in-memory store the use cases' unit tests run on."""
from __future__ import annotations

import hashlib
import io
import uuid

import pytest

from ledgerline.adapters.memory import MemoryObjectStore
from ledgerline.adapters.storage import open_store
from ledgerline.ports.storage import ObjectNotFound, StorageUnavailable, original_key
from tests.conftest import BUCKET, s3_env


@pytest.fixture(params=["embedded", "production", "memory"])
def store(request, tmp_path, monkeypatch):
    if request.param == "memory":
        return MemoryObjectStore()
    if request.param == "embedded":
        return open_store(f"file://{tmp_path}/objects")
    for key, value in s3_env(request.getfixturevalue("s3_server")).items():
        monkeypatch.setenv(key, value)
    return open_store(f"s3://{BUCKET}/t_{uuid.uuid4().hex[:12]}")


def write(tmp_path, data: bytes) -> str:
    path = tmp_path / "upload.pdf"
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("given", ["file", "bytes"])
def test_put_then_get_returns_the_same_bytes(store, tmp_path, given):
    data = b"%PDF-1.7\n" + bytes(range(256)) * 5000
    key = original_key("acme", "blake3:" + "ab" * 32)
    source = write(tmp_path, data) if given == "file" else data  # a large upload's, a small's
    store.put_file(key, source, hashlib.sha256(data).digest())
    assert store.exists(key)
    out = io.BytesIO()
    store.get_to_file(key, out)
    assert out.getvalue() == data
    with store.open_stream(key) as body:
        assert body.read(8) == b"%PDF-1.7"


def test_missing_objects_are_not_found(store):
    key = original_key("acme", "blake3:" + "00" * 32)
    assert not store.exists(key)
    with pytest.raises(ObjectNotFound):
        store.get_to_file(key, io.BytesIO())
    with pytest.raises(ObjectNotFound):
        store.open_stream(key)


@pytest.mark.parametrize("given", ["file", "bytes"])
def test_a_wrong_checksum_is_refused_and_nothing_is_stored(store, tmp_path, given):
    data = b"%PDF-1.7\n corrupted in transit"
    key = original_key("acme", "blake3:" + "cd" * 32)
    source = write(tmp_path, data) if given == "file" else data
    with pytest.raises(StorageUnavailable):
        store.put_file(key, source, hashlib.sha256(b"other bytes").digest())
    assert not store.exists(key)


def test_keys_live_in_the_accounts_namespace_and_never_name_a_file():
    key = original_key("acme", "blake3:" + "ef" * 32)
    assert key.startswith("accounts/acme/originals/blake3/ef/")
    assert key.endswith("ef" * 32)


def test_a_reachable_store_is_ready(store):
    store.check()
