"""Pages of a list: `limit` and `cursor` in, `{"items": [...], "next_cursor": ...}` out.

A cursor is the sort key of the last item shown, `<time>|<id>` in unpadded URL-safe base64: the
list goes on after it. The client treats it as opaque; anything this service could not have
issued is 400, never a query.
"""
from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic.json_schema import SkipJsonSchema

from ..domain.errors import BadRequest
from .models import Strict

MAX_PAGE = 200
NOT_ISSUED = "cursor is not one this service issued"


def _digits(value):
    # int() would also take " 5", "1_0" or a thousand digits.
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 4):
        raise ValueError("limit must be an integer")
    return value


Limit = Annotated[int, Field(ge=1, le=MAX_PAGE), BeforeValidator(_digits)]


def cursor_field(max_length: int) -> Any:
    # The constraints on the string itself: pydantic leaves a pattern on the optional out of
    # the schema.
    issued = Annotated[str, Field(min_length=1, max_length=max_length, pattern="^[A-Za-z0-9_-]+$")]
    return Annotated[issued | SkipJsonSchema[None], Field(
        description="`next_cursor` of the previous page, as issued; any other value is 400.")]


class PageQuery(Strict):
    """The two parameters of every paged list (a list's query model adds its filters)."""
    limit: Limit = 50


def encode_cursor(time: str, item_id: str) -> str:
    return base64.urlsafe_b64encode(f"{time}|{item_id}".encode()).decode().rstrip("=")


def decode_cursor(value: str | None, parse: Callable[[str, str], Any]):
    """`parse(time, id)` of the cursor, or None without one; 400 for any cursor this service
    did not issue (parse raises ValueError for a part it refuses)."""
    if not value:
        return None
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        time, item_id = raw.split("|")
        return parse(time, item_id)
    except (ValueError, BadRequest):
        raise BadRequest(NOT_ISSUED) from None


def page(items: list, limit: int, sort_key: Callable[[Any], tuple[str, str]]) -> dict:
    """A full page has a next one (possibly empty); a shorter page is the last."""
    last = items[-1] if len(items) == limit else None
    return {"items": items, "next_cursor": None if last is None else encode_cursor(*sort_key(last))}
