"""OpenAI's chat-completions REST API (`POST /v1/chat/completions`), for the official `openai`
client pointed here with `base_url`.

Documented semantics it keeps: a bearer API key (401 `invalid_api_key` otherwise); structured
output with `response_format: {type: json_schema, json_schema: {name, strict: true, schema}}`,
where a strict schema must have `additionalProperties: false` and every property required
(400 otherwise), and the answer is valid under the schema; `usage` with prompt, completion and
total tokens; a user message's content as a string or as parts (`text`, `image_url` with a
base64 `data:` URL of a PNG or JPEG, counted at the published `detail: high` rate: 85 tokens and
170 a 512-pixel tile); the `x-request-id` header; 429 `rate_limit_exceeded` with `retry-after` when
throttled. A completed request is charged (its tokens); a 429 is not. There is no idempotency
key: the same request sent twice is two charges.

Its "model" reads the layout text of the pages in the prompt back into positioned lines and
runs the project's own finders and choice on them, so its answers come from the document.
Token counts are the project's estimate (about four bytes a token), not a real tokenizer: the
benchmark's figures are therefore in these units, and proportional to a real model's.

Not simulated: organisation and project headers, streaming, the exact `x-ratelimit-*` budget
arithmetic, logprobs, images by http(s) URL, and reading images: the model reads the text
parts only, as a text-and-image request to a real vision model is not documented precisely
enough (which of the two wins where they differ) to be simulated.
"""
from __future__ import annotations

import base64
import binascii
import io
import json
import re
import time
import uuid

from PIL import Image

from tests.standins.server import StandIn, main

PAGE = re.compile(r"^PAGE (\d+) OF (\d+)$", re.M)
MESSAGE_OVERHEAD_TOKENS = 4  # per message, for its role and framing
CELL = re.compile(r"\S(?:.*?\S)?(?=\s{2,}|\s*$)")
PAGE_WIDTH = 612.0


class OpenAIStandIn(StandIn):
    def __init__(self, *, api_key: str = "sk-standin", model: str = "standin-1"):
        super().__init__()
        self.api_key = api_key
        self.model = model

    def operation_of(self, handler) -> str:
        return handler.path.split("?")[0].rstrip("/").rsplit("/v1/", 1)[-1]

    def handle(self, handler, operation: str, raw: bytes):
        if handler.headers.get("Authorization") != f"Bearer {self.api_key}":
            return self._error(401, "Incorrect API key provided.", "invalid_request_error",
                               "invalid_api_key")
        if operation != "chat/completions":
            return self._error(404, f"Unknown request URL: {handler.path}",
                               "invalid_request_error", "unknown_url")
        try:
            body = json.loads(raw)
        except ValueError:
            return self._error(400, "We could not parse the JSON body of your request.",
                               "invalid_request_error", None)
        schema, problem = _strict_schema(body.get("response_format"))
        if problem:
            return self._error(400, f"Invalid schema for response_format: {problem}",
                               "invalid_request_error", "invalid_json_schema")
        messages = body.get("messages") or []
        try:
            images = [_image_size(part) for m in messages for part in _parts(m)
                      if part.get("type") == "image_url"]
        except ValueError:
            return self._error(400, "You uploaded an unsupported image. Please make sure your "
                               "image is valid.", "invalid_request_error", "invalid_image_format")
        answer = json.dumps(answer_for(messages, schema) if schema else {})
        if schema:
            import jsonschema

            jsonschema.validate(json.loads(answer), schema)  # structured output holds
        prompt = sum(_tokens(_text_of(m)) + MESSAGE_OVERHEAD_TOKENS for m in messages) + sum(
            image_tokens(*size) for size in images)
        completion = _tokens(answer)
        request_id = f"req_{uuid.uuid4().hex}"
        self.charge(request_id=request_id, prompt_tokens=prompt, completion_tokens=completion,
                    state_tokens=_state_tokens(messages), images=[list(size) for size in images])
        payload = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion",
            "created": int(time.time()), "model": body.get("model") or self.model,
            "system_fingerprint": "fp_standin",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": answer, "refusal": None}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }
        return 200, {"Content-Type": "application/json", "x-request-id": request_id}, \
            json.dumps(payload).encode()

    def throttled(self, operation: str, seconds: float, code: str = ""):
        status, headers, payload = self._error(
            429, "Rate limit reached for requests. Please try again later.", "requests",
            "rate_limit_exceeded")
        return status, {**headers, "retry-after": f"{seconds:g}"}, payload

    def server_error(self, operation: str):
        return self._error(500, "The server had an error while processing your request.",
                           "server_error", None)

    def _error(self, status: int, message: str, kind: str, code):
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        return status, {"Content-Type": "application/json",
                        "x-request-id": f"req_{uuid.uuid4().hex}"}, json.dumps(body).encode()

    def billed_requests(self) -> int:
        return len(self.tally.as_dict()["charges"])

    def prompt_tokens(self) -> list[int]:
        return [c["prompt_tokens"] for c in self.tally.as_dict()["charges"]]


def _tokens(text: str) -> int:
    from ledgerline.domain.providers import estimated_tokens

    return estimated_tokens(text)


def image_tokens(width: int, height: int) -> int:
    from ledgerline.domain.providers import image_tokens

    return image_tokens(width, height)


def _parts(message: dict) -> list[dict]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _text_of(message: dict) -> str:
    """A message's text: its content string, or its text parts in order."""
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text") or "" for part in content if part.get("type") == "text")


def _image_size(part: dict) -> tuple[int, int]:
    """(width, height) of an `image_url` part's base64 PNG or JPEG; ValueError otherwise."""
    url = (part.get("image_url") or {}).get("url") or ""
    head, _, data = url.partition(",")
    if head not in ("data:image/png;base64", "data:image/jpeg;base64"):
        raise ValueError("not a base64 PNG or JPEG data URL")
    try:
        raw = base64.b64decode(data, validate=True)
    except binascii.Error:
        raise ValueError("not base64") from None
    try:
        with Image.open(io.BytesIO(raw)) as image:
            return image.size
    except OSError:
        raise ValueError("not an image") from None


def _state_tokens(messages: list[dict]) -> int:
    """Tokens of the working state the prompt carries (the line after WORKING STATE)."""
    text = next((_text_of(m) for m in reversed(messages) if m.get("role") == "user"), "")
    lines = text.split("\n")
    if len(lines) > 1 and lines[0] == "WORKING STATE":
        return _tokens(lines[1])
    return 0


def _strict_schema(response_format) -> tuple[dict | None, str | None]:
    if not response_format:
        return None, None
    if response_format.get("type") != "json_schema":
        return None, None
    spec = response_format.get("json_schema") or {}
    schema = spec.get("schema")
    if not spec.get("name") or not isinstance(schema, dict):
        return None, "json_schema needs a name and a schema"
    if spec.get("strict"):
        problem = _strict_problem(schema, "schema")
        if problem:
            return None, problem
    return schema, None


def _strict_problem(node: dict, where: str) -> str | None:
    """Strict mode: every object closed and every property required."""
    if node.get("type") == "object":
        if node.get("additionalProperties") is not False:
            return f"In context={where}, 'additionalProperties' is required to be false"
        properties = node.get("properties") or {}
        if set(node.get("required") or []) != set(properties):
            return f"In context={where}, 'required' must list every key in 'properties'"
        for name, child in properties.items():
            problem = _strict_problem(child, f"{where}.{name}")
            if problem:
                return problem
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        return _strict_problem(node["items"], f"{where}[]")
    return None


# -- the "model": the project's finders on the prompt's pages ---------------------------------

def answer_for(messages: list[dict], schema: dict) -> dict:
    text = next((_text_of(m) for m in reversed(messages) if m.get("role") == "user"), "")
    pages = pages_in(text)
    fields, items = read_pages(pages)
    names = schema["properties"]["fields"]["properties"]
    return {"fields": {name: fields.get(name, {"value": None, "printed": None})
                       for name in names},
            "line_items": items, "table_columns": [], "table_continues": False}


def pages_in(prompt: str) -> list:
    """(number, layout text) of each page in the prompt."""
    marks = list(PAGE.finditer(prompt))
    return [(int(m.group(1)), prompt[m.end() + 1:(marks[i + 1].start() if i + 1 < len(marks)
                                                  else len(prompt))].rstrip("\n"))
            for i, m in enumerate(marks)]


def read_pages(pages: list) -> tuple[dict, list]:
    from ledgerline.adapters.providers.layout_text import CHAR_POINTS, ROW_POINTS
    from ledgerline.extraction import document as D
    from ledgerline.extraction.finders import find_candidates
    from ledgerline.extraction.finders.line_items import extract_line_items
    from ledgerline.extraction.geometry import DocText
    from ledgerline.extraction.model import Line, Page
    from ledgerline.extraction.ranker import choose

    model_pages = []
    for number, text in pages:
        rows = text.split("\n")
        height = (len(rows) + 2) * ROW_POINTS
        lines = []
        for r, row in enumerate(rows):
            top = height - (r + 1) * ROW_POINTS
            for cell in CELL.finditer(row):
                x0 = cell.start() * CHAR_POINTS
                chars = [(x0 + k * CHAR_POINTS, x0 + (k + 1) * CHAR_POINTS)
                         for k in range(len(cell.group()))]
                lines.append(Line(page=number, x0=x0, y0=top - ROW_POINTS * 0.8,
                                  x1=x0 + len(cell.group()) * CHAR_POINTS, y1=top,
                                  text=cell.group(), chars=chars))
        model_pages.append(Page(number, PAGE_WIDTH, height, lines))
    if not any(p.lines for p in model_pages):
        return {}, []
    dt = DocText(model_pages)
    found = find_candidates(dt)
    items = extract_line_items(dt)
    choice = choose(dt, found, items)
    fields = {}
    for name, candidate in choice.fields.items():
        if candidate is not None:
            fields[name] = {"value": D.json_value(name, candidate.out_value()),
                            "printed": candidate.raw}
    return fields, [D.line_item_entry(item) for item in items]


if __name__ == "__main__":
    main(OpenAIStandIn, "A local stand-in for OpenAI's chat-completions API")
