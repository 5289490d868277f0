"""Server-rendered SVG charts for the operator dashboard: no scripts, readable as they are.

Every number placed in the SVG is formatted here; the only text from outside (day labels)
is an ISO date, and all of it is escaped anyway.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ..domain.providers import SHADOW_OPERATION

WIDTH, HEIGHT = 960, 240
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 36

UNIQUE, REPEAT, OVERLAP = "#4e79a7", "#f28e2b", "#e15759"
SPENT, AVOIDED, WOULD_BE = "#76716f", "#59a14f", "#b6dba8"
HIT_RATE, WOULD_BE_RATE = "#4e79a7", "#9c755f"
CANDIDATE = "#b07aa1"


@dataclass(frozen=True)
class DayCalls:
    """One day's model calls, split so that the three parts add up to the calls."""
    day: str
    unique: int       # first call of its hash that day, in flight alone
    repeats: int      # repeats a finished-result cache would have removed
    overlapping: int  # in flight together with an identical call (first or repeat)


def day_calls(document: dict) -> DayCalls:
    ops = document["operations"]
    overlapping = sum(op["overlapping_calls"] for op in ops)
    overlapping_repeats = sum(op.get("overlapping_repeat_calls", 0) for op in ops)
    repeats = sum(op["repeat_calls"] for op in ops) - overlapping_repeats
    unique = sum(op["distinct_hashes"] for op in ops) - (overlapping - overlapping_repeats)
    return DayCalls(document["day"], unique, repeats, overlapping)


def calls_chart(documents: list[dict]) -> str:
    days = [day_calls(d) for d in documents]
    series = [("unique", UNIQUE, [d.unique for d in days]),
              ("repeats", REPEAT, [d.repeats for d in days]),
              ("overlapping", OVERLAP, [d.overlapping for d in days])]
    return _stacked_bars("calls-chart", "Model calls per day: unique, repeats, overlapping",
                         [d.day for d in days], series, _count)


def cost_chart(documents: list[dict]) -> str:
    spent = [sum(op["cost"] for op in d["operations"] if op["operation"] != SHADOW_OPERATION)
             for d in documents]
    avoided = [d["requests"]["cost_avoided"] for d in documents]
    would_be = [d["requests"].get("cost_would_be_avoided", 0.0) for d in documents]
    candidate = [sum(op["cost"] for op in d["operations"] if op["operation"] == SHADOW_OPERATION)
                 for d in documents]
    return _grouped_bars("cost-chart", "Cost per day: spent, avoided, would be avoided, "
                         "candidate provider (USD)", [d["day"] for d in documents],
                         [("spent", SPENT, spent), ("avoided", AVOIDED, avoided),
                          ("would be avoided (shadow)", WOULD_BE, would_be),
                          ("candidate provider (shadow spend)", CANDIDATE, candidate)], _usd)


def hit_rate_chart(documents: list[dict]) -> str:
    def rate(doc, key):
        total = doc["requests"]["total"]
        return doc["requests"][key] / total if total else None

    return _lines("hit-rate-chart", "Cache hit rate per day (share of uploads)",
                  [d["day"] for d in documents],
                  [("hit rate", HIT_RATE, [rate(d, "cache_hits") for d in documents], ""),
                   ("would-be hit rate (shadow)", WOULD_BE_RATE,
                    [rate(d, "would_be_hits") for d in documents], "6 4")])


# --- drawing -------------------------------------------------------------------------

def _frame(element_id: str, title: str, labels: list[str], top: float, fmt) -> list[str]:
    plot_h = HEIGHT - TOP - BOTTOM
    parts = [f'<svg id="{element_id}" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(title)}" '
             'xmlns="http://www.w3.org/2000/svg">', f"<title>{escape(title)}</title>"]
    for i in range(5):
        value = top * i / 4
        y = TOP + plot_h - plot_h * i / 4
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                     'stroke="#e3e3e3"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
                     f'class="axis">{escape(fmt(value))}</text>')
    step = max(1, len(labels) // 6)
    slot = _slot(len(labels))
    for i, label in enumerate(labels):
        if i % step == 0 or i == len(labels) - 1:
            x = LEFT + slot * (i + 0.5)
            parts.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" '
                         f'class="axis">{escape(label[5:])}</text>')
    return parts


def _stacked_bars(element_id, title, labels, series, fmt) -> str:
    totals = [sum(values[i] for _, _, values in series) for i in range(len(labels))]
    top = _nice(max(totals, default=0))
    parts = _frame(element_id, title, labels, top, fmt)
    plot_h, slot = HEIGHT - TOP - BOTTOM, _slot(len(labels))
    for i, label in enumerate(labels):
        y = TOP + plot_h
        for name, colour, values in series:
            h = plot_h * values[i] / top if top else 0
            if values[i] > 0:
                y -= h
                parts.append(_rect(LEFT + slot * (i + 0.15), y, slot * 0.7, h, colour,
                                   f"{label}: {fmt(values[i])} {name}", name))
    parts.append("</svg>")
    return "".join(parts)


def _grouped_bars(element_id, title, labels, series, fmt) -> str:
    top = _nice(max((v for _, _, values in series for v in values), default=0))
    parts = _frame(element_id, title, labels, top, fmt)
    plot_h, slot = HEIGHT - TOP - BOTTOM, _slot(len(labels))
    width = slot * 0.8 / len(series)
    for i, label in enumerate(labels):
        for k, (name, colour, values) in enumerate(series):
            if values[i] > 0:
                h = plot_h * values[i] / top
                parts.append(_rect(LEFT + slot * (i + 0.1) + width * k, TOP + plot_h - h,
                                   width, h, colour, f"{label}: {fmt(values[i])} {name}", name))
    parts.append("</svg>")
    return "".join(parts)


def _lines(element_id, title, labels, series) -> str:
    parts = _frame(element_id, title, labels, 1.0, _percent)
    plot_h, slot = HEIGHT - TOP - BOTTOM, _slot(len(labels))
    for name, colour, values, dash in series:
        points = [(LEFT + slot * (i + 0.5), TOP + plot_h * (1 - v))
                  for i, v in enumerate(values) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            dashes = f' stroke-dasharray="{dash}"' if dash else ""
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                         f'stroke-width="2.5"{dashes} data-series="{escape(name)}"/>')
        for (x, y), (i, v) in zip(points, [(i, v) for i, v in enumerate(values) if v is not None]):
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}" '
                         f'data-series="{escape(name)}"><title>{escape(labels[i])}: '
                         f'{_percent(v)} {escape(name)}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def _rect(x, y, w, h, colour, tip, series) -> str:
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{colour}" '
            f'data-series="{escape(series)}"><title>{escape(tip)}</title></rect>')


def legend(items: list[tuple[str, str]]) -> str:
    # A drawn swatch, not a styled one: the dashboard's CSP allows no inline style.
    return "".join(f'<span class="key"><svg class="swatch" width="12" height="12" '
                   f'aria-hidden="true"><rect width="12" height="12" rx="2" fill="{colour}"/>'
                   f"</svg>{escape(name)}</span>" for name, colour in items)


CALLS_LEGEND = [("unique", UNIQUE), ("repeats (a result cache removes these)", REPEAT),
                ("overlapping (only in-flight joining removes these)", OVERLAP)]
COST_LEGEND = [("spent", SPENT), ("avoided", AVOIDED), ("would be avoided (shadow mode)", WOULD_BE),
               ("candidate provider (shadow spend)", CANDIDATE)]
RATE_LEGEND = [("hit rate", HIT_RATE), ("would-be hit rate (shadow mode)", WOULD_BE_RATE)]


def _slot(n: int) -> float:
    return (WIDTH - LEFT - RIGHT) / max(n, 1)


def _nice(value: float) -> float:
    """A round axis maximum at or above value (1, 2, 2.5 or 5 times a power of ten)."""
    if value <= 0:
        return 1.0
    power = 10 ** (len(str(int(value))) - 1) if value >= 1 else 1.0
    while power > value:
        power /= 10
    for factor in (1, 2, 2.5, 5, 10):
        if factor * power >= value:
            return factor * power
    return 10 * power


def _count(value: float) -> str:
    return f"{value:,.0f}"


def _usd(value: float) -> str:
    return f"{value:,.2f}" if value >= 1 or value == 0 else f"{value:.3f}"


def _percent(value: float) -> str:
    return f"{value:.0%}"
