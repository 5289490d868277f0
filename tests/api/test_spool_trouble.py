"""An API process whose spool cannot be written: an upload too large to hold in memory is a 503
of its own, nothing is accepted, and `/readyz` says `spool: unavailable` until a write there
succeeds again. (One held in memory never touches the spool: the store takes its bytes.)"""
from __future__ import annotations

import shutil

from ledgerline.service_layer.spool import IN_MEMORY_BYTES
from tests.fakes import pdf_bytes

LIST = "/v1/accounts/acme/invoices"
LARGE = pdf_bytes("spool-trouble") + b"\n%" + b"x" * IN_MEMORY_BYTES  # streamed to the spool


def test_an_upload_the_spool_cannot_hold_is_a_503_and_readiness_follows_the_disk(api_env,
                                                                                 tmp_path):
    spool_dir = tmp_path / "spool"
    spool_dir.mkdir()
    client = api_env.app(spool_dir=str(spool_dir),
                         max_upload_bytes=2 * len(LARGE)).test_client()
    headers = {"Authorization": f"Bearer {api_env.acme.keys['customer']}",
               "Content-Type": "application/pdf", "Idempotency-Key": '"spool-1"'}
    assert client.get("/readyz").json["checks"]["spool"] == "ok"

    shutil.rmtree(spool_dir)  # as good as a full disk: no write succeeds there
    refused = client.post(LIST, data=LARGE, headers=headers)
    assert refused.status_code == 503, refused.json
    assert refused.json["code"] == "spool_unavailable" and refused.headers["Retry-After"]
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.json["checks"]["spool"] == "unavailable"

    spool_dir.mkdir()  # room again: ready, and the same key is a first upload
    assert client.get("/readyz").json["checks"]["spool"] == "ok"
    accepted = client.post(LIST, data=LARGE, headers=headers)
    assert accepted.status_code in (201, 202), accepted.json
    assert "Idempotent-Replayed" not in accepted.headers
