"""The worker's fetch from S3 (adapters/s3_signed.py): one GET signed by botocore's signer over
the client's own connections, against a SeaweedFS that checks every signature as S3 does;
whatever is not a 200 goes to the client's GetObject, with its retries and its errors."""
from __future__ import annotations

import hashlib
import io
import json
import socket
import sys
import threading
import uuid
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from ledgerline.adapters.storage import S3ObjectStore, open_store
from ledgerline.ports.storage import ObjectNotFound, StorageUnavailable, original_key
from tests.conftest import BUCKET
from tests.loopback_proxy import LoopbackProxy, close, pump
from tests.servers import seaweed_s3_server

DATA = b"%PDF-1.7\n" + bytes(range(256)) * 600  # 150 KiB: more than one read of the socket
KEY = original_key("acme", "blake3:" + "ab" * 32)


@pytest.fixture(scope="module")
def signed_s3():
    with seaweed_s3_server(authenticated=True) as s3:
        s3.create_bucket(BUCKET)
        yield s3


@pytest.fixture
def prefix(signed_s3, monkeypatch, tmp_path) -> str:
    """A fresh prefix holding DATA under KEY, stored through the server's own endpoint."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    path = tmp_path / "original.pdf"
    path.write_bytes(DATA)
    store_at(signed_s3, monkeypatch, name).put_file(KEY, str(path),
                                                   hashlib.sha256(DATA).digest())
    return name


def store_at(s3, monkeypatch, prefix: str, endpoint: str | None = None,
             secret: str | None = None) -> S3ObjectStore:
    """The service's own store, built as in production from boto3's environment."""
    for name, value in {**s3.env, "AWS_ENDPOINT_URL_S3": endpoint or s3.endpoint_url,
                        "AWS_SECRET_ACCESS_KEY": secret or s3.secret_key}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # it keeps the credentials it found
    store = open_store(f"s3://{BUCKET}/{prefix}")
    assert isinstance(store, S3ObjectStore)
    return store


def client_get_objects(store: S3ObjectStore) -> list:
    """Each GetObject the store's boto3 client makes, from now on."""
    calls: list = []
    store.client.meta.events.register("before-call.s3.GetObject",
                                      lambda **kwargs: calls.append(kwargs))
    return calls


def fetched(store: S3ObjectStore, key: str = KEY) -> bytes:
    out = io.BytesIO()
    store.get_to_file(key, out)
    return out.getvalue()


def test_the_fetch_is_a_signed_get_over_the_clients_connections(signed_s3, monkeypatch, prefix):
    with FaultyProxy(signed_s3.port, []) as proxy:  # counts the connections
        store = store_at(signed_s3, monkeypatch, prefix, endpoint=proxy.url)
        through_client = client_get_objects(store)
        assert fetched(store) == DATA
        assert fetched(store) == DATA
    assert through_client == []
    assert proxy.connections == 1  # kept alive from one fetch to the next
    with pytest.raises(ObjectNotFound):  # a 404: the client's GetObject says which
        fetched(store, original_key("acme", "blake3:" + "00" * 32))
    assert len(through_client) == 1


def test_the_existence_check_is_a_signed_head_over_the_clients_connections(
        signed_s3, monkeypatch, prefix):
    with FaultyProxy(signed_s3.port, []) as proxy:
        store = store_at(signed_s3, monkeypatch, prefix, endpoint=proxy.url)
        through_client: list = []
        store.client.meta.events.register("before-call.s3.HeadObject",
                                          lambda **kwargs: through_client.append(kwargs))
        assert store.exists(KEY) and store.exists(KEY)
        assert through_client == []
        assert fetched(store) == DATA  # on the same kept-alive connection
        assert proxy.connections == 1
        # a 404 (or a refusal) goes to the client's HeadObject, which tells a missing object
        assert not store.exists(original_key("acme", "blake3:" + "00" * 32))
    assert len(through_client) == 1
    wrong = store_at(signed_s3, monkeypatch, prefix, secret="not-the-secret")
    with pytest.raises(StorageUnavailable):
        wrong.exists(KEY)


def test_the_write_is_a_signed_put_over_the_clients_connections(signed_s3, monkeypatch, prefix,
                                                                tmp_path):
    path = tmp_path / "another.pdf"
    path.write_bytes(DATA[::-1])
    key = original_key("acme", "blake3:" + "cd" * 32)
    with FaultyProxy(signed_s3.port, []) as proxy:
        store = store_at(signed_s3, monkeypatch, prefix, endpoint=proxy.url)
        through_client: list = []
        store.client.meta.events.register("before-call.s3.PutObject",
                                          lambda **kwargs: through_client.append(kwargs))
        store.put_file(key, str(path), hashlib.sha256(DATA[::-1]).digest())
        assert fetched(store, key) == DATA[::-1]
        assert proxy.connections == 1
    assert through_client == []
    wrong = store_at(signed_s3, monkeypatch, prefix, secret="not-the-secret")
    with pytest.raises(StorageUnavailable):
        wrong.put_file(key, str(path), hashlib.sha256(DATA[::-1]).digest())


def test_a_write_whose_bytes_do_not_match_their_checksum_is_refused(signed_s3, monkeypatch,
                                                                    prefix, tmp_path):
    path = tmp_path / "damaged.pdf"
    path.write_bytes(DATA[:-1] + b"X")
    key = original_key("acme", "blake3:" + "ef" * 32)
    store = store_at(signed_s3, monkeypatch, prefix)
    with pytest.raises(StorageUnavailable):
        store.put_file(key, str(path), hashlib.sha256(DATA).digest())
    assert not store.exists(key)


def test_this_server_refuses_a_wrong_signature(signed_s3, monkeypatch, prefix):
    """Else the test above would pass with any signature."""
    store = store_at(signed_s3, monkeypatch, prefix, secret="not-the-secret")
    through_client = client_get_objects(store)
    with pytest.raises(StorageUnavailable, match="SignatureDoesNotMatch|AccessDenied"):
        fetched(store)
    assert len(through_client) == 1  # the 403 went to the client, which reported it


def test_a_dropped_connection_then_a_503_are_retried_until_the_bytes_arrive(
        signed_s3, monkeypatch, prefix):
    with FaultyProxy(signed_s3.port, ["drop", "503"]) as proxy:
        store = store_at(signed_s3, monkeypatch, prefix, endpoint=proxy.url)
        through_client = client_get_objects(store)
        assert fetched(store) == DATA
    # the signed GET lost its connection; the client's first try got the 503, its retry the
    # bytes
    assert proxy.connections == 3
    assert len(through_client) == 1


def test_a_body_cut_short_is_the_store_being_unavailable(signed_s3, monkeypatch, prefix):
    """Bytes already written cannot be taken back: the worker hands the job back instead."""
    with FaultyProxy(signed_s3.port, ["cut"]) as proxy:
        store = store_at(signed_s3, monkeypatch, prefix, endpoint=proxy.url)
        with pytest.raises(StorageUnavailable, match="broke off|bytes"):
            fetched(store)
        assert fetched(store) == DATA  # the next fetch, on a new connection


def test_credentials_come_from_boto3s_chain_and_are_refreshed(signed_s3, monkeypatch, prefix,
                                                             tmp_path):
    """Credentials that expire within botocore's refresh window are asked for again before
    each fetch is signed, here from a credential process (as from an instance role)."""
    runs, answer = tmp_path / "runs", tmp_path / "answer.json"
    answer.write_text(json.dumps({  # valid past botocore's mandatory refresh, 10 min, not 15
        "Version": 1, "AccessKeyId": signed_s3.access_key,
        "SecretAccessKey": signed_s3.secret_key,
        "Expiration": (datetime.now(UTC) + timedelta(minutes=12)).isoformat()}))
    script = tmp_path / "credentials.py"
    script.write_text(f"open({str(runs)!r}, 'a').write('run\\n')\n"
                      f"print(open({str(answer)!r}).read())\n")
    config = tmp_path / "config"
    config.write_text(f"[default]\ncredential_process = {sys.executable} {script}\n")
    store_at(signed_s3, monkeypatch, prefix)  # the endpoint and region
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    store = open_store(f"s3://{BUCKET}/{prefix}")
    assert isinstance(store, S3ObjectStore)
    through_client = client_get_objects(store)
    assert fetched(store) == DATA
    runs_before = runs.read_text().count("run")
    assert fetched(store) == DATA
    assert runs.read_text().count("run") > runs_before  # asked again for the second
    assert through_client == []


class FaultyProxy(LoopbackProxy):
    """A proxy to an S3 server whose first connections fail as planned, one fault each: "drop"
    closes the connection once a request arrived, "503" answers it with a 503 and closes,
    "cut" relays only the first CUT bytes of the answer; later connections pass everything."""

    CUT = 4096

    def __init__(self, port: int, faults: list[str]):
        self.faults = list(faults)
        super().__init__(port)

    def connection(self, client: socket.socket, number: int) -> None:
        fault = self.faults[number - 1] if number <= len(self.faults) else None
        if fault in ("drop", "503"):
            head = b""
            while b"\r\n\r\n" not in head and (data := client.recv(65536)):
                head += data
            if fault == "503":
                client.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                               b"Connection: close\r\n\r\n")
            close(client)
            return
        upstream = self.upstream()
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        pump(upstream, client, self.CUT if fault == "cut" else None)
