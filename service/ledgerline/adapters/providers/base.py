"""The errors a hosted provider's call ends in.

A provider never writes the ledger itself: it reports through the call context's meter
(ports/extractor.py; the worker's writes the attempt's ledger row at once) every time something
billable happens — a request sent, a job id returned, a usage counted — so that a worker killed
a moment later has already recorded what the provider will charge for.
"""
from __future__ import annotations

from ...extraction.errors import ExtractionError
from ...ports import extractor as port


class ProviderError(ExtractionError):
    """A provider's answer that is not a result. `transient`: worth another attempt.
    `answered`: the provider said so itself (an error status), so it did no billable work;
    a timeout or a dropped connection leaves that unknown, and the request counts as billed."""

    def __init__(self, code: str, message: str, *, transient: bool = False,
                 answered: bool = True):
        super().__init__(code, message, transient=transient)
        self.answered = answered


class Throttled(ProviderError, port.Throttled):
    """The provider refused for throughput (HTTP 429, ThrottlingException,
    ProvisionedThroughputExceededException): the port's Throttled, and a provider's error that
    the provider answered itself (no work done, nothing billed)."""

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
