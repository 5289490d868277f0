"""Hosted models behind the extractor port: AWS Textract and OpenAI-compatible chat models.

A `HostedExtractor` is the port for a provider: the file is parsed locally first, inside the
sandbox (prepare.py: page count and sizes, positioned text, page images; an e-invoice XML is
read exactly there and costs no call), then the provider is called from the worker's own
process with network timeouts (textract.py, openai_chat.py). Each provider turns its answer
into an invoice-v2 document with provenance (documents.py), which then passes the port's check
(`adapters.extractor.conform`) like any other.

The worker hands each call a `CallContext` (the job's identity, where its original is stored,
the ledger's meter); a provider records every billable step through the meter before and after
it happens. The configuration digest of the cache key covers every provider setting except
secrets (`config_digest`): a different model, endpoint, region, window size, prompt, schema or
price is a different configuration, and a worker takes only jobs keyed with its own. The API
key is not in it: which key pays does not change the answer.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import threading

from ...domain.cache import ExtractorVersions
from ...domain.providers import Provider
from ...extraction.document import SCHEMA_VERSION
from ...ports.extractor import USAGE, CallContext, Cancelled, Health, Progress
from ..sandbox import SandboxedExtractor
from .prepare import Prepared, Preparer

EXACT_XML_MODEL = "einvoice-xml"  # the ledger's model for an XML invoice read locally


def config_digest(provider_config: dict, *, use_embedded_xml: bool) -> str:
    """SHA-256 of the provider's settings (never its secrets) and the local reading's own
    configuration, as sorted JSON."""
    from ... import extraction

    blob = json.dumps({"provider": provider_config, "embedded_xml": use_embedded_xml,
                       "local": extraction.model_config_digest(use_embedded_xml=use_embedded_xml)},
                      sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class HostedExtractor:
    """The extractor port for a hosted provider. `cancel()` stops the local preparation at once
    and the provider call at its next step (a request in flight finishes: it is billed)."""

    needs_original = True  # the sandbox prepares the pages from the file first

    def __init__(self, hosted, limits, *, use_embedded_xml: bool = True):
        self.hosted = hosted  # the provider's client (textract.py, openai_chat.py)
        self.provider: Provider = hosted.name
        self.versions = ExtractorVersions(
            schema=SCHEMA_VERSION, preprocessing=hosted.preprocessing,
            model=f"{hosted.name.value}:{hosted.model}",
            model_config_digest=config_digest(hosted.config, use_embedded_xml=use_embedded_xml))
        self._prepare = SandboxedExtractor(
            Preparer(self.versions, page_images=hosted.needs_page_images,
                     use_embedded_xml=use_embedded_xml), limits)
        self._cancel = threading.Event()

    @property
    def health(self) -> Health | None:
        """None: readiness answers for the sandbox and OCR where the rules read the documents,
        not for a hosted provider's local preparation."""
        return None

    def extract(self, path: str, content_hash: str, context: CallContext | None = None) -> dict:
        context = dataclasses.replace(context or CallContext(job_id=f"offline-{content_hash}"),
                                      cancel=self._cancel)
        prepared = Prepared.from_dict(self._prepare.extract(path, content_hash))
        if prepared.document is not None:  # read exactly, no provider involved
            context.meter.record(Progress(provider=self.provider.value,
                                          model=EXACT_XML_MODEL, cost_basis=USAGE))
            return prepared.document
        if self._cancel.is_set():
            raise Cancelled(before_start=True)
        return self.hosted.extract(prepared, content_hash, context)

    def warm(self, stop: threading.Event | None = None) -> None:
        """Start the local reading's fork server before the first claim (see the worker)."""
        self._prepare.warm(stop)

    def cancel(self) -> None:
        self._cancel.set()
        self._prepare.cancel()

    def resume(self) -> None:
        self._cancel.clear()
        self._prepare.resume()


def open_provider(kind: Provider, settings, *, store=None):
    """The provider object for `kind` (not the rules, which need no network)."""
    if kind is Provider.TEXTRACT:
        from .textract import TextractProvider

        locate = getattr(store, "s3_location", None)
        return TextractProvider(settings, bucket_of=locate)
    if kind is Provider.OPENAI:
        from .openai_chat import OpenAIProvider

        return OpenAIProvider(settings)
    raise ValueError(f"{kind.value} is not a hosted provider")
