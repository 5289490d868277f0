"""GetObject, HeadObject and PutObject of an original over the S3 client's own connections,
without its per-call work.

What boto3 does around each call (event hooks, endpoint rules, parameter validation, response
parsing, the response checksum) took longer than the GET itself: its GetObject of a 144 KiB
original cost 2-3.3 times a bare GET of it from the same server (bench/engine.py). The fetch
needs none of that on its common path, so it makes the request boto3 would make, from boto3's
own parts:

- the URL the client resolves for the bucket (endpoint, region, addressing style), asked of it
  once through a presigned URL;
- a SigV4 signature (sigv4_headers, below) with the client's credentials (boto3's chain,
  refreshed by botocore as they near expiry);
- the client's connection pool (its TLS, proxy and timeout settings, its kept-alive
  connections).

No checksum is computed here: the caller checks the bytes against the original's BLAKE3
content hash (service_layer/originals.py), which covers the upload end to end.

Only a 200 is handled here. Anything else (a refused or reset connection, a timeout, a 5xx, a
404, a redirect to the bucket's region) leaves `dest` untouched and returns False: the client's
own GetObject then answers, with its retries and backoff and its error codes.

The upload's write of an original (`put`: PutObject with the SHA-256 the store checks the
bytes against, as the client sends it) and its check that an original it just recorded is
there (`found`: HeadObject) are made the same way: a 200 says it is done, or there; anything
else goes to the client's own call, which sends the bytes again or asks again.

With tracing on, each request is a client span like the ones botocore's instrumentation makes
for the client's calls (tracing.client_call), so a trace still shows the original's PUT and GET.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

from botocore.awsrequest import AWSPreparedRequest
from botocore.exceptions import BotoCoreError, NoCredentialsError
from botocore.utils import percent_encode
from urllib3.exceptions import HTTPError

from .. import tracing
from ..ports.storage import StorageUnavailable, Writable

CHUNK = 1 << 20
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
_PROBE_KEY = "key"


class SignedRequests:
    def __init__(self, client, bucket: str):
        self._client = client
        self._bucket = bucket
        self._bucket_url: str | None = None  # ends in "/": the object's key follows

    def to_file(self, key: str, dest: Writable) -> bool:
        """Write the object to `dest` and return True, or return False having written nothing.
        Raises StorageUnavailable when the body breaks off after its first bytes."""
        with self._traced("GetObject") as span:
            return self._to_file(key, dest, span)

    def _to_file(self, key: str, dest: Writable, span) -> bool:
        try:
            response = self._send(key)
        except BotoCoreError:  # no connection, no credentials: the client's to retry or report
            return False
        raw = response.raw
        _record(span, response.status_code)
        if response.status_code != 200:
            raw.drain_conn()
            return False
        expected = response.headers.get("Content-Length")
        received = 0
        try:
            while chunk := raw.read(CHUNK):
                received += len(chunk)
                dest.write(chunk)
        except HTTPError as exc:
            raise StorageUnavailable(f"the object store broke off sending {key}: {exc}") from exc
        finally:
            raw.close()  # read to its end, the connection went back to the pool already
        if expected is not None and received != int(expected):
            raise StorageUnavailable(f"the object store sent {received} of the {expected} bytes "
                                     f"of {key}")
        return True

    def found(self, key: str) -> bool:
        """Whether a signed HEAD of the object answered 200. False says nothing: the client's
        HeadObject decides then (a 404, a refusal, a dropped connection, a 5xx)."""
        return self._answered_ok("HeadObject", key, "HEAD")

    def put(self, key: str, source: str | bytes, sha256: bytes) -> bool:
        """Store the file at `source` (or `source` itself, its bytes) under `key`, checked by
        the store against `sha256`; True on a 200. False says nothing was confirmed: the
        client's PutObject then sends the bytes again (the same bytes under the same key: a
        write that did land is only repeated)."""
        if isinstance(source, bytes):
            return self._answered_ok("PutObject", key, "PUT", body=source, sha256=sha256,
                                     size=len(source))
        try:
            with open(source, "rb") as body:
                return self._answered_ok("PutObject", key, "PUT", body=body, sha256=sha256,
                                         size=os.fstat(body.fileno()).st_size)
        except OSError:
            return False

    def _answered_ok(self, operation: str, key: str, method: str, **request) -> bool:
        """Send a request whose answer has no body to read (HEAD, PUT); True on a 200."""
        with self._traced(operation) as span:
            try:
                response = self._send(key, method, **request)
            except BotoCoreError:
                return False
            _record(span, response.status_code)
        response.raw.drain_conn()  # no body to read: the connection is free again
        response.raw.release_conn()
        return response.status_code == 200

    def _traced(self, operation: str):
        return tracing.client_call("S3", operation, self._client.meta.region_name)

    def _send(self, key: str, method: str = "GET", *, body=None, sha256: bytes | None = None,
              size: int | None = None):
        url = self._url(key)
        # Two private botocore accessors, long unchanged (tests/integration/test_s3_fetch.py
        # fails if either goes): the credentials every call of the client signs with (the
        # refreshable object of boto3's chain) and the client's connection pool.
        credentials = self._client._get_credentials()
        if credentials is None:
            raise NoCredentialsError()
        headers = sigv4_headers(url, credentials.get_frozen_credentials(),
                                self._client.meta.region_name, datetime.now(UTC), method,
                                sha256)
        if size is not None:
            headers["content-length"] = str(size)
        request = AWSPreparedRequest(method, url, headers, body, stream_output=True)
        return self._client._endpoint.http_session.send(request)

    def _url(self, key: str) -> str:
        if self._bucket_url is None:
            probe = urlsplit(self._client.generate_presigned_url(
                "get_object", Params={"Bucket": self._bucket, "Key": _PROBE_KEY}))
            path = probe.path.removesuffix(_PROBE_KEY)
            self._bucket_url = urlunsplit((probe.scheme, probe.netloc, path, "", ""))
        return self._bucket_url + percent_encode(key, safe="/~")


def _record(span, status_code: int) -> None:
    if span is not None:
        span.set_attribute("http.status_code", status_code)


def sigv4_headers(url: str, credentials, region: str, now: datetime, method: str = "GET",
                  sha256: bytes | None = None) -> dict[str, str]:
    """The headers that sign a GET or HEAD of `url` for S3 (AWS Signature Version 4, signed
    headers, empty payload), or a PUT of a body whose SHA-256 is `sha256` (signed, and sent as
    the checksum the store verifies), as botocore's S3SigV4Auth makes them (tests/unit/test_s3_signature.py
    compares the two). Written out because botocore's signer wraps the same few HMACs in a
    generic request (header objects, URL parsing and checks) that took 5 times as long, a
    tenth of a bare GET."""
    parts = urlsplit(url)
    host = parts.netloc.removesuffix({"http": ":80", "https": ":443"}[parts.scheme]).lower()
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    day = stamp[:8]
    payload = sha256.hex() if sha256 is not None else EMPTY_SHA256
    headers = {"host": host}
    if sha256 is not None:
        headers["x-amz-checksum-sha256"] = base64.b64encode(sha256).decode()
    headers |= {"x-amz-content-sha256": payload, "x-amz-date": stamp}
    if credentials.token:
        headers["x-amz-security-token"] = credentials.token
    names = ";".join(headers)  # in the order SigV4 asks for: sorted
    canonical = "\n".join([method, parts.path, "", *(f"{k}:{v}" for k, v in headers.items()),
                           "", names, payload])
    scope = f"{day}/{region}/s3/aws4_request"
    key = f"AWS4{credentials.secret_key}".encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signed = f"AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    signature = hmac.new(key, signed.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={credentials.access_key}/{scope}, "
                                f"SignedHeaders={names}, Signature={signature}")
    return headers
