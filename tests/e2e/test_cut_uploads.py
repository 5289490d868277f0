"""Uploads whose connection ends before the body does, through `ledgerline serve` (gunicorn,
gevent) on the embedded default and on PostgreSQL + S3.

A body shorter than its Content-Length, or a chunked body without its last chunk, is refused
with 400 `body_incomplete` and leaves nothing behind: no original, invoice, job, idempotency
record or ledger row. The retry with the whole file and the same Idempotency-Key is then a
first upload, and `ledgerline upload` through a proxy that cuts its first connection uploads
every file exactly once.
"""
from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
import requests
from sqlalchemy import create_engine, text

from ledgerline_tools.samples import generate
from tests.conftest import make_tenant
from tests.e2e.service import ledgerline, served, service_env
from tests.fakes import ControlledExtractor
from tests.loopback_proxy import LoopbackProxy, close, pump

ROWS = ("invoices", "jobs", "model_calls", "blobs")


@pytest.fixture
def service(backend, tmp_path, make_services):
    services = make_services(extractor=ControlledExtractor(), rate_limit_per_minute=0)
    tenant = make_tenant(services, "acme")
    env = service_env(backend, tmp_path, LEDGERLINE_RATE_LIMIT_PER_MINUTE="0")
    with served(env, "--workers", "1", log_path=tmp_path / "serve.log") as base:
        yield Served(base, env, backend, tenant.keys["customer"], tmp_path)


class Served:
    def __init__(self, base, env, backend, key, tmp_path):
        self.base, self.env, self.backend, self.key = base, env, backend, key
        self.tmp_path = tmp_path
        self.port = int(base.rsplit(":", 1)[1])

    def counts(self) -> dict:
        engine = create_engine(self.backend.database_url)
        try:
            with engine.connect() as conn:
                return {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t in ROWS}
        finally:
            engine.dispose()

    def stored_objects(self) -> int:
        if self.backend.name == "embedded":
            root = Path(self.backend.storage_url.removeprefix("file://"))
            return sum(1 for p in root.rglob("*") if p.is_file()) if root.exists() else 0
        import boto3

        bucket, _, prefix = self.backend.storage_url.removeprefix("s3://").partition("/")
        s3 = boto3.client("s3", endpoint_url=self.env["AWS_ENDPOINT_URL_S3"])
        return s3.list_objects_v2(Bucket=bucket, Prefix=prefix + "/").get("KeyCount", 0)

    def cut_upload(self, head: bytes, sent: bytes) -> dict:
        """Send `head` and `sent`, end the sending side, and read the answer."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
            sock.sendall(head + sent)
            sock.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        status_line, _, rest = answer.partition(b"\r\n")
        body = rest.split(b"\r\n\r\n", 1)[1]
        return {"status": int(status_line.split()[1]), "problem": json.loads(body)}

    def head(self, key: str, **headers) -> bytes:
        headers = {"Content-Type": "application/pdf", **headers}
        lines = ["POST /v1/accounts/acme/invoices HTTP/1.1", f"Host: 127.0.0.1:{self.port}",
                 f"Authorization: Bearer {self.key}", f'Idempotency-Key: "{key}"',
                 *(f"{k}: {v}" for k, v in headers.items())]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_cut_body_stores_nothing_and_its_retry_is_a_first_upload(service):
    pdf = generate(5, lang="de")[0]
    before = service.counts()
    assert service.stored_objects() == 0
    cuts = {"40 %": int(len(pdf) * 0.4), "99 %": len(pdf) - 1, "headers only": 0}
    for name, cut in cuts.items():
        answer = service.cut_upload(
            service.head(f"po-{cut}", **{"Content-Length": str(len(pdf))}), pdf[:cut])
        assert answer["status"] == 400, (name, answer)
        assert answer["problem"]["code"] == "body_incomplete", (name, answer)
    # A chunked body without its last chunk (the terminating "0" chunk never comes).
    part = pdf[: len(pdf) // 2]
    chunked = f"{len(part):x}\r\n".encode() + part + b"\r\n"
    answer = service.cut_upload(service.head("po-chunked", **{"Transfer-Encoding": "chunked"}),
                                chunked)
    assert answer["status"] == 400 and answer["problem"]["code"] == "body_incomplete", answer
    # A form whose file part is cut, and one cut just before its closing boundary ends.
    form = (b'--cut\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
            b"Content-Type: application/pdf\r\n\r\n" + pdf + b"\r\n--cut--\r\n")
    for cut in (len(form) // 2, len(form) - 1):
        answer = service.cut_upload(service.head(
            f"po-form-{cut}", **{"Content-Length": str(len(form)),
                                 "Content-Type": "multipart/form-data; boundary=cut"}),
            form[:cut])
        assert answer["status"] == 400, answer
        assert answer["problem"]["code"] == "body_incomplete", answer
    # Nothing anywhere: no original, invoice, job (so no idempotency record) or ledger row.
    assert service.counts() == before
    assert service.stored_objects() == 0

    # The whole file under each key it was cut under: a first upload, never a reused key.
    for key in [*(f"po-{cut}" for cut in cuts.values()), "po-chunked"]:
        whole = requests.post(f"{service.base}/v1/accounts/acme/invoices", data=pdf, timeout=90,
                              headers={"Authorization": f"Bearer {service.key}",
                                       "Content-Type": "application/pdf",
                                       "Idempotency-Key": f'"{key}"', "Prefer": "wait=60"})
        assert whole.status_code in (201, 202), whole.text
        assert "Idempotent-Replayed" not in whole.headers
    after = service.counts()
    assert after["invoices"] == before["invoices"] + len(cuts) + 1
    assert after["blobs"] == before["blobs"] + 1
    assert after["model_calls"] == before["model_calls"] + 1  # one file, one model call


class CuttingProxy(LoopbackProxy):
    """A proxy to `port` that forwards only the first `cut` bytes of its first connection's
    request. `answered=False`: it then closes both sides (the client sees the connection
    break); `answered=True`: it ends the request there for the server, swallows the rest of
    the client's bytes and relays the server's answer (the client reads the 400)."""

    def __init__(self, port: int, cut: int, *, answered: bool):
        self.cut, self.answered = cut, answered
        self.cuts = 0  # requests cut short
        super().__init__(port)

    def connection(self, client: socket.socket, number: int) -> None:
        upstream = self.upstream()
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
        limit = self.cut if number == 1 else None
        sent = 0
        try:
            while data := client.recv(65536):
                if limit is not None and sent + len(data) >= limit:
                    upstream.sendall(data[: limit - sent])
                    self.cuts += 1
                    if not self.answered:
                        break
                    upstream.shutdown(socket.SHUT_WR)
                    while client.recv(65536):  # the rest of the body goes nowhere
                        pass
                    return
                upstream.sendall(data)
                sent += len(data)
        except OSError:
            pass
        close(client, upstream)


@pytest.mark.parametrize("answered", [False, True], ids=["connection-broken", "answered-400"])
def test_the_batch_client_through_a_proxy_that_cuts_its_first_request(service, tmp_path,
                                                                      answered):
    folder = tmp_path / "invoices"
    folder.mkdir()
    for seed in (21, 22, 23):
        (folder / f"invoice-{seed}.pdf").write_bytes(generate(seed, lang="en")[0])
    proxy = CuttingProxy(service.port, cut=2000, answered=answered)  # headers, part of a body
    try:
        out = ledgerline(service.env, "upload", "--url", proxy.url, "--account", "acme",
                         "--key", service.key, "--wait", "--format", "json", str(folder),
                         check=False)
    finally:
        proxy.close()
    rows = json.loads(out.stdout)["files"]
    # One upload was cut; its retry went through another connection (a new one, or one a
    # finished upload left open), and each file was taken exactly once.
    assert proxy.cuts == 1 and proxy.connections >= 2
    assert [r["status"] for r in rows] == ["completed"] * 3, out.stdout + out.stderr
    assert all(r["cache"] == "miss" for r in rows), rows
    counts = service.counts()
    assert counts["invoices"] == 3 and counts["jobs"] == 3 and counts["model_calls"] == 3
