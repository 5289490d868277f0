"""A form of labelled boxes: each field's label in small type above its value, all in a grid.

Exercises: label-above-value reading inside cells, parties as boxes side by side, the
document numbers as a row of boxes, totals as boxes, the bank in a box of its own.
"""

from reportlab.lib import colors
from reportlab.platypus import Spacer, Table, TableStyle

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    line_columns,
    lines_table,
    meta_pairs,
    notes,
    paid_stamp,
    party_lines,
    registry_lines,
    tax_summary,
)

NEEDS = Needs(max_lines=7)
BOXES_PER_ROW = 4


def box(ctx, label, lines, *, bold_first=False):
    out = [ctx.para(label.rstrip(": "), size=ctx.look.size - 2.5, color=colors.grey)]
    for i, line in enumerate(lines):
        out.append(ctx.para(line, bold=bold_first and i == 0))
    return out


def grid(ctx, cells, widths):
    table = Table([cells], colWidths=widths)
    table.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 0.6, ctx.look.accent),
                               ("INNERGRID", (0, 0), (-1, -1), 0.6, ctx.look.accent),
                               ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    return table


def render(ctx):
    inv, look, rng = ctx.inv, ctx.look, ctx.rng
    pw, ph = ctx.page_size
    t = inv.totals

    def page(canvas, doc):
        canvas.saveState()
        paid_stamp(canvas, ctx, pw / 2, ph / 2)
        canvas.restoreState()

    half = ctx.width / 2
    story = [ctx.para(ctx.w("invoice").upper(), size=look.title_size, bold=True,
                      color=look.accent), Spacer(1, 8),
             grid(ctx, [box(ctx, ctx.w("seller"), party_lines(ctx, inv.seller, "seller", contact=True), bold_first=True),
                        box(ctx, ctx.w("buyer"), party_lines(ctx, inv.buyer, "buyer"), bold_first=True)],
                  [half, half]), Spacer(1, 6)]
    pairs = meta_pairs(ctx)
    for i in range(0, len(pairs), BOXES_PER_ROW):
        row = pairs[i:i + BOXES_PER_ROW]
        story += [grid(ctx, [box(ctx, k, [v], bold_first=True) for k, v in row],
                       [ctx.width / len(row)] * len(row)), Spacer(1, 4)]
    if inv.ship_to:
        story += [grid(ctx, [box(ctx, ctx.w("ship_to"), party_lines(ctx, inv.ship_to, "ship_to", vat=False))],
                       [ctx.width]), Spacer(1, 4)]
    story += [Spacer(1, 6), lines_table(ctx, inv.lines, line_columns(ctx, rng.choice(("basic", "full", "split")))),
              Spacer(1, 8)]
    sums = [(ctx.w("net_total"), ctx.money("net_total", t.net)),
            (ctx.w("vat"), ctx.money("tax_total", t.tax)),
            (ctx.w("gross_total"), ctx.money("gross_total", t.gross))]
    for key, amount in (("paid", -t.prepaid), ("voucher", -t.voucher), ("rounding", t.rounding)):
        if amount:
            sums.append((ctx.w(key), ctx.money(None, amount)))
    sums.append((ctx.w("amount_due"), ctx.money("amount_due", t.due)))
    story.append(grid(ctx, [box(ctx, k, [v], bold_first=True) for k, v in sums],
                      [ctx.width / len(sums)] * len(sums)))
    if len(t.tax_rows) > 1:
        story += [Spacer(1, 6), tax_summary(ctx, width=min(320, ctx.width))]
    story += [Spacer(1, 6), grid(ctx, [box(ctx, ctx.w("bank"), bank_lines(ctx) or ["-"]),
                                       box(ctx, "", small_lines(ctx))], [half, half])]
    return build_pdf(ctx, story, first=page)


def small_lines(ctx):
    return notes(ctx) + registry_lines(ctx, 2)

