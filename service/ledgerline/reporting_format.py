"""Plain-text tables for the duplicate-work report (`ledgerline report duplicates --format table`)."""
from __future__ import annotations

OPERATION_COLUMNS = [
    ("day", "day"), ("operation", "operation"), ("calls", "calls"),
    ("distinct_hashes", "distinct"), ("repeat_calls", "repeats"), ("repeat_share", "share"),
    ("cost", "cost USD"), ("repeat_cost", "repeat USD"), ("overlapping_calls", "overlapping"),
    ("overlapping_cost", "overlap USD"),
]
REQUEST_COLUMNS = [
    ("day", "day"), ("total", "uploads"), ("cache_hits", "hits"), ("joined", "joined"),
    ("bypass", "bypass"), ("model_calls", "model calls"), ("cost_avoided", "avoided USD"),
    ("would_be_hits", "would-be hits"), ("would_be_joined", "would-be joined"),
    ("cost_would_be_avoided", "would-be avoided USD"),
]


def duplicates_table(reports: list[dict]) -> str:
    """Two tables: model calls per day and operation, then uploads per day."""
    op_rows = [{"day": r["day"], **op} for r in reports for op in r["operations"]]
    req_rows = [{"day": r["day"], **r["requests"]} for r in reports]
    parts = ["Model calls", _table(OPERATION_COLUMNS, op_rows) if op_rows else "(no model calls)",
             "", "Uploads", _table(REQUEST_COLUMNS, req_rows)]
    return "\n".join(parts)


def _table(columns: list[tuple[str, str]], rows: list[dict]) -> str:
    cells = [[_cell(key, row.get(key)) for key, _ in columns] for row in rows]
    heads = [title for _, title in columns]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    left = {"day", "operation"}

    def line(values):
        return "  ".join(v.ljust(w) if key in left else v.rjust(w)
                         for (key, _), v, w in zip(columns, values, widths)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(heads), rule, *(line(c) for c in cells)])


def _cell(key: str, value) -> str:
    if value is None:
        return ""
    if key == "repeat_share":
        return f"{value * 100:.1f} %" if value == 0 or value >= 0.01 else f"{value * 100:.2f} %"
    if key.endswith("cost") or key.startswith("cost"):
        return _usd(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _usd(value: float) -> str:
    """Cents; below a dollar, the digits that carry something (0.004 stays 0.004)."""
    if abs(value) >= 1:
        return f"{value:,.2f}"
    whole, _, fraction = f"{value:,.6f}".partition(".")
    fraction = fraction.rstrip("0").ljust(2, "0")
    return f"{whole}.{fraction}"
