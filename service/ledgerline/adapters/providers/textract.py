"""AWS Textract AnalyzeExpense behind the extractor port.

- A multi-page PDF whose original is in S3 goes through `StartExpenseAnalysis` (read by the
  service from the store's own bucket and key) with a `ClientRequestToken` derived from the
  job, then `GetExpenseAnalysis` until the job ends and through every `NextToken` page. A
  recovery worker that restarts a lost job sends the same token, gets the same `JobId`, and
  Textract charges once; the ledger records token and JobId on every attempt.
- A single page (an image, a one-page PDF) goes through `AnalyzeExpense`: from S3 where the
  original is there, else as page images (the only bytes Textract's synchronous API takes).
  A multi-page PDF in a local directory store goes page by page the same way, since Textract's
  asynchronous API reads only S3. `AnalyzeExpense` has no idempotency token: a retried
  attempt is billed again, and the ledger says so.

Every request is the SDK's single try (botocore's own retries are off): a retry the SDK made
after a dropped connection would be a second charge nobody recorded. Throttling is retried
here, where the ledger sees it.
"""
from __future__ import annotations

from decimal import Decimal

from ...domain.providers import Provider, client_request_token, page_cost, throttle_delay
from ...ports.extractor import USAGE, CallContext, Cancelled, Progress
from . import documents
from .base import ProviderError, Throttled, refused, unavailable
from .prepare import RENDER_DPI, Prepared
from .textract_mapping import map_expense

MODEL = "textract-analyze-expense"
PREPROCESSING = "textract-input-2026.12.1"  # what is sent: S3 object or page PNGs (RENDER_DPI)
THROTTLING_CODES = ("ThrottlingException", "ProvisionedThroughputExceededException",
                    "LimitExceededException")
UNAVAILABLE_CODES = ("InternalServerError", "AccessDeniedException",
                     "UnrecognizedClientException", "InvalidSignatureException",
                     "ExpiredTokenException")
POLL_FIRST_SECONDS, POLL_MAX_SECONDS = 0.25, 5.0  # GetExpenseAnalysis while IN_PROGRESS
MAX_RESULTS = 20  # the API's largest page of results
MAX_THROTTLED_WAIT_SECONDS = 120.0  # once a job is billed, throttled polls wait this long at most
JOB_TAG = "ledgerline"


class TextractProvider:
    name = Provider.TEXTRACT

    def __init__(self, settings, *, bucket_of=None, client=None):
        self.price_per_page = settings.textract_price_per_page
        self.timeout = settings.provider_timeout_seconds
        self._client = client or _client(self.timeout)
        self._bucket_of = bucket_of  # storage key -> (bucket, key) in S3, or None
        region = self._client.meta.region_name
        endpoint = self._client.meta.endpoint_url
        self.config = {"provider": self.name.value, "model": MODEL, "region": region,
                       "endpoint": endpoint, "price_per_page": str(self.price_per_page),
                       "render_dpi": RENDER_DPI}
        self.model = MODEL
        self.preprocessing = PREPROCESSING

    @property
    def needs_page_images(self) -> bool:
        return self._bucket_of is None

    def extract(self, prepared: Prepared, content_hash: str, context: CallContext) -> dict:
        progress = Progress(provider=self.name.value, model=MODEL)
        location = self._bucket_of(context.storage_key) if (
            self._bucket_of and context.storage_key) else None
        call = _Call(self, progress, context)
        if location and prepared.page_count > 1:
            answer = call.asynchronous(location, prepared.page_count)
        elif location:
            answer = call.synchronous([{"S3Object": location}])
        else:
            answer = call.synchronous([{"Bytes": png} for png in prepared.page_images or []])
        found, items, reasons = map_expense(answer, prepared.pages)
        return documents.build(source="ocr", content_hash=content_hash,
                               pages=max(prepared.page_count, progress.pages), found=found,
                               line_items=items, reasons=reasons)


class _Call:
    """One attempt's requests to Textract, each recorded in the ledger before it is sent."""

    def __init__(self, provider: TextractProvider, progress: Progress, context: CallContext):
        self.provider, self.progress, self.context = provider, progress, context
        self.client = provider._client

    def synchronous(self, documents_: list[dict]) -> list[dict]:
        found = []
        for page, document in enumerate(documents_, start=1):
            answer = self._send("analyze_expense", {"Document": document}, pages=1)
            for expense in answer.get("ExpenseDocuments", []):
                for field in _fields(expense):
                    field.setdefault("PageNumber", 1)
                    if len(documents_) > 1:  # each request saw one page: renumber
                        field["PageNumber"] = page
                found.append(expense)
            self._pages_read(answer, add=True)
        return found

    def asynchronous(self, location: dict, pages: int) -> list[dict]:
        progress = self.progress
        progress.client_token = client_request_token(self.context.job_id, Provider.TEXTRACT)
        started = self._send("start_expense_analysis", {
            "DocumentLocation": {"S3Object": location},
            "ClientRequestToken": progress.client_token, "JobTag": JOB_TAG}, pages=pages)
        progress.provider_job_id = started["JobId"]
        self.context.meter.record(progress.snapshot())
        return self._results(started["JobId"])

    def _results(self, job_id: str) -> list[dict]:
        delay, found, token = POLL_FIRST_SECONDS, [], None
        while True:
            args = {"JobId": job_id, "MaxResults": MAX_RESULTS}
            if token:
                args["NextToken"] = token
            answer = self._poll(args)
            status = answer.get("JobStatus")
            if status == "IN_PROGRESS":
                self._wait(delay)
                delay = min(POLL_MAX_SECONDS, delay * 2)
                continue
            if status == "FAILED":
                raise ProviderError("provider_failed", "Textract: the analysis failed: "
                                    f"{answer.get('StatusMessage') or 'no reason given'}")
            found.extend(answer.get("ExpenseDocuments", []))
            token = answer.get("NextToken")
            if not token:
                self._pages_read(answer, add=False)
                return found

    def _send(self, operation: str, args: dict, *, pages: int) -> dict:
        """A request the provider bills: in the ledger (with its price) before it leaves."""
        self._stop_if_cancelled()
        progress = self.progress
        progress.requests += 1
        progress.pages += pages
        progress.cost = self.provider_cost(progress.pages)
        self.context.meter.record(progress.snapshot())
        try:
            answer = self._request(operation, args)
        except ProviderError as exc:
            if exc.answered:  # throttled or refused by the service: no work done, not billed
                progress.requests -= 1
                progress.pages -= pages
                progress.cost = self.provider_cost(progress.pages)
                self.context.meter.record(progress.snapshot())
            raise
        progress.request_id = answer.get("ResponseMetadata", {}).get("RequestId")
        self.context.meter.record(progress.snapshot())
        return answer

    def _poll(self, args: dict) -> dict:
        """GetExpenseAnalysis is free; once the job is billed, throttling only waits longer."""
        waited, throttled = 0.0, 0
        while True:
            try:
                return self._request("get_expense_analysis", args)
            except Throttled as exc:
                throttled += 1
                delay = throttle_delay(throttled, exc.retry_after)
                if waited + delay > MAX_THROTTLED_WAIT_SECONDS:
                    raise unavailable("Textract", f"still throttled after {waited:.0f} s") from exc
                self._wait(delay)
                waited += delay

    def _request(self, operation: str, args: dict) -> dict:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return getattr(self.client, operation)(**args)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            message = exc.response.get("Error", {}).get("Message") or code
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            if code in THROTTLING_CODES:
                raise Throttled(f"Textract: {code}") from exc
            if code in UNAVAILABLE_CODES or status >= 500:
                raise unavailable("Textract", f"{code} ({status})") from exc
            raise refused("Textract", f"{code}: {message}") from exc
        except BotoCoreError as exc:  # timeouts, refused or dropped connections
            raise unavailable("Textract", type(exc).__name__, answered=False) from exc

    def _pages_read(self, answer: dict, *, add: bool) -> None:
        """Textract's own page count replaces the estimate."""
        counted = (answer.get("DocumentMetadata") or {}).get("Pages")
        if isinstance(counted, int) and counted > 0 and not add:
            self.progress.pages = counted
        self.progress.cost = self.provider_cost(self.progress.pages)
        self.progress.cost_basis = USAGE
        self.context.meter.record(self.progress.snapshot())

    def provider_cost(self, pages: int) -> Decimal:
        return page_cost(pages, self.provider.price_per_page)

    def _wait(self, seconds: float) -> None:
        self.context.cancel.wait(seconds)
        self._stop_if_cancelled()

    def _stop_if_cancelled(self) -> None:
        if self.context.cancel.is_set():
            raise Cancelled("the provider call was stopped (shutdown or lost lease)",
                            before_start=self.progress.requests == 0)


def _fields(expense: dict):
    yield from expense.get("SummaryFields", [])
    for group in expense.get("LineItemGroups", []):
        for item in group.get("LineItems", []):
            yield from item.get("LineItemExpenseFields", [])


def _client(timeout: float):
    """boto3's standard configuration (region, credentials, AWS_ENDPOINT_URL_TEXTRACT), one try
    per request, network timeouts."""
    import boto3
    from botocore.config import Config

    return boto3.client("textract", config=Config(
        connect_timeout=min(timeout, 10.0), read_timeout=timeout,
        retries={"total_max_attempts": 1, "mode": "standard"}))
