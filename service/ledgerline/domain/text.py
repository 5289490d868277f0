"""Text a client or an extractor hands us, as the database can store it and a reader can read it.

PostgreSQL refuses NUL in text, UTF-8 has no lone surrogates (SQLite's driver and every JSON
or CSV writer fail on them), and control characters garble a CSV export or a log line. Free
text (a field value, a line item's description, a correction's reason, a review note) is
cleaned: control characters become spaces, unencodable code points go, runs of white space
become one space. Text that must stay exact (a webhook URL) is refused instead, naming the
field (`unstorable`).
"""
from __future__ import annotations

import re
import unicodedata

# Unicode's categories Cc (control) and Cs (surrogate), which the standard never changes: the
# same characters unicodedata.category names, matched in C rather than looked up one by one
# (a worker conforms every field, line item and reason of every extraction with this).
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
SURROGATE = re.compile("[\ud800-\udfff]")


def printable(value) -> str | None:
    """Printable text or None (not a string, or nothing printable left)."""
    if not isinstance(value, str):
        return None
    cleaned = CONTROL.sub(" ", SURROGATE.sub("", value))
    cleaned = " ".join(cleaned.split())
    return cleaned or None


def unstorable(value: str) -> str | None:
    """Why `value` cannot be stored as it is (None: it can)."""
    for ch in value:
        category = unicodedata.category(ch)
        if category == "Cs":
            return "a lone surrogate (not a character: UTF-8 cannot carry it)"
        if category == "Cc":
            return f"the control character U+{ord(ch):04X}"
    return None
