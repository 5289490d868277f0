"""Plain-text tables for the operator reports (`ledgerline report duplicates|agreement
--format table`)."""
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


PROVIDER_COLUMNS = [
    ("day", "day"), ("operation", "operation"), ("provider", "provider"), ("calls", "calls"),
    ("cost", "cost USD"), ("provider_requests", "requests"), ("input_tokens", "input tokens"),
    ("output_tokens", "output tokens"), ("pages", "pages"), ("throttled_calls", "throttled"),
    ("estimated_calls", "estimated"),
]
AGREEMENT_COLUMNS = [
    ("day", "day"), ("provider", "provider"), ("model", "model"), ("field", "field"),
    ("compared", "compared"), ("agree", "agree"), ("differ", "differ"),
    ("only_serving", "only serving"), ("only_candidate", "only candidate"),
    ("agreement", "agreement"),
]
SHADOW_COLUMNS = [("day", "day"), ("provider", "provider"), ("model", "model"),
                  ("serving_provider", "serving"), ("comparisons", "comparisons"),
                  ("calls", "calls"), ("cost", "shadow cost USD")]


def duplicates_table(reports: list[dict]) -> str:
    """Three tables: model calls per day and operation, their spend per provider, uploads."""
    op_rows = [{"day": r["day"], **op} for r in reports for op in r["operations"]]
    spend = [{"day": r["day"], **row} for r in reports for row in r.get("spend", [])]
    req_rows = [{"day": r["day"], **r["requests"]} for r in reports]
    parts = ["Model calls", _table(OPERATION_COLUMNS, op_rows) if op_rows else "(no model calls)",
             "", "Spend per provider", _table(PROVIDER_COLUMNS, spend) if spend else "(none)",
             "", "Uploads", _table(REQUEST_COLUMNS, req_rows)]
    return "\n".join(parts)


def agreement_table(reports: list[dict]) -> str:
    """The shadow comparison: each candidate's cost, then its agreement per field."""
    candidates = [{"day": r["day"], **c} for r in reports for c in r["candidates"]]
    fields = [{"day": c["day"], "provider": c["provider"], "model": c["model"], **f}
              for c in candidates for f in c["fields"]]
    if not candidates:
        return "(no shadow comparisons)"
    return "\n".join(["Candidates", _table(SHADOW_COLUMNS, candidates), "",
                      "Agreement per field", _table(AGREEMENT_COLUMNS, fields) if fields
                      else "(no comparisons)"])


def _table(columns: list[tuple[str, str]], rows: list[dict]) -> str:
    cells = [[_cell(key, row.get(key)) for key, _ in columns] for row in rows]
    heads = [title for _, title in columns]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    left = {"day", "operation", "provider", "model", "field", "serving_provider"}

    def line(values):
        return "  ".join(v.ljust(w) if key in left else v.rjust(w)
                         for (key, _), v, w in zip(columns, values, widths)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(heads), rule, *(line(c) for c in cells)])


def _cell(key: str, value) -> str:
    if value is None:
        return ""
    if key == "agreement":
        return f"{value * 100:.1f} %"
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
