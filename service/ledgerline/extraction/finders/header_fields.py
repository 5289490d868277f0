"""Header-field candidates: the values labels point at, with their evidence.

For every label of a header field (invoice number, dates, purchase order, totals, currency) on
a line, the value on the label's own line, in the cells to its right on the same row, and in the
column below it; a cell right of an amount label that sits under a column header of its own
("HT | TVA | TTC") is a candidate for that header's field. Nothing is scored here.
"""

from __future__ import annotations

import re

from ..candidates import BELOW, RIGHT, SAME_LINE, UNDER_COLUMN_HEADER, Candidate, Evidence
from ..document import AMOUNT_FIELDS, DATE_FIELDS, ID_FIELDS
from ..geometry import DocText
from ..text import CJK_CLASS
from ..values.currencies import CURRENCIES, ISO_CODE
from ..values.dates import find_dates
from ..vocabulary import VOCABULARY as V
from .labels import match_labels, resolve

# identifiers a label points at: the invoice's, its order's, and the invoice a credit note
# corrects (which only the rules choose, from its labels)
IDENTIFIERS = (*ID_FIELDS, "preceding_invoice_number")
LABEL_FIELDS = ID_FIELDS + DATE_FIELDS + AMOUNT_FIELDS + ("currency", "preceding_invoice_number")

MAX_ID_CHARS = 40  # longer tokens are not invoice or order numbers
NUMBER_SIGN_REACH = 40  # "(380) Nr. 471102": a number sign this far into the segment
BARE_INTEGER_STRENGTH = 0.7  # an amount printed without decimals or currency
BARE_INTEGER_SEGMENT = 12  # ... counts only alone on a segment this short
CURRENCY_NEAR = 5  # characters around a bare integer where a currency makes it an amount
RIGHT_CELLS = 6  # cells right of a label that may hold its value
# A column header above a cell: at most this many line heights above, this wide a cell and this
# many points of horizontal slack; only labels this specific name a column.
COLUMN_HEADER_HEIGHTS, COLUMN_HEADER_CHARS, COLUMN_HEADER_SLACK = 14, 30, 8
COLUMN_HEADER_WEIGHT = 0.8
# An item-table header near a label: from half a line above to this many lines below, short.
ITEM_HEADER_BELOW, ITEM_HEADER_CHARS = 2.5, 40
COLUMN_ROWS = 8  # rows read down a column under a label
COLUMN_ROW_GAP = 2.6  # line heights between rows of one column


# --------------------------------------------------------------------------- value readers
_ID_TOKEN = re.compile(r"[A-Za-z0-9#][A-Za-z0-9/\-_.#:]*[A-Za-z0-9]|[0-9]{2,}")
_ID_LEAD = re.compile(
    r"^[\s:#.\-–]*(?:(?:n[°º]|no\.?|nr\.?|nummer|number|num(?:ero)?\.?)\s*[:.]?\s*)?[:#\s]*",
    re.IGNORECASE,
)
_CURRENCY_MARK = re.compile(r"[€$£¥₹]|\b[A-Z]{3}\b|\bRs\b|\bkr\b|K[čc]|z[łl]|\bFt\b|\blei\b")
_WORD = re.compile(r"[A-Za-z]{2,}")
_NR_IN_TEXT = re.compile(
    r"(?:^|(?<=[\s(),]))(?:n\s?[°º]|no\.?|nr\.?|nummer|number|numero|num\.|#)\s*[:.]?\s*",
    re.IGNORECASE,
)


def _id_token(text: str, start: int) -> tuple[str, int, int] | None:
    m = _ID_TOKEN.match(text, start)
    if not m:
        return None
    tok = m.group(0).rstrip(".:")
    if not any(c.isdigit() for c in tok) or len(tok) > MAX_ID_CHARS or len(tok) < 2:
        return None
    for _d, ds, de in find_dates(tok):
        if de - ds >= len(tok) - 1:  # the whole token is a date
            return None
    end = m.start() + len(tok)
    if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})*[.,]\d{2}", tok) or re.match(
        r"[.,]\d", text[end : end + 2]
    ):
        return None  # an amount, not an identifier
    return tok, m.start(), end


# A series code printed apart from the number it prefixes: "FV 7/2021", "RE 2024-117".
_SERIES_PREFIX = re.compile(r"[A-Z]{1,4} (?=\d)")


# Identifiers a label points at that read less clearly as one: a single digit ("Invoice # 4"),
# a token that is also a date ("Invoice #2015-11-04", "Numer faktury 2/11/2023").
SINGLE_DIGIT_STRENGTH, DATE_SHAPED_STRENGTH = 0.8, 0.6
_SINGLE_DIGIT = re.compile(r"\s*(\d)\s*$")


def read_id(text: str) -> tuple[str, int, int, float] | None:
    """An identifier right after a label: 'No. 4711', ': RE-2024/12', '(380) Nr. 471102',
    'nr FV 7/2021' (a series code and its number), with how clearly it reads as one."""
    lead = _ID_LEAD.match(text)
    start = lead.end() if lead else 0
    got = _id_token(text, start)
    if got:
        return (*got, 1.0)
    series = _SERIES_PREFIX.match(text, start)
    got = _id_token(text, series.end()) if series else None
    if got:
        return text[start : got[2]], start, got[2], 1.0
    for m in _NR_IN_TEXT.finditer(text, 0, min(len(text), NUMBER_SIGN_REACH)):
        got = _id_token(text, m.end())
        if got:
            return (*got, 1.0)
    digit = _SINGLE_DIGIT.match(text, start)
    if digit:
        return digit.group(1), digit.start(1), digit.end(1), SINGLE_DIGIT_STRENGTH
    return _date_shaped(text, start)


def _date_shaped(text: str, start: int) -> tuple[str, int, int, float] | None:
    """The token at ``start`` when it is a whole date (which :func:`_id_token` refuses)."""
    m = _ID_TOKEN.match(text, start)
    if not m:
        return None
    tok = m.group(0).rstrip(".:")
    if len(tok) > MAX_ID_CHARS or not any(c.isdigit() for c in tok):
        return None
    if any(de - ds >= len(tok) - 1 for _d, ds, de in find_dates(tok)):
        return tok, m.start(), m.start() + len(tok), DATE_SHAPED_STRENGTH
    return None


def read_amount(dt: DocText, i: int, lo: int, hi: int):
    """Last amount on line i in [lo, hi) that is not a percentage: (value, start, end, strong)."""
    text = dt.lines[i].text
    best = None
    for value, s, e, has_dec in dt.amounts(i):
        if s < lo or e > hi:
            continue
        after = text[e : e + 3].lstrip()
        if after.startswith("%"):
            continue
        near = text[max(lo, s - CURRENCY_NEAR) : e + CURRENCY_NEAR]
        if not has_dec and not _CURRENCY_MARK.search(near):
            # bare integers are weak; accept only when nothing else is on the segment
            if _WORD.search(text[e:hi]) or len(text[lo:hi].strip()) > BARE_INTEGER_SEGMENT:
                continue
        best = (value, s, e, has_dec)
    return best


def read_date(dt: DocText, text: str):
    found = find_dates(text, month_first=dt.month_first)
    return found[0] if found else None


# --------------------------------------------------------------------------- label hits
def _segment(hits, h, length):
    nxt = [k.start for k in hits if k.start >= h.end and k is not h]
    return h.end, (min(nxt) if nxt else length)


def _inside_identifiers(dt: DocText, i: int, hits: list) -> list:
    """The hits without those that fall inside the identifier an identifier label reads:
    "Invoice #: GST-3525-26" holds a tax word, "No. MWST-2024-7" a VAT abbreviation."""
    text = dt.lines[i].text
    covered = []
    for h in hits:
        if h.field not in IDENTIFIERS:
            continue
        got = read_id(text[h.end :])
        if got:
            covered.append((h.end + got[1], h.end + got[2]))
    return [h for h in hits if not any(s <= h.start < e for s, e in covered)]


PASSED_LABEL_GAP = 8  # characters of prose between a label and a label word it passes over


def _reach(dt: DocText, i: int, hits: list, h) -> int:
    """Where the value of label ``h`` may end: at the next label that reads a value of its own.
    A label word in the prose between a label and its value ("Data wystawienia, z zastrzeżeniem
    art. 106na ust. 1 ustawy: 2023-11-30", where "ust" is a VAT word) reads none and is passed."""
    length = len(dt.folded[i])
    for k in sorted((k for k in hits if k.start >= h.end and k is not h), key=lambda k: k.start):
        if k.start - h.end < PASSED_LABEL_GAP:
            return k.start  # "N° TVA": a label qualifying the one before it, never passed
        lo, hi = _segment(hits, k, length)
        if _value_from(dt, k.field, i, lo, hi) is not None:
            return k.start
    return length


def cites_a_law(dt: DocText, i: int, s: int) -> bool:
    """Does a law's citation stand right before the token at line i, position s: on its line, or
    at the end of the line above when the token opens its line (small print wraps "... del DPR"
    / "633/72. L'operazione ...")? Its number is the law's: an invoice whose number field is
    blank otherwise gives it, under a title word of the same sentence, as its invoice number."""
    before = dt.folded[i][:s]  # folding keeps every character's place
    if not before.strip():
        before = dt.line_above(i)
    return V.legal_reference.search(before) is not None


def _value_from(dt: DocText, field: str, i: int, lo: int, hi: int):
    """(value, raw, start, end, strength) for field on line i in [lo, hi) or None."""
    text = dt.lines[i].text
    seg = text[lo:hi]
    if field in AMOUNT_FIELDS:
        got = read_amount(dt, i, lo, hi)
        if got:
            v, s, e, strong = got
            return v, text[s:e].strip(), s, e, 1.0 if strong else BARE_INTEGER_STRENGTH
    elif field in DATE_FIELDS:
        got = read_date(dt, seg)
        if got:
            d, s, e = got
            return d, seg[s:e], lo + s, lo + e, 1.0
    elif field in IDENTIFIERS:
        got = read_id(seg)
        if got and not cites_a_law(dt, i, lo + got[1]):
            tok, s, e, strength = got
            return tok, tok, lo + s, lo + e, strength
    elif field == "currency":
        m = ISO_CODE.search(seg)
        if m and m.group(0) in CURRENCIES:
            return m.group(0), m.group(0), lo + m.start(), lo + m.end(), 1.0
    return None


def _right_values(dt: DocText, field: str, i: int) -> list[tuple[int, tuple]]:
    """Values for field in the cells to the right of line i, up to the next label cell."""
    out = []
    for j in dt.right_of(i)[:RIGHT_CELLS]:
        hi_j = len(dt.folded[j])
        nh = dt.labels(j, LABEL_FIELDS, _plain_hits)
        if nh and not (field in IDENTIFIERS and _whole_identifier(dt.lines[j].text)):
            first = min(nh, key=lambda k: k.start)
            if first.start == 0:
                break  # the next cell is another label
            hi_j = first.start
        got = _value_from(dt, field, j, 0, hi_j)
        if got:
            out.append((j, got))
            if field not in AMOUNT_FIELDS:
                break
        if hi_j < len(dt.folded[j]):
            break
    return out


def _whole_identifier(text: str) -> bool:
    """Is the cell one identifier token ("GST-1187-24"), whatever label word it starts with?"""
    text = text.strip()
    got = _id_token(text, 0)
    return got is not None and got[2] == len(text)


def _plain_hits(dt: DocText, i: int, fields: tuple) -> list:
    """Label hits of line i without context conditions from neighbouring lines."""
    return resolve(match_labels(dt.folded[i], fields), dt.folded[i])


def _column_header_field(dt: DocText, j: int) -> str | None:
    """The amount field named by the column header above cell j, if it sits under one."""
    ln = dt.lines[j]
    best, best_gap = None, COLUMN_HEADER_HEIGHTS * ln.height
    for k in dt.by_page[ln.page]:
        other = dt.lines[k]
        gap = other.y0 - ln.y1
        if k == j or gap < 0 or gap > best_gap or len(dt.folded[k]) > COLUMN_HEADER_CHARS:
            continue
        if dt.amounts(k):
            continue
        if other.x1 < ln.x0 - COLUMN_HEADER_SLACK or other.x0 > ln.x1 + COLUMN_HEADER_SLACK:
            continue
        best, best_gap = k, gap
    if best is None:
        return None
    hits = dt.labels(best, AMOUNT_FIELDS, _plain_hits)
    hits = [h for h in hits if h.weight >= COLUMN_HEADER_WEIGHT]
    return hits[-1].field if hits else None


def _add_right(dt: DocText, h, i: int, add, beside_value: bool = False) -> bool:
    """Candidates from the cells right of a label; cells under their own column header
    ("HT | TVA | TTC") count for that header's field."""
    right = _right_values(dt, h.field, i)
    if not right:
        return False
    plain = []
    for j, got in right:
        col = _column_header_field(dt, j) if len(right) > 1 else None
        if col is not None and col != h.field:
            add(col, j, got, h, UNDER_COLUMN_HEADER)
        else:
            plain.append((j, got))
    for k, (j, got) in enumerate(plain):
        add(h.field, j, got, h, RIGHT, rank=k, last=k == len(plain) - 1, beside_value=beside_value)
    return True


def _in_item_header(dt: DocText, i: int) -> bool:
    """Is line i a cell of a line-item table header (whose columns hold item values, not totals)?"""
    ln = dt.lines[i]
    for j in dt.by_page[ln.page]:
        other = dt.lines[j]
        if not -0.5 * ln.height <= other.y0 - ln.y0 <= ITEM_HEADER_BELOW * ln.height:
            continue
        if V.item_table_header.search(dt.folded[j]) and len(dt.folded[j]) < ITEM_HEADER_CHARS:
            return True
    return False


def _column_values(dt: DocText, field: str, i: int, xr=None) -> list[tuple[int, tuple]]:
    """Values in the column under a header cell: consecutive rows of figures, stopping at a gap,
    a label or a row with running text (then it is an item table, not a summary)."""
    out = []
    cur = i
    for _ in range(COLUMN_ROWS):
        nxt = dt.below(cur, max_lines=COLUMN_ROW_GAP, xr=xr)[:1]
        if not nxt:
            break
        j = nxt[0]
        got = _value_from(dt, field, j, 0, len(dt.folded[j]))
        if got is None:
            if out or field not in AMOUNT_FIELDS:
                break
            cur = j  # a second header line ("Positions-" / "betrag")
            continue
        out.append((j, got))
        if field not in AMOUNT_FIELDS:
            break
        cur = j
    return out


# Two Latin letters, or one Han character or kana (a word, in Chinese or Japanese): a line
# without them is figures only.
_LETTERS = re.compile(rf"[a-z]{{2}}|[{CJK_CLASS}]")
PROSE_LINE_CHARS = 70  # a label in a longer line is part of running text
WEAK_LABEL_WEIGHT = 0.8  # labels weighing less only hint at their field


def label_candidates(dt: DocText) -> dict[str, list[Candidate]]:
    """Every value a label points at: on its line, right of it on its row, in the column below."""
    cands: dict[str, list[Candidate]] = {f: [] for f in LABEL_FIELDS}

    def add(field, j, got, hit, relation, **where):
        v, raw, s, e, strength = got
        if strength == DATE_SHAPED_STRENGTH and hit.weight < WEAK_LABEL_WEIGHT:
            # "RECHNUNG 29.07.2014": a title word before a date is the date of the document it
            # names; only a label that names the number ("Numer faktury 2/11/2023") makes a
            # date-shaped token the number
            return
        ln = dt.lines[j]
        evidence = Evidence(
            "label",
            label_field=hit.field,
            label_weight=hit.weight,
            label_language=hit.language,
            label_text=dt.folded[i][hit.start : hit.end],
            label_line=i,
            relation=relation,
            prose=prose,
            weak_label=hit.weight < WEAK_LABEL_WEIGHT,
            strength=strength,
            relative_y=dt.relative_y(j),
            **where,
        )
        cands[field].append(Candidate(field, v, raw, ln.page, ln.span_bbox(s, e), j, evidence))

    for i, folded in enumerate(dt.folded):
        if not _LETTERS.search(folded):
            continue  # figures only: a value, never a label
        hits = resolve(
            match_labels(folded, LABEL_FIELDS, prev=lambda i=i: dt.context_before(i)), folded
        )
        if not hits:
            continue
        hits = _inside_identifiers(dt, i, hits)
        prose = len(folded) > PROSE_LINE_CHARS
        for h in hits:
            lo, hi = _segment(hits, h, len(folded))
            got = _glued_identifier(dt, i, h) or _value_from(dt, h.field, i, lo, hi)
            if got is None and hi < len(folded):
                # a label word between the label and its value on the line, passed over; with
                # no value on the line, the next label still ends this one's reach
                far = _reach(dt, i, hits, h)
                got = _value_from(dt, h.field, i, lo, far)
                hi = far if got else hi
            if got:
                add(h.field, i, got, h, SAME_LINE)
                if h.field not in AMOUNT_FIELDS:
                    continue
                # "Tax 15% on $ 112.90 ... $ 16.94": the figure on the label's line may be a basis
                _add_right(dt, h, i, add, beside_value=True)
                continue
            if hi < len(folded) and h.field not in AMOUNT_FIELDS:
                continue  # another label follows on the same line: the value is not ours
            if h.field in AMOUNT_FIELDS:
                if _add_right(dt, h, i, add):
                    continue
            else:
                right = _right_values(dt, h.field, i)
                if right:
                    add(h.field, right[0][0], right[0][1], h, RIGHT)
                    continue
            if h.field in AMOUNT_FIELDS and _in_item_header(dt, i):
                continue
            if h.field == "issue_date" and (_in_item_header(dt, i)
                                            or _heads_item_columns(dt, i)):
                # an item table's column: its dates are the items'. A due date's label stays in
                # any header row: a schedule of payments ("Fälligkeit | Betrag") is a table too
                continue
            span = dt.lines[i].span_bbox(h.start, h.end)
            column = _column_values(dt, h.field, i, (span[0], span[2]))
            if not column and h.field not in AMOUNT_FIELDS:
                column = _column_values(dt, h.field, i)  # "... vom" / "05.03.2018" on the next line
            for k, (j, got) in enumerate(column):
                add(h.field, j, got, h, BELOW, rank=k, last=k > 0 and k == len(column) - 1)
    return cands


# A short label word glued to its number by a hyphen or slash is the number's printed prefix
# ("PO-07630", "INV/2024/17"): the identifier keeps it.
_GLUED_PREFIX = re.compile(r"[A-Za-z]{1,4}[-/](?=[A-Za-z]*\d)")


def _glued_identifier(dt: DocText, i: int, h):
    """The identifier an identifier label is the printed prefix of, or None."""
    if h.field not in IDENTIFIERS:
        return None
    text = dt.lines[i].text
    if h.start > 0 and text[h.start - 1].isalnum():
        return None
    if h.end >= len(text) or text[h.end] not in "-/" or not _GLUED_PREFIX.match(text, h.start):
        return None
    got = _id_token(text, h.start)
    if got is None:
        return None
    tok, s, e = got
    return tok, tok, s, e, 1.0


def _identifier_value(dt: DocText, i: int, start: int) -> bool:
    """Is the text at ``start`` of line i the value of an identifier label: right after it on
    the line, in the cell right of it, or under it in a header row ("Numer faktury" over
    "2/11/2023", an invoice number that reads as a date)?"""
    for h in dt.labels(i, IDENTIFIERS, _plain_hits):
        if h.end <= start and not dt.folded[i][h.end : start].strip(" :#.-"):
            return True
    row = dt.row_of(i)
    k = row.index(i)
    if k > 0 and dt.labels(row[k - 1], IDENTIFIERS, _plain_hits):
        return True
    j = dt.line_above_index(i)
    if j is None:
        return False
    hits = dt.labels(j, IDENTIFIERS, _plain_hits)
    return bool(hits) and not any(c.isdigit() for c in dt.folded[j][max(h.end for h in hits) :])


def in_item_column(dt: DocText, i: int) -> bool:
    """Is line i a row of a column, of dates or figures, that an item table's header heads
    ("Datum" among "Tarif", "Anzahl", "Betrag")? Its dates are the items' (the day a service
    was given, a consignment sent), not the invoice's."""
    j = i
    for _ in range(len(dt.lines)):  # up the column, row by row, to its header
        j = dt.line_above_index(j)
        if j is None:
            return False
        if _LETTERS.search(dt.folded[j]):
            return _in_item_header(dt, j) or _heads_item_columns(dt, j)
    return False


# An item table's header row names its columns: a description, a quantity, a price, an amount.
ITEM_COLUMN_KINDS = ("description", "quantity", "unit_price", "net_amount")
MIN_ITEM_COLUMNS = 2  # "Date | Ref | From | To | Rate | Total": two kinds of item column


def _heads_item_columns(dt: DocText, i: int) -> bool:
    """Does line i's row head an item table: short cells naming at least two kinds of item
    column (a price and an amount), whatever its description column is called?"""
    kinds = set()
    for j in dt.row_of(i):
        folded = dt.folded[j]
        if len(folded) >= ITEM_HEADER_CHARS or dt.amounts(j):
            continue
        kinds.update(k for k in ITEM_COLUMN_KINDS if V.column_headers[k].search(folded))
    return len(kinds) >= MIN_ITEM_COLUMNS


def first_date_candidates(dt: DocText) -> list[Candidate]:
    """The first date on page 1 on a line that names no other event and is no identifier's
    value: the issue date of an invoice that does not label it."""
    for i in dt.by_page.get(1, []):
        got = read_date(dt, dt.lines[i].text)
        if got and (_identifier_value(dt, i, got[1]) or in_item_column(dt, i)):
            continue
        if got and not V.not_the_issue_date.search(dt.folded[i]):
            d, s, e = got
            ln = dt.lines[i]
            evidence = Evidence("first_date", relative_y=dt.relative_y(i))
            return [
                Candidate("issue_date", d, ln.text[s:e], ln.page, ln.span_bbox(s, e), i, evidence)
            ]
    return []
