"""Any OpenAI-compatible chat-completions endpoint behind the extractor port (OpenAI, Azure
OpenAI, vLLM, llama.cpp's server, Ollama), through the official `openai` client.

The model reads the positioned text of the pages (layout_text), a window of pages per request,
with the bounded working state (working_state.py) and, for a vision model
(LEDGERLINE_OPENAI_VISION), each page's image beside its text, and answers in the findings schema
(findings_schema.py, strict structured output). Cost is the response's `usage` times the
configured prices. Chat completions have no idempotency key: a retried request is billed
again, so every request is in the ledger before it is sent (with an estimate of its input),
and its `usage` replaces the estimate when the answer comes. The client's own retries are off
for the same reason; throttling is retried here.
"""
from __future__ import annotations

import base64
import json

from ...domain.providers import (Provider, estimated_tokens, image_tokens, throttle_delay,
                                  token_cost)
from ...extraction.errors import ExtractionError
from ...ports.extractor import ESTIMATE, USAGE, CallContext, Cancelled, Progress
from . import documents
from .base import ProviderError, Throttled, refused, unavailable
from .findings_schema import SCHEMA_NAME, findings_schema, response_format
from .layout_text import page_text
from .prepare import Prepared
from .working_state import WorkingState

PROMPT_VERSION = "invoice-pages-2026.12.1"
LOCATED_CONFIDENCE = 0.9    # the value's printed text was found on its page
UNLOCATED_CONFIDENCE = 0.5  # the model gave a value its page does not show as such: review
MAX_THROTTLED_WAIT_SECONDS = 120.0  # once part of a document is billed, throttling waits this long
SYSTEM_PROMPT = """You read invoices. Each message gives a working state (the fields already \
confirmed on earlier pages, the item table still open, totals seen, unresolved conflicts) and \
the text of the next pages, laid out as printed. Report what these pages show, in the schema: \
each field's value in the form its description gives and the exact text you read it from; the \
item rows printed on these pages; whether the item table goes on. Do not repeat earlier pages' \
rows. Use null where these pages do not show a field. Copy numbers and identifiers exactly."""


class OpenAIProvider:
    name = Provider.OPENAI

    def __init__(self, settings, *, client=None):
        self.model = settings.openai_model
        self.needs_page_images = settings.openai_vision
        self.pages_per_call = settings.openai_pages_per_call
        self.max_output_tokens = settings.openai_max_output_tokens
        self.prices = dict(input_per_mtok=settings.openai_price_input_per_mtok,
                           output_per_mtok=settings.openai_price_output_per_mtok)
        self._client = client or _client(settings)
        self.preprocessing = f"layout-text-{PROMPT_VERSION}"
        self.config = {"provider": self.name.value, "model": self.model,
                       "base_url": str(self._client.base_url),
                       "pages_per_call": self.pages_per_call,
                       "vision": self.needs_page_images,
                       "max_output_tokens": self.max_output_tokens,
                       "prompt": PROMPT_VERSION, "schema": findings_schema(),
                       "price_input_per_mtok": str(self.prices["input_per_mtok"]),
                       "price_output_per_mtok": str(self.prices["output_per_mtok"])}

    def extract(self, prepared: Prepared, content_hash: str, context: CallContext) -> dict:
        pages = prepared.pages
        if not any(page["lines"] for page in pages):
            raise ExtractionError("no_text_layer", "the document has no text for the model to "
                                  "read (scanned image?)")
        call = _Call(self, Progress(provider=self.name.value, model=self.model), context)
        state, items = WorkingState(), []
        images = prepared.page_images if self.needs_page_images else None
        for start in range(0, len(pages), self.pages_per_call):
            window = pages[start:start + self.pages_per_call]
            findings = call.ask(_prompt(state, window, len(pages)),
                                images[start:start + self.pages_per_call] if images else [])
            items += state.merge(findings, lambda text, w=window: _page_of(text, w))
        found = {name: _found(reading, pages) for name, reading in state.fields.items()}
        return documents.build(source="text_layer", content_hash=content_hash, pages=len(pages),
                               found=found, line_items=[documents.line_item(**i) for i in items],
                               reasons=state.review_reasons())


def _prompt(state: WorkingState, window: list[dict], total: int) -> str:
    parts = ["WORKING STATE", state.for_prompt()]
    for page in window:
        parts += ["", f"PAGE {page['number']} OF {total}", page_text(page)]
    return "\n".join(parts)


def _user_message(prompt: str, images: list[bytes]) -> dict:
    """The text alone, or (for a vision model) the text and then each page's PNG."""
    if not images:
        return {"role": "user", "content": prompt}
    return {"role": "user", "content": [{"type": "text", "text": prompt}] + [
        {"type": "image_url", "image_url": {
            "url": "data:image/png;base64," + base64.b64encode(png).decode(), "detail": "high"}}
        for png in images]}


def _png_tokens(png: bytes) -> int:
    """The estimate for one page image, from the PNG header's size (IHDR: width, height)."""
    return image_tokens(int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big"))


def _page_of(text: str, window: list[dict]) -> int:
    page, _ = documents.locate(text, window)
    return page or window[0]["number"]


def _found(reading, pages: list[dict]) -> documents.Found:
    page_lines = [p for p in pages if p["number"] == reading.page]
    page, bbox = documents.locate(reading.printed or reading.value, page_lines)
    return documents.Found(value=reading.value, raw=reading.printed, page=reading.page,
                           bbox=bbox,
                           confidence=LOCATED_CONFIDENCE if page else UNLOCATED_CONFIDENCE)


class _Call:
    """One attempt's requests, each in the ledger before it is sent."""

    def __init__(self, provider: OpenAIProvider, progress: Progress, context: CallContext):
        self.provider, self.progress, self.context = provider, progress, context

    def ask(self, prompt: str, images: list[bytes]) -> dict:
        waited, throttled = 0.0, 0
        while True:
            try:
                return self._send(prompt, images)
            except Throttled as exc:
                if self.progress.requests == 0:
                    raise  # nothing billed yet: the attempt waits in the queue, not here
                throttled += 1
                delay = throttle_delay(throttled, exc.retry_after)
                if waited + delay > MAX_THROTTLED_WAIT_SECONDS:
                    raise unavailable("openai", f"still throttled after {waited:.0f} s") from exc
                self._wait(delay)
                waited += delay

    def _send(self, prompt: str, images: list[bytes]) -> dict:
        progress = self.progress
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, _user_message(prompt, images)]
        self._stop_if_cancelled()
        pending = (estimated_tokens(SYSTEM_PROMPT) + estimated_tokens(prompt)
                   + sum(_png_tokens(png) for png in images))
        progress.requests += 1
        self._price(pending, ESTIMATE)
        try:
            raw = self._request(messages)
        except Throttled:
            progress.requests -= 1  # a 429 did no work: not billed
            self._price(0, USAGE if progress.requests else ESTIMATE)
            raise
        except ProviderError as exc:
            if exc.answered:  # an error status: no work done, nothing billed
                progress.requests -= 1
                self._price(0, USAGE if progress.requests else ESTIMATE)
            else:  # a timeout or a dropped connection may still be billed: the estimate stays
                progress.input_tokens += pending
                self._price(0, ESTIMATE)
            raise
        completion = raw.parse()
        usage = completion.usage
        progress.input_tokens += usage.prompt_tokens if usage else pending
        progress.output_tokens += usage.completion_tokens if usage else 0
        progress.request_id = raw.headers.get("x-request-id") or completion.id
        self._price(0, USAGE if usage else ESTIMATE)
        return _findings(completion)

    def _price(self, pending_input: int, basis: str) -> None:
        progress = self.progress
        progress.cost = token_cost(progress.input_tokens + pending_input, progress.output_tokens,
                                   **self.provider.prices)
        progress.cost_basis = basis
        self.context.meter.record(progress.snapshot())

    def _request(self, messages: list[dict]):
        import openai

        provider = self.provider
        try:
            return provider._client.chat.completions.with_raw_response.create(
                model=provider.model, messages=messages, temperature=0,
                max_tokens=provider.max_output_tokens, response_format=response_format())
        except openai.RateLimitError as exc:
            raise Throttled("openai: 429 rate limited", _retry_after(exc.response)) from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (401, 403, 408, 409):
                raise unavailable("openai", f"HTTP {exc.status_code}") from exc
            raise refused("openai", f"HTTP {exc.status_code}: {exc.message[:200]}") from exc
        except openai.APIError as exc:  # timeouts, refused or dropped connections
            raise unavailable("openai", type(exc).__name__, answered=False) from exc

    def _wait(self, seconds: float) -> None:
        self.context.cancel.wait(seconds)
        self._stop_if_cancelled()

    def _stop_if_cancelled(self) -> None:
        if self.context.cancel.is_set():
            raise Cancelled("the provider call was stopped (shutdown or lost lease)",
                            before_start=self.progress.requests == 0)


def _findings(completion) -> dict:
    choice = completion.choices[0] if completion.choices else None
    if choice is None:
        raise unavailable("openai", "an answer without choices")
    if getattr(choice.message, "refusal", None):
        raise refused("openai", f"the model refused: {choice.message.refusal[:200]}")
    if choice.finish_reason == "length":
        raise ProviderError("provider_truncated", "openai: the answer was cut off at "
                            "LEDGERLINE_OPENAI_MAX_OUTPUT_TOKENS; use fewer pages per call")
    try:
        findings = json.loads(choice.message.content or "")
    except ValueError:
        raise unavailable("openai", f"an answer that is not the {SCHEMA_NAME} JSON") from None
    if not isinstance(findings, dict):
        raise unavailable("openai", f"an answer that is not the {SCHEMA_NAME} object")
    return findings


def _retry_after(response) -> float | None:
    try:
        return float(response.headers.get("retry-after"))
    except (AttributeError, TypeError, ValueError):
        return None


def _client(settings):
    import openai

    return openai.OpenAI(base_url=settings.openai_base_url, api_key=settings.openai_key(),
                         timeout=settings.provider_timeout_seconds, max_retries=0)


