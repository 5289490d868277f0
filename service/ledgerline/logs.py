"""Log lines an operator can search: one JSON object a line where nobody reads them as they come
(a pipe, a file, a container's log), readable lines on a terminal.

Every record goes through the root logger's one handler, whatever wrote it: this package
(`logging` or structlog), gunicorn's error log (`GunicornLogger`), the libraries. Each line has
`timestamp` (UTC), `level`, `logger` and `event` (what happened), plus the keys of its kind:

- one line per HTTP request (`logger` "ledgerline.request", http/request_log.py): `method`,
  `route` (the template, `/v1/accounts/{account}/invoices`), `status`, `duration_ms`,
  `account`, `key_id` (never the key), `cache`, `request_id`;
- one line per job attempt (`logger` "ledgerline.job", service_layer/job_log.py): `job`,
  `invoice`, `account`, `attempt`, `provider`, `outcome`, `duration_ms`, `cost`, and the
  `request_id` of the upload that created the job.

`LEDGERLINE_LOG_FORMAT` chooses: `auto` (JSON unless standard error is a terminal), `json`,
`console`.
"""
from __future__ import annotations

import contextvars
import logging
import sys

import structlog

from .access_log import RedactingLogger

_SHARED = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def _leading_keys(_logger, _name, event: dict) -> dict:
    """When, how bad, where from and what first; then the line's own keys."""
    first = {key: event.pop(key) for key in ("timestamp", "level", "logger", "event")
             if key in event}
    return {**first, **event}


def configure(level: str = "info", fmt: str = "auto", stream=None) -> None:
    """Send every log record, at `level` and above, to `stream` (standard error) as a line."""
    stream = stream or sys.stderr
    as_json = fmt == "json" or (fmt == "auto" and not _is_terminal(stream))
    renderer = (structlog.processors.JSONRenderer(sort_keys=False) if as_json
                else structlog.dev.ConsoleRenderer(colors=False, sort_keys=False))
    ending = [structlog.processors.dict_tracebacks, _leading_keys] if as_json else []
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_SHARED,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *ending,
                    renderer]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def _through_logging() -> None:
    """structlog's lines are records of the standard library's logging, whichever process
    writes them (configured or not: a library user's handlers get them too)."""
    structlog.configure(
        # A line below its logger's level is dropped before the processors time-stamp it (a
        # worker writes one a job).
        processors=[structlog.stdlib.filter_by_level, *_SHARED,
                    structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True)


_through_logging()


def configure_from(settings, stream=None) -> None:
    configure(settings.log_level, settings.log_format, stream)


_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("ledgerline_request_id",
                                                                      default=None)


def bind_request(request_id: str | None) -> None:
    """Put `request_id` on every line this request (greenlet, thread) writes from now on;
    None when it ends."""
    _request_id.set(request_id)
    if request_id is None:
        structlog.contextvars.unbind_contextvars("request_id")
    else:
        structlog.contextvars.bind_contextvars(request_id=request_id)


def current_request_id() -> str | None:
    """The id of the HTTP request in progress, if any (an upload stores it with its job)."""
    return _request_id.get()


def get(name: str):
    """A logger whose keyword arguments become keys of the line: `get(...).info("request",
    status=201)`."""
    return structlog.stdlib.get_logger(name)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class GunicornLogger(RedactingLogger):
    """gunicorn's error log as lines of the same kind as the service's own: its records go to
    the root logger's handler (configured here from the settings when gunicorn sets up its
    logging, in the master and in every worker)."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        from .config import Settings

        settings = Settings.from_env()  # validated already by gunicorn_conf
        configure_from(settings)
        self.error_log.handlers[:] = []
        self.error_log.propagate = True

