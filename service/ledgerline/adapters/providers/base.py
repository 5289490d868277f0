"""What every hosted provider shares: the progress of a call as the ledger records it, the
errors a provider call ends in, and the context the worker hands a call.

A provider never writes the ledger itself: it reports through a `Meter` (the worker's, which
writes the attempt's ledger row at once) every time something billable happens — a request
sent, a job id returned, a usage counted — so that a worker killed a moment later has already
recorded what the provider will charge for.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Protocol

from ...extraction.errors import ExtractionError

ESTIMATE, USAGE, FLAT = "estimate", "usage", "flat"  # how a ledger row's cost was arrived at


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


class ProviderError(ExtractionError):
    """A provider's answer that is not a result. `transient`: worth another attempt.
    `answered`: the provider said so itself (an error status), so it did no billable work;
    a timeout or a dropped connection leaves that unknown, and the request counts as billed."""

    def __init__(self, code: str, message: str, *, transient: bool = False,
                 answered: bool = True):
        super().__init__(code, message, transient=transient)
        self.answered = answered


class Throttled(ProviderError):
    """The provider refused for throughput (HTTP 429, ThrottlingException,
    ProvisionedThroughputExceededException): not a failure of the invoice. `retry_after` is
    what the provider asked for, when it said."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__("provider_throttled", message, transient=True)
        self.retry_after = retry_after


def unavailable(provider: str, what: str, *, answered: bool = True) -> ProviderError:
    """5xx (answered), a timeout or a dropped connection (not answered): try again later."""
    return ProviderError("provider_unavailable", f"{provider}: {what}", transient=True,
                         answered=answered)


def refused(provider: str, what: str) -> ProviderError:
    """The provider will not take this document (4xx other than throttling): final."""
    return ProviderError("provider_refused", f"{provider}: {what}")
