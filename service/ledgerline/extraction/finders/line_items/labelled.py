"""Lines printed as blocks of labelled values instead of a table.

An EN 16931 invoice rendered term by term (a visualisation of its XML) prints each line as a
block: "Menge 10", "Gesamtpreis (netto) 10.000,00", then "Bezeichnung: Schrauben". The label of
the line's net amount (:data:`VOCABULARY.line_amount_label`) opens an item; its quantity is the
quantity label's figure printed since the item before it, its description the value of the
first description label ("Bezeichnung:", "Nom de l'article:") after it, before the next item.
"""

from __future__ import annotations

from decimal import Decimal

from ...document import LINE_ITEM_KEYS
from ...geometry import DocText
from ...vocabulary import VOCABULARY as V
from .cells import column_kind

LABEL_CHARS = 40  # a label line longer than this is a sentence, not a label


def value_right_of(dt: DocText, i: int) -> tuple[Decimal | None, str | None]:
    """The first figure printed after line i's label on its row, and the row's text there."""
    label = V.line_amount_label.match(dt.folded[i])
    start = label.end() if label else len(dt.lines[i].text)
    for value, s, _e, _dec in dt.amounts(i):
        if s >= start:
            return value, dt.lines[i].text[start:].strip()
    for j in dt.right_of(i):
        got = dt.amounts(j)
        if got:
            return got[0][0], dt.lines[j].text.strip()
    return None, None


def text_right_of(dt: DocText, i: int) -> str | None:
    right = dt.right_of(i)
    return dt.lines[right[0]].text.strip() if right else None


def short_label(dt: DocText, i: int) -> str | None:
    folded = dt.folded[i].strip()
    return folded if 0 < len(folded) <= LABEL_CHARS else None


def labelled_items(dt: DocText) -> list[dict]:
    """The items of the document's labelled line blocks, in reading order."""
    order = sorted(range(len(dt.lines)), key=lambda i: (dt.lines[i].page, -dt.lines[i].y1,
                                                        dt.lines[i].x0))
    opens = [n for n, i in enumerate(order) if V.line_amount_label.match(dt.folded[i])]
    items = []
    for k, n in enumerate(opens):
        amount, _ = value_right_of(dt, order[n])
        if amount is None:
            continue
        since = opens[k - 1] + 1 if k else 0
        until = opens[k + 1] if k + 1 < len(opens) else len(order)
        item = dict.fromkeys(LINE_ITEM_KEYS)
        item["net_amount"] = amount
        for i in reversed(order[since:n]):
            label = short_label(dt, i)
            if label and column_kind(label) == "quantity":
                item["quantity"] = value_right_of(dt, i)[0]
                if item["quantity"] is not None:
                    break
        for i in order[n + 1 : until]:
            label = short_label(dt, i)
            if label and label.endswith(":") and column_kind(label) == "description":
                item["description"] = text_right_of(dt, i)
                break
        items.append(item)
    return items
