"""Header-row/value-row tables: labels in one row, the values in the row below.

Exercises: the document numbers and dates as a grid whose labels sit above their values (not
left of them), totals as a horizontal label row over an amount row, the seller's block
right-aligned at the top, and an optional VAT summary.
"""

from reportlab.lib.enums import TA_RIGHT
from reportlab.platypus import Spacer, Table, TableStyle

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    footer,
    header_row_table,
    line_columns,
    lines_table,
    meta_pairs,
    notes,
    paid_stamp,
    party_flowables,
    registry_lines,
    small_print,
    tax_summary,
)

NEEDS = Needs(max_lines=7)
MAX_COLUMNS = 5


def render(ctx):
    inv, look, rng = ctx.inv, ctx.look, ctx.rng
    pw, ph = ctx.page_size
    t = inv.totals
    draw_footer, foot_h = footer(ctx, [bank_lines(ctx), registry_lines(ctx, 3)])

    def page(canvas, doc):
        canvas.saveState()
        draw_footer(canvas)
        paid_stamp(canvas, ctx, pw / 2, ph / 2)
        canvas.restoreState()

    seller = party_flowables(ctx, inv.seller, "seller", name_size=look.size + 4, contact=True)
    for f in seller:
        f.style.alignment = TA_RIGHT
    buyer = party_flowables(ctx, inv.buyer, "buyer", label=ctx.w("buyer"))
    top = Table([[buyer, seller]], colWidths=[ctx.width / 2] * 2)
    top.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                             ("LEFTPADDING", (0, 0), (-1, -1), 0),
                             ("RIGHTPADDING", (0, 0), (-1, -1), 0)]))
    pairs = meta_pairs(ctx)
    story = [top, Spacer(1, 14), ctx.para(ctx.w("invoice"), size=look.title_size, bold=True),
             Spacer(1, 6)]
    for i in range(0, len(pairs), MAX_COLUMNS):
        story += [header_row_table(ctx, pairs[i:i + MAX_COLUMNS], width=ctx.width), Spacer(1, 4)]
    story += [Spacer(1, 8), lines_table(ctx, inv.lines, line_columns(ctx, rng.choice(("basic", "full")))),
              Spacer(1, 10)]
    sums = [(ctx.w("net_total"), ctx.money("net_total", t.net)),
            (ctx.w("vat"), ctx.money("tax_total", t.tax)),
            (ctx.w("gross_total"), ctx.money("gross_total", t.gross))]
    if t.prepaid:
        sums.append((ctx.w("paid"), ctx.money(None, -t.prepaid)))
    if t.voucher:
        sums.append((ctx.w("voucher"), ctx.money(None, -t.voucher)))
    if t.rounding:
        sums.append((ctx.w("rounding"), ctx.money(None, t.rounding)))
    sums.append((ctx.w("amount_due"), ctx.money("amount_due", t.due)))
    story.append(header_row_table(ctx, sums, width=ctx.width))
    if len(t.tax_rows) > 1 or rng.random() < 0.3:
        story += [Spacer(1, 8), tax_summary(ctx, width=min(320, ctx.width))]
    story += [Spacer(1, 10)] + small_print(ctx, notes(ctx))
    return build_pdf(ctx, story, first=page, bottom=foot_h)
