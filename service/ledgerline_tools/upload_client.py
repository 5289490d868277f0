"""`ledgerline upload`: a folder of invoices into an account, each file once.

Each file's Idempotency-Key is derived from its content and the account (`idempotency_key`),
never from its name or the time: running the same command again — after a crash, a lost
connection, a Ctrl-C — replays what the service already accepted (200, the same invoice)
instead of making a second invoice, and uploads only what is missing. That holds within the
service's key lifetime (LEDGERLINE_IDEMPOTENCY_KEY_TTL, 24 h by default); after it, a file
sent again is a new invoice, which the service flags as a duplicate of the first
(`possible_duplicates`, `content_hash`). Transient refusals (429, 503, connection errors, a
body the service got only part of) are retried with the same key, which is what makes
retrying safe.

Plain Python over urllib3, so it runs wherever the package is installed, without a database.
"""
from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import blake3
import urllib3

from ledgerline.formats import ACCEPTED, detect_file

KEY_PREFIX = "upload-"
KEY_CONTEXT = b"ledgerline upload v1\0"
MAX_TRIES = 6
RETRY_STATUSES = (429, 502, 503, 504)
BACKOFF_SECONDS, MAX_BACKOFF_SECONDS = 0.5, 30.0
SERVER_WAIT_SECONDS = 60          # the most `Prefer: wait` the service holds
POLL_SECONDS = 1.0
CONNECT_TIMEOUT, READ_TIMEOUT = 10.0, 120.0
FINISHED = ("completed", "failed")


def idempotency_key(account: str, path: Path) -> str:
    """`upload-` + a digest of the account and the file's bytes: the same file into the same
    account is the same operation, whatever it is called and however often it is sent."""
    hasher = blake3.blake3(KEY_CONTEXT + account.encode() + b"\0")
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            hasher.update(chunk)
    return KEY_PREFIX + hasher.hexdigest()[:48]


def collect(paths: list[str], *, recursive: bool) -> tuple[list[Path], list[Path]]:
    """(files to upload, files skipped). A file named on the command line is always sent (the
    service judges it); in a directory only what is an invoice by its content (PDF, XML,
    images), hidden files aside; its subdirectories with `recursive`."""
    chosen, skipped = [], []
    for given in map(Path, paths):
        if given.is_dir():
            found = given.rglob("*") if recursive else given.iterdir()
            for path in sorted(found):
                if not path.is_file() or any(part.startswith(".")
                                             for part in path.relative_to(given).parts):
                    continue
                (chosen if detect_file(path) in ACCEPTED else skipped).append(path)
        elif given.is_file():
            chosen.append(given)
        else:
            raise FileNotFoundError(f"no such file or directory: {given}")
    unique = list(dict.fromkeys(p.resolve() for p in chosen))
    return unique, skipped


@dataclass
class FileResult:
    path: str
    invoice_id: str | None = None
    status: str | None = None        # pending | running | completed | failed | refused
    cache: str | None = None         # hit | miss | joined | bypass | replayed
    review: str | None = None        # required | resolved | not_required
    error: str | None = None         # the problem code (or why nothing answered)
    http_status: int | None = None

    @property
    def needs_review(self) -> bool:
        return self.status == "completed" and self.review == "required"


class Client:
    def __init__(self, url: str, key: str, account: str, *, concurrency: int = 4):
        self.base = url.rstrip("/")
        self.account = account
        self.http = urllib3.PoolManager(
            maxsize=concurrency, retries=False,
            timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT, read=READ_TIMEOUT))
        self.auth = {"Authorization": f"Bearer {key}", "User-Agent": "ledgerline-upload/1"}

    def upload(self, path: Path, *, wait: bool) -> FileResult:
        result = FileResult(str(path))
        headers = {**self.auth, "Idempotency-Key": idempotency_key(self.account, path),
                   "Content-Type": detect_file(path).media_type,
                   "Content-Length": str(path.stat().st_size)}
        if wait:
            headers["Prefer"] = f"wait={SERVER_WAIT_SECONDS}"
        url = f"{self.base}/v1/accounts/{self.account}/invoices"

        def send():
            with open(path, "rb") as body:
                return self.http.request("POST", url, body=body, headers=headers)

        resp = self._with_retries(send, result)
        if resp is None:
            return result
        result.http_status = resp.status
        if resp.status in (200, 201, 202):
            self._read(result, resp)
            result.cache = ("replayed" if resp.headers.get("Idempotent-Replayed") == "true"
                            else resp.headers.get("Ledgerline-Cache"))
        else:
            result.status, result.error = "refused", _problem_code(resp)
        return result

    def wait_for(self, result: FileResult, deadline: float) -> FileResult:
        """Poll the invoice until it finished or the deadline (monotonic) passed."""
        url = f"{self.base}/v1/accounts/{self.account}/invoices/{result.invoice_id}"
        while result.status not in FINISHED and result.status != "refused":
            if time.monotonic() >= deadline:
                break
            time.sleep(POLL_SECONDS)
            resp = self._with_retries(lambda: self.http.request("GET", url, headers=self.auth),
                                      result)
            if resp is None or resp.status != 200:
                break
            self._read(result, resp)
        return result

    def _read(self, result: FileResult, resp) -> None:
        invoice = json.loads(resp.data)
        result.invoice_id, result.status = invoice["id"], invoice["status"]
        result.review = (invoice.get("review") or {}).get("state")
        result.error = (invoice.get("error") or {}).get("code")

    def _with_retries(self, send, result: FileResult):
        """The answer, retrying what may succeed later; None when nothing answered."""
        for attempt in range(MAX_TRIES):
            try:
                resp = send()
            except urllib3.exceptions.HTTPError as exc:
                result.status, result.error = "refused", f"connection: {type(exc).__name__}"
                resp = None
            if resp is not None and not _retryable(resp):
                return resp
            if attempt + 1 < MAX_TRIES:
                time.sleep(_backoff(attempt, resp))
        if resp is not None:
            return resp
        return None


def _retryable(resp) -> bool:
    """Refusals that may pass later, and a body the service got only part of (a connection
    or a proxy cut it: the service kept nothing, so the same key sends it again)."""
    return resp.status in RETRY_STATUSES or (
        resp.status == 400 and _problem_code(resp) == "body_incomplete")


def _backoff(attempt: int, resp) -> float:
    retry_after = resp.headers.get("Retry-After") if resp is not None else None
    if retry_after and retry_after.isdigit():
        return min(float(retry_after), MAX_BACKOFF_SECONDS)
    return min(BACKOFF_SECONDS * 2 ** attempt, MAX_BACKOFF_SECONDS)


def _problem_code(resp) -> str:
    try:
        return json.loads(resp.data).get("code") or f"HTTP {resp.status}"
    except ValueError:
        return f"HTTP {resp.status}"


def run(client: Client, files: list[Path], *, concurrency: int, wait: bool, timeout: float,
        progress=None) -> list[FileResult]:
    """Upload every file, `concurrency` at a time; with `wait`, until each one finished (or
    `timeout` seconds passed). `progress(n)` is told of each file done."""
    deadline = time.monotonic() + timeout

    def one(path: Path) -> FileResult:
        result = client.upload(path, wait=wait)
        if wait and result.invoice_id:
            client.wait_for(result, deadline)
        if progress is not None:
            progress(1)
        return result

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(one, files))


SUMMARY = ("files", "completed", "hit", "joined", "replayed", "pending", "failed",
           "needs_review")


def summary(results: list[FileResult]) -> dict:
    return {
        "files": len(results),
        "completed": sum(r.status == "completed" for r in results),
        "hit": sum(r.cache == "hit" for r in results),
        "joined": sum(r.cache == "joined" for r in results),
        "replayed": sum(r.cache == "replayed" for r in results),
        "pending": sum(r.status in ("pending", "running") for r in results),
        "failed": sum(r.status in ("failed", "refused") for r in results),
        "needs_review": sum(r.needs_review for r in results),
    }


COLUMNS = ("path", "invoice_id", "status", "cache", "review", "error", "http_status")


def as_rows(results: list[FileResult]) -> list[dict]:
    return [{**asdict(r), "needs_review": r.needs_review} for r in results]


def relative(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path
