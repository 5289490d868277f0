"""A page of the positioned-text model as plain text that keeps its layout.

A chat model reads text, not boxes; the columns of an invoice (labels left, values right, the
item table's columns) survive if each line is placed at the column its x position gives and
rows keep their vertical gaps as blank lines, the way `pdftotext -layout` prints a page.
"""
from __future__ import annotations

CHAR_POINTS = 5.0   # horizontal points per character column (10 pt text is about 5 pt a glyph)
ROW_POINTS = 12.0   # vertical points per text row
ROW_TOLERANCE = 3.0  # lines whose tops are this close share a row
MAX_BLANK_ROWS = 2  # a larger vertical gap still prints as two blank rows
MIN_GAP = 2         # cells on one row stay at least this many spaces apart


def page_text(page: dict) -> str:
    """`page` as prepared (number, width, height, lines of [text, x0, y0, x1, y1])."""
    rows: list[list] = []
    for line in sorted(page["lines"], key=lambda ln: (-ln[4], ln[1])):
        if rows and abs(rows[-1][0][4] - line[4]) <= ROW_TOLERANCE:
            rows[-1].append(line)
        else:
            rows.append([line])
    out: list[str] = []
    previous_top = None
    for row in rows:
        top = row[0][4]
        if previous_top is not None:
            blank = min(MAX_BLANK_ROWS, int((previous_top - top) / ROW_POINTS) - 1)
            out.extend([""] * max(0, blank))
        previous_top = top
        text = ""
        for line_text, x0, *_ in sorted(row, key=lambda ln: ln[1]):
            column = round(x0 / CHAR_POINTS)
            pad = max(column - len(text), MIN_GAP if text else 0)
            text += " " * pad + " ".join(line_text.split())
        out.append(text.rstrip())
    return "\n".join(out)
