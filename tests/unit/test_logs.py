"""Log lines: JSON objects where nobody watches the stream, readable lines on a terminal."""
from __future__ import annotations

import io
import json
import logging

import pytest

from ledgerline import logs


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:], root.level = handlers, level


def test_lines_are_json_objects_on_a_pipe_with_the_request_id_bound():
    out = io.StringIO()
    logs.configure("info", "auto", out)
    logs.bind_request("req-1")
    try:
        logs.get("ledgerline.request").info("request", status=201, route="/x/{id}")
        logging.getLogger("gunicorn.error").warning("plain %s record", "stdlib")
    finally:
        logs.bind_request(None)
    logs.get("ledgerline.job").debug("not at info")
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert list(first)[:4] == ["timestamp", "level", "logger", "event"]
    assert first["event"] == "request" and first["status"] == 201
    assert first["request_id"] == "req-1" and logs.current_request_id() is None
    assert second == {**second, "event": "plain stdlib record", "level": "warning",
                      "logger": "gunicorn.error", "request_id": "req-1"}


def test_lines_are_for_people_on_a_terminal_unless_json_is_asked_for():
    screen = Terminal()
    logs.configure("info", "auto", screen)
    logs.get("ledgerline.request").info("request", status=201)
    text = screen.getvalue()
    assert "request" in text and "status=201" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    forced = Terminal()
    logs.configure("info", "json", forced)
    logs.get("ledgerline.request").info("request", status=201)
    assert json.loads(forced.getvalue())["status"] == 201


def test_an_exception_stays_on_its_one_line():
    out = io.StringIO()
    logs.configure("info", "json", out)
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("ledgerline.x").exception("it failed")
    [line] = out.getvalue().splitlines()
    assert json.loads(line)["exception"][0]["exc_type"] == "ValueError"
