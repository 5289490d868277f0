"""What the extraction fuzz tests expect of any input: a document, or a specific refusal."""
from __future__ import annotations

from pathlib import Path

from ledgerline.extraction import ExtractionError, extract_pdf

CONTENT_HASH = "blake3:" + "0" * 64


def read_or_refused(path: Path) -> None:
    """Extract `path`: an invoice-v2 document or an ExtractionError with its code, nothing else
    (any other exception fails the test that calls this)."""
    try:
        document = extract_pdf(path, content_hash=CONTENT_HASH)
    except ExtractionError as exc:
        assert exc.code and exc.message
    else:
        assert document["schema_version"] == "invoice-v2"


def prepared_or_refused(path: Path) -> None:
    """Prepare `path` for a hosted provider, page images included (what the sandbox does before
    a paid call): pages, or an ExtractionError with its code, nothing else."""
    from ledgerline.adapters.providers.prepare import Preparer

    try:
        prepared = Preparer(None, page_images=True).extract(str(path), CONTENT_HASH)
    except ExtractionError as exc:
        assert exc.code and exc.message
    else:
        assert prepared.get("document") is not None or (
            len(prepared["page_images"]) == len(prepared["pages"]) > 0)
