"""Line items from the text layer, table by table.

A table is found by its header row: short cells without figures, split at wide gaps (a text
layer often runs neighbouring header cells into one line), with the header lines stacked just
above or below it ("Wartość" / "sprzedaży" / "netto") joined to the cell they sit on. Each
header cell names a column kind in some vocabulary language (description, quantity, unit price,
VAT rate, net or gross amount, ...); a row naming an amount column and a description or quantity
column is a header, and so is one naming an amount column among several unnamed text columns
when the document has no better header. The columns reach from each header cell halfway to its
neighbours, and every figure and text cell of the rows below goes to the column it overlaps most.

Which column holds the line's net amount is told by arithmetic first (quantity × unit price =
amount, less a printed discount), by the header words second (the first net column, else the
gross one, else the only price column). An item starts at a row with a figure in that column, or
at a row with a position number where the table numbers its rows, and takes in the text rows of
its description above or below, split from the next item by the wider gap between items. The
table ends at a totals row, a new section, a row that repeats the sum of the items, or the end of
the page; the last rows above the totals row, labelled where it is labelled and outside the
columns of the items' text, with no quantity or price, are lines of the totals block (a
delivery charge, a discount), no items. A table no totals row closed continues on the next page,
under a repeated header (its cells where the first header's were, or all moved alike: each page
of a phone photo is a picture of its own) or under the same columns, and carried-forward rows at
the page break are no items.
Rows indented under an item whose amounts add up to its amount break it down and are no items of
their own.

The net amount of a line is net: a column whose header says its figures include VAT ("Gesamt
brutto", "Prix TTC", "Pris inkl. moms"), or a row whose amount is quantity × price plus its VAT
rate, gives it without the VAT, at the line's rate or the document's only one; where neither is
printed the net amount is unknown (None) rather than the gross one.

A document with no item table may print its lines as blocks of labelled values instead (an
EN 16931 invoice rendered term by term): each block's labelled net amount is an item.

Modules: :mod:`.cells` (cells and column kinds), :mod:`.header` (header rows and columns),
:mod:`.rows` (figures and text by column, the rows that end a table), :mod:`.amounts` (the
amount column), :mod:`.items` (rows into items and their values), :mod:`.labelled` (lines as
blocks of labelled values), :mod:`.headerless` (a table whose header was not read),
:mod:`.summed` (a column of amounts a totals row adds up), :mod:`.reread` (an amount the totals
row disowns, read again).

Where no table is found, a header naming the items' text or quantity whose amount cells went
unread is tried (its columns taken from the figures below it), then a table with no header
read at all; in both only the rows' arithmetic (quantity × price = amount) names the amount
column; last, a column of amounts whose sum a totals row under them states. Where the row
closing a table states another sum than its items', the one amount a second reading of the page
gives as the sum asks is taken (an OCR'd page only). Text a source misreads is read in the same terms: a label parted into two cells, a
repeated header missing or misreading a cell, a figure that lost a digit or its separator where
the row's other figures say so.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace

from ...geometry import DocText
from .amounts import amount_column, price_by_arithmetic, quantity_by_arithmetic
from .cells import Layout
from .header import Header, page_headers
from .headerless import headerless_tables
from .items import IMPLAUSIBLE_RATE, is_sum, item_blocks, make_item, net_of_gross_lines
from .labelled import labelled_items
from .reread import settle_by_total
from .summed import summed_tables
from .rows import Figure, Row, count_whole_numbers, priced, table_rows


# A row whose text starts this many points right of the item above it is indented under it.
INDENT = 6.0
# A repeated header's cell is at the place of the first header's when they are this close (points).
SAME_PLACE = 4.0


@dataclass
class Table:
    header: Header
    items: list[dict] = field(default_factory=list)
    starts: list[float | None] = field(default_factory=list)  # where each item's text starts
    printed: list[Figure | None] = field(default_factory=list)  # each item's amount as printed

    def add(self, item: dict, start: float | None, printed: Figure | None) -> None:
        self.items.append(item)
        self.starts.append(start)
        self.printed.append(printed)

    def drop_last(self) -> None:
        self.items.pop()
        self.starts.pop()
        self.printed.pop()

    def keep(self, kept: list[bool]) -> None:
        """Only the items whose flag in ``kept`` is true."""
        def only(values: list) -> list:
            return [v for v, ok in zip(values, kept, strict=True) if ok]
        self.items, self.starts, self.printed = only(self.items), only(self.starts), only(self.printed)


def read_rows(pg: Layout, table: Table, rows: list[list[int]], leading: bool) -> Table | None:
    """Add the items of these rows to the table; the table when it goes on past them."""
    got, closing = table_rows(pg, table.header, rows)
    closed = closing is not None
    total = amount_column(table.header, got)
    if total is not None:
        count_whole_numbers(got, total)
        # columns whose header cell was misread or unread, named by the rows' arithmetic
        price = price_by_arithmetic(table.header, got, total)
        if price is not None:
            table.header.columns[price].kind = "unit_price"
        qty = quantity_by_arithmetic(table.header, got, total)
        if qty is not None:
            table.header.columns[qty].kind = "quantity"
    earlier = len(table.items)  # items of the pages before
    anchors: list[Row] = []  # each item's amount row, of these rows
    for block in item_blocks(got, total, table.header, leading) if total is not None else ():
        item = make_item(block, table.header, total, pg.vat_rate)
        anchor = amount_row(block, total)
        printed = printed_amount(anchor, item, total)
        if is_sum(item, table.items) or repeats_the_only_item(item, printed, table):
            if earlier and len(table.items) == earlier:
                continue  # the sum brought forward over a page's items ("Brought" unread)
            closed = True
            break
        table.add(item, text_start(anchor, table.header), printed)
        anchors.append(anchor)
    if closing is not None:
        drop_totals_block(table, anchors, closing, earlier)
    drop_breakdowns(table)
    if closing is not None and total is not None and not earlier:
        # a misread amount, where the row closing the table states another sum of the items
        settle_by_total(pg.dt, table.items, table.printed, closing.amount(total))
        if not table.header.columns[total].gross:
            net_of_gross_lines(table.items, closing, total, pg.vat_rate)
    return None if closed else table


def drop_totals_block(table: Table, anchors: list[Row], closing: Row, earlier: int) -> None:
    """The last rows above the totals row that closes the table, labelled where that row's
    label stands and in none of the columns the items' text stands in, with no quantity or
    price ("Frais de livraison 12,50 $" over "Montant total 344,65 $", both labels under the
    price column, the titles of the items further left), are lines of the totals block: a
    delivery charge or a fee the totals add, no items. An item above them is kept."""
    if not closing.worded:
        return
    label_x0 = closing.worded[0][1].x0
    while len(table.items) > earlier + 1 and len(anchors) > 1:
        row, above = anchors[-1], anchors[:-1]
        texts = {col for r in above for col, _ in r.worded}
        if (not texts or priced(table.header, row) or not row.worded
                or any(col in texts for col, _ in row.worded)
                or abs(row.worded[0][1].x0 - label_x0) > SAME_PLACE):
            return
        anchors.pop()
        table.drop_last()


def repeats_the_only_item(item: dict, printed: Figure | None, table: Table) -> bool:
    """A row repeating the one item's amount with a currency sign the item's figure lacks
    ("¥ 286.23" under "286.23", its label unread) is the table's total, no second item: item rows
    print bare figures, a totals row its currency. Two items of one amount print alike."""
    if len(table.items) != 1 or item["quantity"] is not None or item["unit_price"] is not None:
        return False
    only = table.printed[0]
    return (item["net_amount"] == table.items[0]["net_amount"] and printed is not None
            and only is not None and printed.marked and not only.marked)


def printed_amount(anchor: Row, item: dict, total: int) -> Figure | None:
    """The figure of the item's amount row (``anchor``) in the amount column, where the item's
    net amount is that figure as printed."""
    figure = anchor.amount_figure(total)
    return figure if figure is not None and figure.value == item["net_amount"] else None


def text_start(anchor: Row, header: Header) -> float | None:
    """Where the description of the item's amount row (``anchor``) starts on the page."""
    desc = header.index("description")
    starts = [c.x0 for col, c in anchor.worded if col == desc]
    return starts[0] if starts else None


def amount_row(block: list[Row], total: int) -> Row:
    """The row of an item's block that prints its amount in the amount column."""
    return next(r for r in block if r.amount(total) is not None)


def drop_breakdowns(table: Table) -> None:
    """Two or more rows indented under an item whose amounts add up to its amount
    ("Consulting 750" over "Frontend 250" and "Backend 500") break it down: they are no items
    of their own."""
    keep = [True] * len(table.items)
    for k, (item, start) in enumerate(zip(table.items, table.starts, strict=True)):
        if start is None or item["net_amount"] is None:
            continue
        run = k + 1
        while run < len(table.items) and (table.starts[run] or start) >= start + INDENT:
            run += 1
        parts = [table.items[n]["net_amount"] for n in range(k + 1, run)]
        if len(parts) > 1 and None not in parts and sum(parts) == item["net_amount"]:
            keep[k + 1 : run] = [False] * len(parts)
    table.keep(keep)


def extract_line_items(dt: DocText) -> list[dict]:
    pg = Layout(dt)
    # headers whose amount cells went unread (OCR), then tables with no header read at all, are
    # looked for only where no table is found
    items = (table_items(pg, unread=False) or table_items(pg, unread=True)
             or headerless_items(pg) or summed_items(pg))
    if not items:
        return labelled_items(dt)
    if any(it.pop(IMPLAUSIBLE_RATE, False) for it in list(items)):
        # a column taken for the rates printed something else (the VAT amounts of a "Steuer"
        # column): none of its figures is a rate
        for it in items:
            it["vat_rate"] = None
            it.pop(IMPLAUSIBLE_RATE, None)
    return items


def table_items(pg: Layout, unread: bool) -> list[dict]:
    """The items of the document's tables, each once."""
    pages = sorted(pg.dt.by_page)
    found = {p: list(page_headers(pg, p, pg.rows(p), unread)) for p in pages}
    named = any(h.named for hs in found.values() for _, h in hs)
    tables: list[Table] = []
    going_on: Table | None = None  # a table no totals row closed yet
    for page in pages:
        rows = pg.rows(page)
        headers = [(k, h) for k, h in found[page] if h.named or not named]
        if going_on is not None:  # the rows above the page's first header (or all of them)
            above = rows[: headers[0][0]] if headers else rows
            going_on = read_rows(pg, going_on, above, leading=False)
        for n, (k, header) in enumerate(headers):
            if n == 0 and going_on is not None:
                # the table goes on under a repeated header
                going_on.header = repeated_header(going_on.header, header)
                table = going_on
            else:
                table = Table(header)
                tables.append(table)
            end = headers[n + 1][0] if n + 1 < len(headers) else len(rows)
            going_on = read_rows(pg, table, rows[k + 1 : end], leading=True)
    return distinct_items(tables)


def headerless_items(pg: Layout) -> list[dict]:
    """The items of the tables whose header was not read (:mod:`.headerless`)."""
    return _items_of_found_tables(pg, headerless_tables)


def summed_items(pg: Layout) -> list[dict]:
    """The items of a column of amounts a totals row adds up (:mod:`.summed`)."""
    return _items_of_found_tables(pg, summed_tables)


def _items_of_found_tables(pg: Layout, tables_of) -> list[dict]:
    """The items of the tables ``tables_of(pg, page)`` finds on each page, as (header, rows):
    each read on its own, none going on to the next page."""
    tables = []
    for page in sorted(pg.dt.by_page):
        for header, rows in tables_of(pg, page):
            table = Table(header)
            read_rows(pg, table, rows, leading=True)
            tables.append(table)
    return distinct_items(tables)


def repeated_header(table: Header, again: Header) -> Header:
    """The header a table goes on under on a later page: the one printed there, or, where it
    names no more columns than the table's first header and each of them at the place of one of
    those, of its kind or of none (OCR may leave out or misread a cell of a header, not add one),
    the first header's columns, moved as far as the matching cells moved on the page.

    Each page of a phone photo is a picture of its own, cut from its desk where its outline was
    found and not where it was not: the same table's columns may stand a few dozen points further
    right on the next page. So where the cells are not in place, they are looked for as far as
    the cells both headers name agree to have moved (two at least, each within
    :data:`SAME_PLACE` of the others)."""
    if len(again.columns) > len(table.columns):
        return again
    for offset in (0.0, *_named_offset(table, again)):
        shifts = []
        for col in again.columns:
            match = [
                old for old in table.columns
                if min(col.x1 - offset, old.x1) - max(col.x0 - offset, old.x0) >= -SAME_PLACE
                and col.kind in (old.kind, None)
            ]
            if not match:
                break
            shifts.append(col.x0 - match[0].x0)
        else:
            shift = statistics.median(shifts)
            columns = [
                replace(c, x0=c.x0 + shift, x1=c.x1 + shift, left=c.left + shift,
                        right=c.right + shift)
                for c in table.columns
            ]
            return replace(again, columns=columns, named=table.named or again.named)
    return again


def _named_offset(table: Header, again: Header) -> list[float]:
    """How far the cells both headers name moved, where at least two of them moved alike; none
    otherwise."""
    first = {}
    for col in table.columns:
        if col.kind is not None:
            first.setdefault(col.kind, col)
    moved = [col.x0 - first[col.kind].x0 for col in again.columns if col.kind in first]
    if len(moved) < 2 or max(moved) - min(moved) > SAME_PLACE:
        return []
    return [statistics.median(moved)]


def distinct_items(tables: list[Table]) -> list[dict]:
    """Every table's items once: a copy of the invoice on later pages repeats them all."""
    out, seen = [], []
    for t in tables:
        key = [(i["net_amount"], i["description"]) for i in t.items]
        if key and key in seen:
            continue
        seen.append(key)
        out.extend(t.items)
    return out
