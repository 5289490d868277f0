"""Generated invoices shared by the sample-generator tests (rendering takes ~50 ms each)."""

from __future__ import annotations

import functools
import io
import re

from pdfminer.high_level import extract_text

from ledgerline_tools.samples import generate

SPACES = re.compile(r"\s+")


@functools.cache
def sample(seed: int, lang: str | None = None, template: str | None = None):
    return generate(seed, lang=lang, template=template)


@functools.cache
def page_text(seed: int, lang: str | None = None, template: str | None = None) -> str:
    pdf, _ = sample(seed, lang, template)
    return squash(extract_text(io.BytesIO(pdf)))


def squash(text: str) -> str:
    """Every run of white space (line breaks, no-break spaces) as one space."""
    return SPACES.sub(" ", text).strip()
