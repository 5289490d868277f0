"""Features of a candidate, as a person reading the invoice would weigh them.

One row per place a value is printed (a field's candidates at the same spot merge into one row)
with, in a fixed order (:data:`FEATURE_NAMES`):

- the label evidence the finders recorded (label weight, where the value sits relative to the
  label, its rank in that row or column) and the party-block kinds of name candidates;
- the labels around the value, as *label classes* (which field a label names, in any vocabulary
  language, never the label's words): on the value's own line before it, in the cell to its left,
  in the column above it (a header row over a value row), on the line above;
- the column of totals an amount stands in: how many amounts are stacked over and under it and
  whether one of them is a deduction (a negative figure, a discount row), as a subtotal stands
  over a discount or a commission and the total to pay under it;
- the position: page, height and width on the page, the text's height against the document's
  usual height (font size), where its row stands among the rows that carry amounts;
- the value: type, magnitude, how often it is printed, whether two other amounts add up to it
  (net + tax = gross) or it adds up with another to a third;
- the hand-tuned rules' verdict (their score, whether they would pick this value), which the
  model may trust where the rules are right and overrule where they are not.

The finders' output is read, never changed; :func:`field_rows` groups candidates by place and
returns the rows with the candidates they stand for.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from decimal import Decimal

from ..candidates import BELOW, RIGHT, SAME_LINE, UNDER_COLUMN_HEADER, Candidate
from ..document import AMOUNT_FIELDS, DATE_FIELDS, ID_FIELDS
from ..finders import parties as P
from ..finders.header_fields import LABEL_FIELDS, _plain_hits
from ..geometry import DocText
from ..text import fold
from ..vocabulary import VOCABULARY as V

# Label classes: what a label near a value names. 0 is "no label".
LABEL_CLASSES = (
    "none",
    *LABEL_FIELDS,
    "seller_vat_id",
    "iban",
    "seller_party",
    "buyer_party",
    "delivery",
    "paid",
)
CLASS_INDEX = {name: k for k, name in enumerate(LABEL_CLASSES)}
RELATIONS = {None: 0, SAME_LINE: 1, RIGHT: 2, BELOW: 3, UNDER_COLUMN_HEADER: 4}
NAME_KINDS = (
    P.PARTY_LABEL,
    P.SENDER_LINE,
    P.BELOW_SENDER_LINE,
    P.ACCOUNT_HOLDER,
    P.LEGAL_FORM,
    P.LETTERHEAD,
    P.RECIPIENT_BLOCK,
    P.SIGNATURE_BLOCK,
)
CONTEXT_FIELDS = (*LABEL_FIELDS, "seller_vat_id", "iban")

# How far the column above a value is read for its header, in line heights.
COLUMN_REACH_HEIGHTS = 25
COLUMN_X_SLACK = 6.0  # points
ITEM_ROW_AMOUNTS = 3  # a row with this many amounts is an item-table (or tax-table) row
# A party's block: the lines under its name, this many line heights down, this many points aside.
BLOCK_REACH_HEIGHTS, BLOCK_X = 10, 80
# A column of totals: amounts stacked one under the other, each at most this many line heights
# below the one before; read this many amounts up and down.
TOTALS_STEP_HEIGHTS, TOTALS_REACH = 3.0, 6

FEATURE_NAMES = (
    # label evidence of the finders, for this field
    "lab_weight", "lab_relation", "lab_rank", "lab_last", "lab_beside_value", "lab_prose",
    "lab_weak", "lab_strength", "lab_cross_language", "lab_count", "lab_field_is_other",
    # party-block kinds (names)
    *(f"kind_{k}" for k in NAME_KINDS), "legal_form_margin", "sum_rows", "sum_from_end",
    # labels around the value, as classes
    "left_class", "left_weight", "left_distance", "left_names_field",
    "cell_class", "cell_weight", "cell_gap", "cell_names_field",
    "col_class", "col_weight", "col_heights", "col_names_field", "col_values_between",
    "above_class", "above_names_field",
    "row_has_percent", "row_amounts", "row_rightmost", "row_label_any_field",
    "col_amounts_above", "col_amounts_below", "col_deduction_above", "col_deduction_below",
    "line_paid_words", "line_other_number", "line_contact",
    # position
    "rel_y", "rel_x", "page", "pages", "last_page", "first_page", "height_ratio",
    "amount_row_from_bottom", "line_chars",
    # value
    "v_log", "v_negative", "v_decimals", "v_rank", "v_is_max", "v_count", "v_sum_of_two",
    "v_part_of_sum", "v_ratio_to_max", "v_currency_near", "v_items_sum", "v_items_ratio",
    "id_len", "id_digits", "id_letters", "id_digit_share", "id_separators", "id_is_vat_or_iban",
    "id_date_like", "id_in_label",
    "date_rank", "date_count", "date_days_from_first", "date_days_to_last",
    "name_words", "name_len", "name_upper_share", "name_has_legal_form", "name_in_buyer_block",
    "name_first_namelike", "name_in_domain", "name_count", "name_digits", "name_after_sub_label",
    "name_line_has_label", "name_block_seller_vat", "name_block_buyer_vat", "name_near_iban",
    "name_address_below",
    # the rules' verdict
    "rules_score", "rules_pick",
)
FEATURE_INDEX = {name: k for k, name in enumerate(FEATURE_NAMES)}
CATEGORICAL = ("lab_relation", "left_class", "cell_class", "col_class", "above_class")

_CONTACT = re.compile(r"\b(?:tel|fax|phone|telefon|mobile?|mob|gsm|tlf|puh)\b|\+\d")
_DOMAIN = re.compile(r"(?:www\.|@|https?://)([a-z0-9.-]+)")
_DOMAIN_SPLIT = re.compile(r"[.-]+")
_NAME_WORD = re.compile(r"[a-z0-9]+")
_LETTERS = re.compile(r"[a-z]\.?[a-z]")  # a word, or a dotted abbreviation ("i.v.a.")
_VAT_OR_IBAN_SHAPE = re.compile(r"[A-Z]{2}\d{2}[A-Z0-9]{8,}")
_LEADING_MARKS = re.compile(r"^[^\w(]+")  # a box's border or a bullet before a label
_CURRENCY_NEAR = re.compile(r"[€$£¥₹]|\b[A-Z]{3}\b|kr|z[łl]|K[čc]")


@dataclass
class Row:
    """One place a value is printed (or derived), the candidates it stands for, its features."""

    field: str
    value: object
    cands: list[Candidate]
    x: list[float] = field(default_factory=list)


def column_amounts(amounts, line: int, x0: float, x1: float) -> list[tuple]:
    """Of a page's amounts (as :meth:`DocContext._page_amounts` reads them), those on other
    lines than ``line`` whose span overlaps [x0, x1] within :data:`COLUMN_X_SLACK`: the
    figures printed in one column with it."""
    return [a for a in amounts
            if a[0] != line and a[2] >= x0 - COLUMN_X_SLACK and a[1] <= x1 + COLUMN_X_SLACK]


class DocContext:
    """What every row of a document's features reads: label hits per line, the document's
    amounts, dates and domains, the usual text height. Built once per document."""

    def __init__(
        self, dt: DocText, credit_note: bool, lines_of: dict | None = None, items_sum=None,
        items_net=None,
    ):
        self.dt = dt
        self.items_sum = items_sum  # the line items' net amounts added up, or None
        # that sum carried through the document-level allowances and charges the page prints
        # (:mod:`.adjustments`): the net total the items imply, or None
        self.items_net = items_sum if items_net is None else items_net
        self.credit_note = credit_note
        lines_of = lines_of or {}
        self.seller_vat_lines = lines_of.get("seller_vat_id", ())
        self.buyer_vat_lines = lines_of.get("buyer_vat_id", ())
        self.iban_lines = lines_of.get("iban", ())
        self.pages = max(dt.by_page) if dt.by_page else 1
        heights = [ln.height for ln in dt.lines] or [1.0]
        self.median_height = statistics.median(heights)
        self.hits = [self._line_classes(i) for i in range(len(dt.lines))]
        self.label_lines: dict[int, list[int]] = {}
        for i, h in enumerate(self.hits):
            if h:
                self.label_lines.setdefault(dt.lines[i].page, []).append(i)
        self.amount_rows = self._amount_rows()
        self.page_amounts = self._page_amounts()
        # the labels of the web and mail domains the page prints, but for the addressee's: an
        # e-mail under "Billed to" is the buyer's, no line of the issuer
        self.domain_labels = frozenset(
            label
            for i, folded in enumerate(dt.folded)
            for m in _DOMAIN.finditer(folded)
            if not _in_buyer_block(self, i)
            for label in _DOMAIN_SPLIT.split(m.group(1))
            if label
        )
        self._contexts: dict = {}

    def _line_classes(self, i: int) -> list[tuple[int, float, int, int]]:
        """(class, weight, start, end) of every label on line i."""
        f = self.dt.folded[i]
        out = []
        if _LETTERS.search(f):
            for h in self.dt.labels(i, CONTEXT_FIELDS, _plain_hits):
                out.append((CLASS_INDEX[h.field], h.weight, h.start, h.end))
            for rx, name in (
                (V.seller_label, "seller_party"),
                (V.buyer_label, "buyer_party"),
            ):
                m = rx.match(f)
                if m:
                    out.append((CLASS_INDEX[name], 1.0, m.start(), m.end()))
            for rx, name in ((V.delivery_label, "delivery"), (V.paid_words, "paid")):
                m = rx.search(f)
                if m:
                    out.append((CLASS_INDEX[name], 0.8, m.start(), m.end()))
        out.sort(key=lambda t: t[2])
        return out

    def _amount_rows(self) -> dict[int, int]:
        """Line -> rank of its row from the bottom of its page among rows that carry amounts."""
        out = {}
        for lines in self.dt.by_page.values():
            tops = sorted({round(self.dt.lines[i].y0) for i in lines if self.dt.amounts(i)})
            rank = {y: k for k, y in enumerate(tops)}
            for i in lines:
                y = round(self.dt.lines[i].y0)
                if y in rank:
                    out[i] = rank[y]
        return out

    def _page_amounts(self) -> dict[int, list[tuple]]:
        """Page -> (line, x0, x1, is a deduction, value, is an allowance) of every amount
        printed on it, top first. A deduction is a negative amount or one in a row that names a
        discount or whose label is an allowance ("Agency Commission $222.75" under a
        broadcaster's gross billing), unless the row says it was paid (a deposit deducted under
        the gross total leaves it the gross total) or names a discount for paying early (a
        Skonto leaves the totals as they are). An allowance is a deduction whose row's label
        says so, its sign aside ("[Commission" as OCR reads a box's border before it); a
        negative figure alone may be a withholding tax, which leaves the gross total too."""
        dt = self.dt
        out: dict[int, list[tuple]] = {}
        for page, lines in dt.by_page.items():
            got = []
            for i in lines:
                amounts = dt.amounts(i)
                if not amounts:
                    continue
                row = " ".join(dt.folded[k] for k in dt.row_of(i))
                labelled = any(V.allowance_label.match(_LEADING_MARKS.sub("", dt.folded[k]))
                               for k in dt.row_of(i))
                discount = bool(V.column_headers["discount"].search(row)) or labelled
                kept = not V.paid_words.search(row) and not V.cash_discount.search(row)
                for value, s, e, _dec in amounts:
                    bx = dt.lines[i].span_bbox(s, e)
                    got.append((i, bx[0], bx[2], (discount or value < 0) and kept, value,
                                labelled and kept))
            got.sort(key=lambda a: -dt.lines[a[0]].y0)
            out[page] = got
        return out

    def totals_column(self, i: int, x0: float, x1: float) -> dict:
        """The amounts stacked over and under the value at line i, [x0, x1]: how many, and
        whether one of them is a deduction (a subtotal stands over a discount or a commission,
        the total to pay under it)."""
        dt = self.dt
        ln = dt.lines[i]
        column = column_amounts(self.page_amounts.get(ln.page, ()), i, x0, x1)
        out = {}
        for side, sign in (("above", 1), ("below", -1)):
            cur, n, deduction = ln, 0, False
            seen = set()
            while n < TOTALS_REACH:
                step = [
                    a for a in column
                    if a[0] not in seen
                    and 0 < sign * (dt.lines[a[0]].y0 - cur.y0)
                    <= TOTALS_STEP_HEIGHTS * cur.height
                ]
                if not step:
                    break
                nxt = min(step, key=lambda a: abs(dt.lines[a[0]].y0 - cur.y0))
                seen.add(nxt[0])
                n += 1
                deduction = deduction or nxt[3]
                cur = dt.lines[nxt[0]]
            out[f"col_amounts_{side}"] = n
            out[f"col_deduction_{side}"] = deduction
        return out

    def block_has(self, i: int, lines, reach: float = BLOCK_REACH_HEIGHTS) -> bool:
        """Is one of ``lines`` in the block of line i: below it (or on its row) within
        ``reach`` line heights, starting near its left edge (or centred under it)?"""
        dt = self.dt
        ln = dt.lines[i]
        for j in lines:
            other = dt.lines[j]
            if other.page != ln.page:
                continue
            drop = ln.y0 - other.y0
            if -0.5 * ln.height <= drop <= reach * ln.height and _aligned(ln, other):
                return True
        return False

    def address_below(self, i: int) -> bool:
        """Does an address (a postcode, a street and its number) follow line i in its block, as
        it follows a party's name and no item's description?"""
        dt = self.dt
        for j in dt.below(i, max_lines=P.ADDRESS_REACH_HEIGHTS, x_slack=0)[: P.ADDRESS_LINES]:
            if _aligned(dt.lines[i], dt.lines[j]) and P.ADDRESS.search(dt.folded[j]):
                return True
        return False

    def context(self, i: int, start: int, x0: float, x1: float) -> dict:
        """The labels around a value at line i, column start, x-range [x0, x1] (cached: the
        same place is a candidate of several fields)."""
        key = (i, start, x0, x1)
        got = self._contexts.get(key)
        if got is None:
            got = self._compute_context(i, start, x0, x1)
            self._contexts[key] = got
        return got

    def _compute_context(self, i: int, start: int, x0: float, x1: float) -> dict:
        dt = self.dt
        out: dict = self.totals_column(i, x0, x1) if dt.amounts(i) else {}
        left = self.left_on_line(i, start)
        if left:
            out.update(left_class=left[0], left_weight=left[1], left_distance=left[2])
        cell = self.left_cell(i)
        if cell:
            width = dt.page_size[dt.lines[i].page][0] or 1.0
            out.update(cell_class=cell[0], cell_weight=cell[1], cell_gap=cell[2] / width)
        col = self.column_above(i, x0, x1)
        if col:
            out.update(col_class=col[0], col_weight=col[1], col_heights=col[2])
            out["col_values_between"] = col[2] > 1.6
        j = dt.line_above_index(i)
        if j is not None and self.hits[j]:
            out["above_class"] = self.hits[j][0][0]
        row = dt.row_of(i)
        row_text = " ".join(dt.lines[k].text for k in row)
        out["row_has_percent"] = "%" in row_text
        out["row_amounts"] = sum(len(dt.amounts(k)) for k in row)
        out["row_rightmost"] = row[-1] == i
        out["_row_classes"] = {h[0] for k in row for h in self.hits[k]}
        before = dt.folded[i][:start]
        out["line_paid_words"] = any(h[0] == CLASS_INDEX["paid"] for h in self.hits[i])
        other = V.contexts["numbered_not_invoice"].search(before.rstrip(" :#.")[-40:])
        out["line_other_number"] = bool(other)
        out["line_contact"] = bool(_CONTACT.search(before[-30:]))
        return out

    # ------------------------------------------------------------------ labels around a value
    def left_on_line(self, i: int, start: int):
        """The nearest label before position start on line i: (class, weight, distance)."""
        best = None
        for cls, w, _s, e in self.hits[i]:
            if e <= start + 1:
                best = (cls, w, start - e)
        return best

    def left_cell(self, i: int):
        """The nearest cell left of line i on its row that holds a label: (class, weight, gap)."""
        dt = self.dt
        ln = dt.lines[i]
        row = dt.row_of(i)
        best = None
        for j in row:
            other = dt.lines[j]
            if j == i or other.x1 > ln.x0 + 2 or not self.hits[j]:
                continue
            gap = ln.x0 - other.x1
            if best is None or gap < best[2]:
                cls, w, _s, _e = self.hits[j][-1]
                best = (cls, w, gap)
        return best

    def column_above(self, i: int, x0: float, x1: float):
        """The nearest label line above x-range [x0, x1] on the same page: (class, weight,
        distance in line heights, lines with values in between)."""
        dt = self.dt
        ln = dt.lines[i]
        reach = COLUMN_REACH_HEIGHTS * ln.height
        best = None
        for j in self.label_lines.get(ln.page, ()):
            other = dt.lines[j]
            gap = other.y0 - ln.y1
            if j == i or gap < -0.3 * ln.height or gap > reach:
                continue
            if other.x1 < x0 - COLUMN_X_SLACK or other.x0 > x1 + COLUMN_X_SLACK:
                continue
            if best is None or gap < best[0]:
                best = (gap, j)
        if best is None:
            return None
        gap, j = best
        # the label cell of that line that sits over the value, else its last one
        over = [h for h in self.hits[j] if _span_overlaps(dt, j, h, x0, x1)]
        cls, w, _s, _e = (over or self.hits[j])[-1]
        return cls, w, max(gap, 0.0) / ln.height, j


def _aligned(a, b) -> bool:
    """Do two lines start (or, centred as footers are, have their middles) near each other?"""
    return abs(a.x0 - b.x0) < BLOCK_X or abs((a.x0 + a.x1) - (b.x0 + b.x1)) / 2 < BLOCK_X


def _span_overlaps(dt: DocText, j: int, hit, x0: float, x1: float) -> bool:
    bx = dt.lines[j].span_bbox(hit[2], hit[3])
    return not (bx[2] < x0 - COLUMN_X_SLACK or bx[0] > x1 + COLUMN_X_SLACK)


# ---------------------------------------------------------------------------- rows
def _place(c: Candidate):
    if c.line is None or c.bbox is None:
        return ("value", str(c.value))
    return (c.line, round(c.bbox[0], 1), str(c.value))


def group_rows(field: str, cands: list[Candidate]) -> list[Row]:
    """One row per place: candidates of a field printed at the same spot merge."""
    rows: dict = {}
    for c in cands:
        key = _place(c)
        row = rows.get(key)
        if row is None:
            rows[key] = Row(field, c.value, [c])
        else:
            row.cands.append(c)
    return list(rows.values())


def _value(ctx: DocContext, field: str, v):
    if field in AMOUNT_FIELDS and ctx.credit_note and isinstance(v, Decimal):
        return abs(v)
    return v


def field_rows(
    ctx: DocContext, field: str, cands: list[Candidate], rules_pick=None, rules_scores=None
) -> list[Row]:
    """Feature rows of one field's candidates. ``rules_pick`` is the rules' chosen value,
    ``rules_scores`` maps id(candidate) to the rules' score of it."""
    rows = group_rows(field, cands)
    for r in rows:
        r.value = _value(ctx, field, r.value)
    value_counts: dict = {}
    for r in rows:
        value_counts[r.value] = value_counts.get(r.value, 0) + 1
    doc = _DocValues(ctx, field, rows)
    for r in rows:
        r.x = _row_features(ctx, field, r, value_counts, doc, rules_pick, rules_scores or {})
    return rows


class _DocValues:
    """Per field and document: the distinct values and their order, for value features."""

    def __init__(self, ctx: DocContext, field: str, rows: list[Row]):
        self.values = sorted({r.value for r in rows if r.value is not None}, key=_sort_key)
        self.rank = {v: k for k, v in enumerate(reversed(self.values))}
        self.sums: set = set()
        self.parts: set = set()
        if field in AMOUNT_FIELDS:
            vals = [abs(v) for v in self.values if isinstance(v, Decimal)][-60:]
            vs = set(vals)
            for a_i, a in enumerate(vals):
                for b in vals[a_i:]:
                    s = a + b
                    if s in vs:
                        self.sums.add(s)
                        self.parts.update((a, b))
            self.max = max(vals) if vals else Decimal(0)
        if field in DATE_FIELDS:
            self.first = self.values[0] if self.values else None
            self.last = self.values[-1] if self.values else None


def _sort_key(v):
    return v if not isinstance(v, str) else (len(v), v)


def _row_features(ctx, field, r: Row, value_counts, doc, rules_pick, rules_scores) -> list[float]:
    x = [0.0] * len(FEATURE_NAMES)
    nan = math.nan

    def put(name, value):
        x[FEATURE_INDEX[name]] = float(value)

    _label_features(put, field, r)
    _kind_features(put, r)
    first = min(r.cands, key=lambda c: (c.line is None, c.line or 0))
    i = first.line
    put("rules_score", max((rules_scores.get(id(c), 0.0) for c in r.cands), default=0.0))
    put("rules_pick", rules_pick is not None and r.value == rules_pick)
    if i is None:
        for name in ("rel_y", "rel_x", "height_ratio", "left_class", "cell_class", "col_class"):
            put(name, nan if "class" not in name else 0)
        _value_features(put, ctx, field, r, value_counts, doc, None)
        return x
    dt = ctx.dt
    ln = dt.lines[i]
    start = first.evidence.facts.get("start", 0) if first.evidence.facts else 0
    bx = first.bbox or ln.bbox
    width = dt.page_size[ln.page][0] or 1.0
    put("rel_y", dt.relative_y(i))
    put("rel_x", (bx[0] + bx[2]) / 2 / width)
    put("page", ln.page)
    put("pages", ctx.pages)
    put("last_page", ln.page == ctx.pages)
    put("first_page", ln.page == 1)
    put("height_ratio", ln.height / ctx.median_height)
    put("amount_row_from_bottom", ctx.amount_rows.get(i, -1))
    put("line_chars", len(ln.text))
    _context_features(put, ctx, field, i, start, bx)
    _value_features(put, ctx, field, r, value_counts, doc, i)
    return x


def _label_features(put, field, r: Row) -> None:
    labels = [c.evidence for c in r.cands if c.evidence.kind == "label"]
    if not labels:
        return
    best = max(labels, key=lambda e: (e.label_weight or 0.0, -e.rank))
    put("lab_weight", best.label_weight or 0.0)
    put("lab_relation", RELATIONS.get(best.relation, 0))
    put("lab_rank", best.rank)
    put("lab_last", best.last)
    put("lab_beside_value", best.beside_value)
    put("lab_prose", best.prose)
    put("lab_weak", best.weak_label)
    put("lab_strength", best.strength)
    put("lab_cross_language", best.label_language == "*")
    put("lab_count", len(labels))
    put("lab_field_is_other", best.label_field not in (None, field))


def _kind_features(put, r: Row) -> None:
    for c in r.cands:
        kind = c.evidence.kind
        if kind == "sum_of_tax_rows":
            put("sum_rows", c.evidence.facts["rows"])
            put("sum_from_end", c.evidence.facts["from_end"])
        if kind in NAME_KINDS:
            put(f"kind_{kind}", 1.0 if c.evidence.relation != RIGHT else 0.9)
            if kind == P.LEGAL_FORM and c.evidence.facts.get("margin"):
                put("legal_form_margin", 1)


def _context_features(put, ctx: DocContext, field: str, i: int, start: int, bx) -> None:
    me = CLASS_INDEX.get(field, -1)
    c = ctx.context(i, start, round(bx[0], 1), round(bx[2], 1))
    for name, value in c.items():
        if not name.startswith("_"):
            put(name, value)
    for slot in ("left", "cell", "col", "above"):
        cls = c.get(f"{slot}_class")
        if cls:
            put(f"{slot}_names_field", cls == me)
    put("row_label_any_field", me in c["_row_classes"])


def _value_features(put, ctx, field, r: Row, value_counts, doc, i) -> None:
    v = r.value
    put("v_count" if field in AMOUNT_FIELDS else "name_count", value_counts.get(v, 1))
    if field in AMOUNT_FIELDS and isinstance(v, Decimal):
        a = abs(v)
        put("v_log", math.log10(float(a) + 1.0))
        put("v_negative", v < 0)
        put("v_decimals", any(c.evidence.facts.get("decimals") for c in r.cands)
            or a != a.to_integral_value())
        put("v_rank", doc.rank.get(v, -1))
        put("v_is_max", a == doc.max)
        put("v_sum_of_two", a in doc.sums)
        put("v_part_of_sum", a in doc.parts)
        put("v_ratio_to_max", float(a / doc.max) if doc.max else 0.0)
        if ctx.items_sum:
            # agreement with the net the items imply; the scale against their plain sum, which
            # a subtotal before a discount keeps (carried, it would look like a gross total's)
            put("v_items_sum", a == ctx.items_net)
            put("v_items_ratio", float(a / ctx.items_sum))
        if i is not None:
            text = ctx.dt.lines[i].text
            put("v_currency_near", bool(_CURRENCY_NEAR.search(text)))
    elif field in ID_FIELDS:
        s = str(v)
        digits = sum(ch.isdigit() for ch in s)
        letters = sum(ch.isalpha() for ch in s)
        put("id_len", len(s))
        put("id_digits", digits)
        put("id_letters", letters)
        put("id_digit_share", digits / len(s) if s else 0.0)
        put("id_separators", sum(ch in "-/._" for ch in s))
        put("id_is_vat_or_iban", bool(_VAT_OR_IBAN_SHAPE.fullmatch(s)))
        put("id_date_like", any(c.evidence.facts.get("date_like") for c in r.cands))
        if i is not None:
            start = r.cands[0].evidence.facts.get("start", -1)
            put("id_in_label", any(hs <= start < he for _c, _w, hs, he in ctx.hits[i]))
        put("v_count", value_counts.get(v, 1))
    elif field in DATE_FIELDS and v is not None and not isinstance(v, str):
        put("date_rank", doc.values.index(v) if v in doc.values else -1)
        put("date_count", len(doc.values))
        put("date_days_from_first", (v - doc.first).days if doc.first else 0)
        put("date_days_to_last", (doc.last - v).days if doc.last else 0)
        put("v_count", value_counts.get(v, 1))
    elif field in ("seller_name", "buyer_name"):
        s = str(v)
        letters = [ch for ch in s if ch.isalpha()]
        put("name_words", len(s.split()))
        put("name_len", len(s))
        upper = sum(ch.isupper() for ch in letters)
        put("name_upper_share", upper / len(letters) if letters else 0)
        put("name_has_legal_form", P.printed_legal_form(s))
        if i is not None:
            put("name_in_buyer_block", _in_buyer_block(ctx, i))
            page1 = ctx.dt.by_page.get(1, [])
            put("name_first_namelike", bool(page1) and i == _first_namelike(ctx))
        put("name_digits", sum(ch.isdigit() for ch in s))
        put("name_after_sub_label", any(c.evidence.facts.get("after_sub_label") for c in r.cands))
        if i is not None:
            put("name_line_has_label", bool(ctx.hits[i]))
            put("name_block_seller_vat", ctx.block_has(i, ctx.seller_vat_lines))
            put("name_block_buyer_vat", ctx.block_has(i, ctx.buyer_vat_lines))
            put("name_near_iban", ctx.block_has(i, ctx.iban_lines, reach=4))
            put("name_address_below", ctx.address_below(i))
        put("name_in_domain", name_in_domain(s, ctx.domain_labels))


_COMMON_WORDS = frozenset({"gmbh", "ltd", "inc", "the", "and", "und", "llc", "sarl", "com"})
# A domain label that starts or ends with a name's words holds them when they make this many
# letters ("kenlaneng" for "Kenlan Engineering"); a shorter word is found inside others by
# chance ("our" in "courtbouillon").
DOMAIN_AFFIX_LETTERS = 4


def name_in_domain(name: str, labels) -> bool:
    """Is the name written in a label of the page's domains: the label is some of its
    consecutive words run together ("courtbouillon" for "Court Bouillon", "muster" for
    "Muster GmbH"), or starts or ends with them? Words are matched whole, never inside
    another word, and a run of common words only ("the", "gmbh") names no one."""
    words = _NAME_WORD.findall(fold(name))
    for a in range(len(words)):
        run = ""
        for b in range(a, len(words)):
            run += words[b]
            if all(w in _COMMON_WORDS or len(w) < 3 for w in words[a : b + 1]):
                continue
            for label in labels:
                if label == run or (len(run) >= DOMAIN_AFFIX_LETTERS
                                    and (label.startswith(run) or label.endswith(run))):
                    return True
    return False


def _in_buyer_block(ctx: DocContext, i: int) -> bool:
    """Is line i in a block under (or right of) a buyer or delivery label?"""
    dt = ctx.dt
    ln = dt.lines[i]
    buyer = (CLASS_INDEX["buyer_party"], CLASS_INDEX["delivery"])
    for j in ctx.label_lines.get(ln.page, ()):
        if not any(h[0] in buyer for h in ctx.hits[j]):
            continue
        other = dt.lines[j]
        gap = other.y0 - ln.y1
        if -0.5 * ln.height <= gap <= 8 * ln.height and abs(other.x0 - ln.x0) < 60:
            return True
    return False


def _first_namelike(ctx: DocContext) -> int | None:
    got = getattr(ctx, "_first_name_line", False)
    if got is False:
        got = None
        for i in ctx.dt.by_page.get(1, []):
            if P._namelike(ctx.dt, i) and not V.page_title.match(ctx.dt.folded[i]):
                got = i
                break
        ctx._first_name_line = got
    return got
