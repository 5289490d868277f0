"""The pages of an invoice's original as images, for callers who may read the invoice."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..adapters.page_images import Page, PageCache
from ..domain.errors import NotFound
from ..domain.identity import Caller
from ..formats import HEAD_BYTES, detect
from . import reads

if TYPE_CHECKING:
    from ..bootstrap import Services


def _cache(services: Services) -> PageCache:
    if services.page_cache is None:
        services.page_cache = PageCache(services.settings.spool_dir)
    return services.page_cache


def pages(services: Services, caller: Caller, account: str, invoice: dict) -> list[Page]:
    """The pages of `invoice` (as `reads.invoice` gave it to `caller`), rendered once: none for
    an e-invoice XML, which has no pages."""
    cache = _cache(services)
    found = cache.pages(account, invoice["content_hash"])
    if found is not None:
        return found
    try:
        body = reads.original(services, caller, account, invoice["id"])
    except NotFound:
        return []  # the original is gone from the store: the fields still show
    with body, tempfile.NamedTemporaryFile(dir=services.settings.spool_dir) as spool:
        head = body.read(HEAD_BYTES)
        kind = detect(head)
        if kind.media_type == "application/xml":
            return []
        spool.write(head)
        shutil.copyfileobj(body, spool)
        spool.flush()
        return cache.render(account, invoice["content_hash"], Path(spool.name),
                            "pdf" if kind.media_type == "application/pdf" else "image")


def page_png(services: Services, caller: Caller, account: str, invoice_id: str,
             number: int) -> Path:
    """One page's PNG; 404 for an invoice the caller may not read or a page it has not."""
    invoice = reads.invoice(services, caller, account, invoice_id)  # authorises every time
    cache = _cache(services)
    if cache.pages(account, invoice["content_hash"]) is None:
        pages(services, caller, account, invoice)
    path = cache.png(account, invoice["content_hash"], number)
    if path is None:
        raise NotFound("no such page")
    return path
