"""Several pages of lines: a header repeated on every page, carried-forward subtotals, page
numbers, and the totals only on the last page.

Exercises: the invoice number and seller repeated per page, "carried forward" amounts that
look like totals, totals to be taken from the last page only.
"""

from reportlab.lib import colors
from reportlab.platypus import PageBreak, Spacer

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    draw_lines,
    footer,
    kv_table,
    lines_table,
    meta_pairs,
    notes,
    party_flowables,
    party_lines,
    small_print,
    tax_summary,
    totals_rows,
    totals_table,
)

NEEDS = Needs(min_lines=30, max_lines=75, p_ship_to=0.1)
FIRST_PAGE_ROWS = 20
PAGE_ROWS = 34
LAST_PAGE_ROOM = 14      # rows the totals block needs below the last lines
LINE_SIZE = 7.5


def chunks(lines):
    """Lines per page: fewer on the first (parties, meta), room for totals on the last."""
    out, rest, capacity = [], list(lines), FIRST_PAGE_ROWS
    while rest:
        take = rest[:capacity]
        rest = rest[capacity:]
        if not rest and len(take) > capacity - LAST_PAGE_ROOM:
            keep = max(1, capacity - LAST_PAGE_ROOM)
            rest, take = take[keep:], take[:keep]
        out.append(take)
        capacity = PAGE_ROWS
    return out


def render(ctx):
    inv, look = ctx.inv, ctx.look
    pw, ph = ctx.page_size
    m = look.margin
    seller = inv.seller
    header = [seller.name, f"{ctx.w('invoice')} {inv.number}"]
    draw_footer, foot_h = footer(ctx, [party_lines(ctx, seller, "seller"), bank_lines(ctx)])

    def page(canvas, doc):
        canvas.saveState()
        canvas.setFillColor(look.accent)
        draw_lines(canvas, ctx, header[:1], m, ph - m, size=look.size + 3, bold_first=True)
        canvas.setFillColor(colors.black)
        draw_lines(canvas, ctx, header[1:], pw - m, ph - m, size=look.size, align="right")
        draw_footer(canvas)
        canvas.restoreState()

    columns = ["pos", "description", "quantity", "unit", "unit_price", "amount"]
    if len({ln.vat_rate for ln in inv.lines}) > 1:
        columns.insert(5, "vat_rate")
    story = party_flowables(ctx, inv.buyer, "buyer", label=ctx.w("buyer"))
    story += [Spacer(1, 8), kv_table(ctx, meta_pairs(ctx), widths=[120, 150]), Spacer(1, 10)]
    carried, start = None, 1
    pages = chunks(inv.lines)
    for n, chunk in enumerate(pages):
        subtotal = (carried or 0) + sum(ln.amount for ln in chunk)
        last = n == len(pages) - 1
        story.append(lines_table(ctx, chunk, columns, start=start, carry_in=carried,
                                 carry_out=None if last else subtotal, size=LINE_SIZE))
        if not last:
            story.append(PageBreak())
        carried, start = subtotal, start + len(chunk)
    story += [Spacer(1, 8), totals_table(ctx, totals_rows(ctx), width=250)]
    if len(inv.totals.tax_rows) > 1:
        story += [Spacer(1, 6), tax_summary(ctx, width=300)]
    story += [Spacer(1, 8)] + small_print(ctx, notes(ctx))
    return build_pdf(ctx, story, first=page, top=24, bottom=foot_h)
