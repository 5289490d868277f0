"""Amazon Textract's AnalyzeExpense, StartExpenseAnalysis and GetExpenseAnalysis over its real
wire protocol (JSON 1.1: POST /, `X-Amz-Target: Textract.<Operation>`, errors as `__type`), for
boto3 pointed here with `endpoint_url` (or AWS_ENDPOINT_URL_TEXTRACT).

Documented semantics it keeps: the same `ClientRequestToken` with the same document returns the
same `JobId` and starts (and charges) nothing new, with another document it is
`IdempotentParameterMismatchException`; a job is `IN_PROGRESS` until it is done, then
`SUCCEEDED`, its results paged with `NextToken` (`MaxResults` at most 20); `Document.Bytes`
must be PNG or JPEG of at most 5 MB; throttling is `ThrottlingException` (HTTP 500, as AWS
documents it), `ProvisionedThroughputExceededException` or `LimitExceededException` (400). A
page is charged once per synchronous request and once per started job.

Its "model" is the project's own rules extractor run on the document (read from S3 like the
real service, or recognised from page images of documents it was shown), with the answers
shaped as ExpenseDocuments: SummaryFields by Type with geometry relative to the page and
confidence in percent, LineItemGroups of ITEM, QUANTITY, UNIT_PRICE, PRICE.

Not simulated (not documented precisely enough, or out of scope): the SigV4 signature is
required but not verified; how AWS splits a multi-page invoice into ExpenseDocuments (here one
per page, all with ExpenseIndex 1) and what exactly `MaxResults` counts (here: pages); how long
a token stays idempotent (JobIds are documented to last 7 days; tokens here last forever);
whether a FAILED job is charged.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import tempfile
import threading
import time
import uuid

from tests.standins.server import StandIn, main

PREFIX = "Textract."
TOKEN = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")
MAX_BYTES = 5 * 1024 * 1024
# The refusals for throughput AWS documents for these operations, with their HTTP status.
THROTTLING = {"ThrottlingException": 500, "ProvisionedThroughputExceededException": 400,
              "LimitExceededException": 400}
MAX_RESULTS = 20
FIELD_TYPES = {
    "invoice_number": "INVOICE_RECEIPT_ID", "issue_date": "INVOICE_RECEIPT_DATE",
    "due_date": "DUE_DATE", "seller_name": "VENDOR_NAME", "buyer_name": "RECEIVER_NAME",
    "seller_vat_id": "VENDOR_VAT_NUMBER", "buyer_vat_id": "RECEIVER_VAT_NUMBER",
    "purchase_order": "PO_NUMBER", "net_total": "SUBTOTAL", "tax_total": "TAX",
    "gross_total": "TOTAL", "amount_due": "AMOUNT_DUE", "iban": "OTHER",
}
ITEM_TYPES = {"description": "ITEM", "quantity": "QUANTITY", "unit_price": "UNIT_PRICE",
              "net_amount": "PRICE"}
AMOUNTS = ("SUBTOTAL", "TAX", "TOTAL", "AMOUNT_DUE")


class TextractStandIn(StandIn):
    def __init__(self, *, processing_seconds: float = 0.5, s3_client=None):
        super().__init__()
        self.processing_seconds = processing_seconds
        self._s3 = s3_client
        self.jobs: dict[str, dict] = {}           # JobId -> job
        self.tokens: dict[str, str] = {}          # ClientRequestToken -> JobId
        self.known_images: dict[str, tuple[bytes, int]] = {}  # sha256 of a page PNG -> (pdf, page)
        self._jobs_lock = threading.Lock()

    # -- protocol --------------------------------------------------------------------------

    def operation_of(self, handler) -> str:
        return (handler.headers.get("X-Amz-Target") or "").removeprefix(PREFIX)

    def handle(self, handler, operation: str, raw: bytes):
        if not (handler.headers.get("Authorization") or "").startswith("AWS4-HMAC-SHA256"):
            return self._error(400, "UnrecognizedClientException", "missing SigV4 signature")
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self._error(400, "SerializationException", "not JSON")
        route = {"AnalyzeExpense": self._analyze, "StartExpenseAnalysis": self._start,
                 "GetExpenseAnalysis": self._get}.get(operation)
        if route is None:
            return self._error(400, "UnknownOperationException", operation)
        try:
            return self._ok(route(body))
        except _Error as exc:
            return self._error(exc.status, exc.code, exc.message)

    def throttled(self, operation: str, seconds: float, code: str = ""):
        code = code or "ThrottlingException"
        return self._error(THROTTLING[code], code, "Amazon Textract is temporarily unable to "
                           "process the request. Try your call again.")

    def server_error(self, operation: str):
        return self._error(500, "InternalServerError", "Amazon Textract experienced a "
                           "service issue. Try your call again.")

    def _ok(self, payload: dict):
        return 200, self._headers(), json.dumps(payload).encode()

    def _error(self, status: int, code: str, message: str):
        return status, self._headers(), json.dumps({"__type": code, "message": message}).encode()

    def _headers(self) -> dict:
        return {"Content-Type": "application/x-amz-json-1.1", "x-amzn-RequestId": str(uuid.uuid4())}

    # -- operations --------------------------------------------------------------------------

    def _analyze(self, body: dict) -> dict:
        document = body.get("Document") or {}
        if "Bytes" in document:
            data = base64.b64decode(document["Bytes"])
            if len(data) > MAX_BYTES:
                raise _Error(400, "DocumentTooLargeException", "over 5 MB")
            if not (data.startswith(b"\x89PNG") or data.startswith(b"\xff\xd8")):
                raise _Error(400, "UnsupportedDocumentException", "Bytes must be PNG or JPEG")
            pdf, page = self.known_images.get(hashlib.sha256(data).hexdigest(), (None, None))
            pages = analyse(pdf, only_page=page) if pdf else blank_pages(1)
        elif "S3Object" in document:
            pages = analyse(self._object(document["S3Object"]))
            if len(pages) > 1:
                raise _Error(400, "UnsupportedDocumentException",
                             "synchronous operations take single-page documents")
        else:
            raise _Error(400, "InvalidParameterException", "Document needs Bytes or S3Object")
        self.charge(operation="AnalyzeExpense", pages=len(pages))
        return {"DocumentMetadata": {"Pages": len(pages)},
                "ExpenseDocuments": [doc for p in pages for doc in p]}

    def _start(self, body: dict) -> dict:
        location = (body.get("DocumentLocation") or {}).get("S3Object")
        if not location:
            raise _Error(400, "InvalidParameterException", "DocumentLocation.S3Object is needed")
        token = body.get("ClientRequestToken")
        if token is not None and not TOKEN.match(token):
            raise _Error(400, "InvalidParameterException", "ClientRequestToken: 1-64 of "
                         "[a-zA-Z0-9-_]")
        with self._jobs_lock:
            if token in self.tokens:
                job = self.jobs[self.tokens[token]]
                if job["location"] != location:
                    raise _Error(400, "IdempotentParameterMismatchException",
                                 "ClientRequestToken reused with another document")
                return {"JobId": job["id"]}  # the same job: nothing new started or charged
        pages = analyse(self._object(location))
        with self._jobs_lock:
            if token in self.tokens:  # a concurrent start with the same token won
                return {"JobId": self.tokens[token]}
            job_id = uuid.uuid4().hex
            self.jobs[job_id] = {"id": job_id, "location": location, "pages": pages,
                                 "done_at": time.monotonic() + self.processing_seconds}
            if token is not None:
                self.tokens[token] = job_id
        self.charge(operation="StartExpenseAnalysis", pages=len(pages), job_id=job_id)
        return {"JobId": job_id}

    def _get(self, body: dict) -> dict:
        job = self.jobs.get(body.get("JobId") or "")
        if job is None:
            raise _Error(400, "InvalidJobIdException", "no such job")
        pages = job["pages"]
        meta = {"DocumentMetadata": {"Pages": len(pages)}}
        if time.monotonic() < job["done_at"]:
            return {"JobStatus": "IN_PROGRESS", **meta}
        size = max(1, min(MAX_RESULTS, int(body.get("MaxResults") or MAX_RESULTS)))
        start = int(body.get("NextToken") or 0)
        answer = {"JobStatus": "SUCCEEDED", "AnalyzeExpenseModelVersion": "1.0", **meta,
                  "ExpenseDocuments": [doc for p in pages[start:start + size] for doc in p]}
        if start + size < len(pages):
            answer["NextToken"] = str(start + size)
        return answer

    def _object(self, location: dict) -> bytes:
        from botocore.exceptions import ClientError

        try:
            return self.s3.get_object(Bucket=location["Bucket"], Key=location["Name"])[
                "Body"].read()
        except (ClientError, KeyError) as exc:
            raise _Error(400, "InvalidS3ObjectException", f"cannot read the object: {exc}") from None

    @property
    def s3(self):
        if self._s3 is None:
            import boto3

            self._s3 = boto3.client("s3")
        return self._s3

    # -- control -----------------------------------------------------------------------------

    def extra_control(self, path: str, body: dict) -> dict:
        if path == "learn":  # page images of this PDF are recognised from now on
            self.learn(base64.b64decode(body["pdf"]))
            return {"ok": True}
        if path == "processing":
            self.processing_seconds = float(body["seconds"])
            return {"ok": True}
        raise KeyError(path)

    def learn(self, pdf: bytes) -> None:
        from ledgerline.adapters.providers.prepare import _render_pdf

        with tempfile.NamedTemporaryFile(suffix=".pdf") as tmp:
            tmp.write(pdf)
            tmp.flush()
            for number, png in enumerate(_render_pdf(tmp.name), start=1):
                self.known_images[hashlib.sha256(png).hexdigest()] = (pdf, number)

    def charged_pages(self) -> int:
        return sum(c["pages"] for c in self.tally.as_dict()["charges"])


class _Error(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# -- the "model": the project's rules, answered in Textract's shapes ------------------------------

def analyse(pdf: bytes, only_page: int | None = None) -> list[list[dict]]:
    """Per page, the ExpenseDocuments Textract would return for it."""
    from ledgerline import extraction
    from ledgerline.extraction.errors import ExtractionError

    sizes = page_sizes(pdf)
    with tempfile.NamedTemporaryFile(suffix=".pdf") as tmp:
        tmp.write(pdf)
        tmp.flush()
        try:
            document = extraction.extract_pdf(tmp.name, content_hash="blake3:" + "0" * 64)
        except ExtractionError:
            return blank_pages(len(sizes))
    pages = [[{"ExpenseIndex": 1, "SummaryFields": [], "LineItemGroups": []}] for _ in sizes]
    currency = document["fields"]["currency"]["value"]
    for name, entry in document["fields"].items():
        kind = FIELD_TYPES.get(name)
        if kind is None or entry["value"] is None or not entry["page"]:
            continue
        field = {"Type": {"Text": kind, "Confidence": 99.5},
                 "ValueDetection": {"Text": entry["raw"] or entry["value"],
                                    "Geometry": geometry(entry["bbox"], sizes[entry["page"] - 1]),
                                    "Confidence": round(100 * entry["confidence"], 4)},
                 "PageNumber": entry["page"]}
        if name == "iban":
            field["LabelDetection"] = {"Text": "IBAN", "Confidence": 99.0}
        if kind in AMOUNTS and currency:
            field["Currency"] = {"Code": currency, "Confidence": 95.0}
        pages[entry["page"] - 1][0]["SummaryFields"].append(field)
    last = pages[-1][0]
    items = [{"LineItemExpenseFields": [
        {"Type": {"Text": kind, "Confidence": 99.0},
         "ValueDetection": {"Text": item[key], "Confidence": 97.0}, "PageNumber": len(pages)}
        for key, kind in ITEM_TYPES.items() if item.get(key) is not None]}
        for item in document["line_items"]]
    if items:
        last["LineItemGroups"].append({"LineItemGroupIndex": 1, "LineItems": items})
    if only_page is not None:
        page = pages[only_page - 1]
        for doc in page:
            for f in doc["SummaryFields"]:
                f["PageNumber"] = 1
        return [page]
    return pages


def blank_pages(count: int) -> list[list[dict]]:
    return [[{"ExpenseIndex": 1, "SummaryFields": [], "LineItemGroups": []}]
            for _ in range(count)]


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    import pypdfium2

    document = pypdfium2.PdfDocument(io.BytesIO(pdf))
    try:
        return [tuple(document[i].get_size()) for i in range(len(document))]
    finally:
        document.close()


def geometry(bbox, size) -> dict:
    """A PDF-points box as Textract's page-relative geometry (origin top left)."""
    if not bbox:
        return {"BoundingBox": {"Width": 0.0, "Height": 0.0, "Left": 0.0, "Top": 0.0},
                "Polygon": []}
    width, height = size
    x0, y0, x1, y1 = bbox
    box = {"Width": (x1 - x0) / width, "Height": (y1 - y0) / height, "Left": x0 / width,
           "Top": 1 - y1 / height}
    left, top = box["Left"], box["Top"]
    right, bottom = left + box["Width"], top + box["Height"]
    return {"BoundingBox": box, "Polygon": [{"X": left, "Y": top}, {"X": right, "Y": top},
                                            {"X": right, "Y": bottom}, {"X": left, "Y": bottom}]}


if __name__ == "__main__":
    main(TextractStandIn, "A local stand-in for Amazon Textract's expense analysis")
