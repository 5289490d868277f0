"""The extractor port: whatever reads an invoice for the worker, local rules or a paid model.

- `versions` enter the cache key; a worker claims only jobs keyed with its own.
- `provider` says who is paid for a call: the rules bill a flat price per call, a hosted
  provider its own counts, reported through the context's meter as the call goes.
- `extract` returns the invoice-v2 document, or raises one of this port's errors.
- `warm` starts, before the first claim, what the first call would otherwise wait for (a fork
  server's preloading); a worker's `stop` ends the wait.
- `cancel` stops the call in flight, from any thread and without blocking, and makes calls
  raise `Cancelled` until `resume`.
- `needs_original`: whether the worker fetches the stored original before the call. Every
  real extractor reads the file (a hosted provider too: the sandbox prepares its pages
  first); a stand-in that answers from the content hash alone (the job-engine benchmark's)
  says False and is called with path None, so that the queue can be timed without the store.
- `health` is what readiness says of the extraction here: None where nothing was warmed (no
  worker runs in this process), else how the sandbox and OCR came up.

Errors: `ExtractionError` (the input cannot be read; `transient` when another attempt may
succeed), and four kinds the worker treats apart: `Cancelled` (stopped from outside: hand the
job back), `Refused` (a pre-flight refused the file before any model saw it: cost 0),
`CannotStart` (no process to extract in: a local failure, cost 0, for another worker) and
`Throttled` (the provider refused for throughput: wait, the invoice is not at fault).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Protocol

from ..domain.cache import ExtractorVersions
from ..domain.providers import Provider
from ..extraction.errors import ExtractionError

__all__ = ["ESTIMATE", "FLAT", "USAGE", "CallContext", "Cancelled", "CannotStart",
           "ExtractionError", "Extractor", "Health", "Meter", "NullMeter", "Progress", "Reader",
           "Refused", "Throttled"]

ESTIMATE, USAGE, FLAT = "estimate", "usage", "flat"  # how a ledger row's cost was arrived at


class Cancelled(ExtractionError):
    """The extraction was stopped from outside (shutdown, lost lease): hand the job back, do
    not fail it. `before_start`: no extraction had started, so no work was done (cost 0)."""

    def __init__(self, message: str = "extraction cancelled by shutdown", *,
                 before_start: bool = False):
        super().__init__("extraction_cancelled", message, transient=True)
        self.before_start = before_start


class Refused(ExtractionError):
    """The structural pre-flight refused the file before the extractor saw it (cost 0)."""


class CannotStart(ExtractionError):
    """No extraction process could be started: nothing reached the model (a local failure,
    for another worker or a later attempt)."""

    def __init__(self, message: str):
        super().__init__("sandbox_unavailable", message, transient=True)


class Throttled(ExtractionError):
    """The provider refused for throughput (HTTP 429 and the like): not a failure of the
    invoice. `retry_after` is what the provider asked for, when it said."""

    retry_after: float | None = None


@dataclass(frozen=True)
class Health:
    """What readiness says of a warmed sandbox: the fork server (`sandbox`) and OCR, each
    "ok", "starting" or "unavailable" (with a reason), and the OCR languages loaded."""
    sandbox: str
    ocr: str
    languages: tuple[str, ...] = ()
    reasons: tuple[tuple[str, str], ...] = ()


@dataclass
class Progress:
    """One attempt's provider work so far, as its ledger row records it."""
    provider: str
    model: str
    client_token: str | None = None     # the idempotency token sent (Textract), if any
    provider_job_id: str | None = None  # the provider's job (Textract JobId), if any
    request_id: str | None = None       # the provider's id of its latest answer
    requests: int = 0                   # requests sent that the provider may bill
    input_tokens: int = 0
    output_tokens: int = 0
    pages: int = 0
    cost: Decimal = Decimal(0)
    cost_basis: str = ESTIMATE          # USAGE once the provider's own counts are in

    def snapshot(self) -> Progress:
        return replace(self)


class Meter(Protocol):
    def record(self, progress: Progress) -> None:
        """Write the call's progress to the ledger now (the worker's meter retries through a
        database blip; a provider calls this before and after every billable request)."""


class NullMeter:
    """For offline extraction (`ledgerline extract`): nothing to record."""

    def record(self, progress: Progress) -> None:
        pass


@dataclass
class CallContext:
    """What the worker hands one call: the job's identity (for idempotency tokens), where the
    original is stored (a provider may read it there), and the ledger's meter."""
    job_id: str
    storage_key: str | None = None
    meter: Meter = field(default_factory=NullMeter)
    cancel: threading.Event = field(default_factory=threading.Event)


class Reader(Protocol):
    """A document reader without the port's controls: what runs inside a sandbox's child."""

    @property
    def versions(self) -> ExtractorVersions: ...

    def extract(self, path: str, content_hash: str) -> dict: ...


class Extractor(Protocol):
    @property
    def versions(self) -> ExtractorVersions: ...

    @property
    def provider(self) -> Provider: ...

    @property
    def health(self) -> Health | None: ...

    @property
    def needs_original(self) -> bool: ...

    def extract(self, path: str | None, content_hash: str, context: CallContext | None = None) -> dict:
        """The invoice-v2 document; raises ExtractionError (or one of its kinds above)."""

    def warm(self, stop: threading.Event | None = None) -> None: ...

    def cancel(self) -> None: ...

    def resume(self) -> None: ...
