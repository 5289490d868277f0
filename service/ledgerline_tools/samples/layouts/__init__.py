"""Invoice layouts, one module each: ``NEEDS`` (what the content may hold) and ``render(ctx)``.

A learned field ranker must not learn one layout, so each module arranges the same content the
way a different kind of issuer does; the docstring of each says what it exercises.
"""

from __future__ import annotations

import importlib

TEMPLATE_NAMES = ("letterhead", "footer_seller", "two_columns", "header_rows", "boxed",
                  "sidebar", "bill_ship_to", "retail", "multi_page")


def load(name: str):
    if name not in TEMPLATE_NAMES:
        raise KeyError(f"unknown template {name!r}; choose one of {', '.join(TEMPLATE_NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")


def describe() -> dict[str, str]:
    return {name: (load(name).__doc__ or "").strip().splitlines()[0] for name in TEMPLATE_NAMES}
