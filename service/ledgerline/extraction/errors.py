"""The one exception type extraction raises for input it cannot handle."""

from __future__ import annotations


class ExtractionError(Exception):
    """Bad or unreadable input.

    ``code`` is stable and machine-readable (``no_text_layer``, ``pdf_encrypted``,
    ``pdf_malformed``, ``pdf_too_large``, ``file_not_found``); ``transient`` says whether trying
    again later could succeed (an I/O hiccup) or never will (the bytes themselves are the problem).
    """

    def __init__(self, code: str, message: str, *, transient: bool = False):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.transient = transient

    def __reduce__(self):  # keep picklable across process pools
        return (_rebuild, (self.code, self.message, self.transient))


def _rebuild(code: str, message: str, transient: bool) -> ExtractionError:
    return ExtractionError(code, message, transient=transient)
