"""The fetch's SigV4 headers (adapters/s3_signed.py) are the ones botocore's own S3 signer makes
for the same GET (or HEAD) at the same moment, for every kind of endpoint and credentials."""
from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime

import pytest
from botocore import auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from ledgerline.adapters.s3_signed import sigv4_headers

NOW = datetime(2026, 12, 4, 13, 5, 9, tzinfo=UTC)
KEY = "accounts/acme/originals/blake3/ab/" + "ab" * 32


def botocores(url: str, credentials: Credentials, region: str, monkeypatch,
              method: str = "GET", body: bytes | None = None) -> dict:
    monkeypatch.setattr(auth, "get_current_datetime", lambda: NOW.replace(tzinfo=None))
    request = AWSRequest(method, url, data=body)
    if body is not None:  # the checksum header PutObject sends with ChecksumSHA256
        request.headers["x-amz-checksum-sha256"] = base64.b64encode(
            hashlib.sha256(body).digest()).decode()
    auth.S3SigV4Auth(credentials, "s3", region).add_auth(request)
    return {name.lower(): value for name, value in request.headers.items()}


@pytest.mark.parametrize("url", [
    f"http://127.0.0.1:8333/ledgerline/t_1/{KEY}",  # path style, a port (SeaweedFS, MinIO)
    f"https://ledgerline.s3.eu-central-1.amazonaws.com/{KEY}",  # AWS, virtual host
    f"https://s3.eu-central-1.amazonaws.com:443/my.bucket/{KEY}",  # the default port given
    f"http://[::1]:9000/ledgerline/{KEY}",  # IPv6
    "https://Store.Example:8443/ledgerline/a%20b/%C3%BC~x",  # a key that needed quoting
], ids=["path-style", "aws", "default-port", "ipv6", "quoted-key"])
@pytest.mark.parametrize("token", [None, "FwoGZXIvYXdzEJr//session+token=="],
                         ids=["keys", "session-token"])
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_the_signature_is_botocores(url, token, method, monkeypatch):
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    ours = sigv4_headers(url, credentials, "eu-central-1", NOW, method)
    theirs = botocores(url, credentials, "eu-central-1", monkeypatch, method)
    assert ours["authorization"] == theirs["authorization"]
    assert {name: ours[name] for name in theirs} == theirs


@pytest.mark.parametrize("token", [None, "FwoGZXIvYXdzEJr//session+token=="],
                         ids=["keys", "session-token"])
def test_a_puts_signature_is_botocores_with_its_payload_and_checksum(token, monkeypatch):
    url = f"http://127.0.0.1:8333/ledgerline/t_1/{KEY}"
    body = b"%PDF-1.7 an original"
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    ours = sigv4_headers(url, credentials, "eu-central-1", NOW, "PUT",
                         hashlib.sha256(body).digest())
    theirs = botocores(url, credentials, "eu-central-1", monkeypatch, "PUT", body)
    assert "x-amz-checksum-sha256" in theirs["authorization"]
    assert ours["authorization"] == theirs["authorization"]
    assert {name: ours[name] for name in theirs} == theirs
