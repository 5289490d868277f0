"""A tinted sidebar holding the seller, its VAT id, contact and bank; the body on the right.

Exercises: seller and bank details in a narrow column beside the body (the IBAN close to the
seller's name), the body starting with the buyer, reading order across two columns.
"""

from reportlab.lib import colors
from reportlab.platypus import Frame, Spacer

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    kv_table,
    line_columns,
    lines_table,
    meta_pairs,
    notes,
    paid_stamp,
    party_flowables,
    registry_lines,
    small_print,
    totals_rows,
    totals_table,
)

NEEDS = Needs(max_lines=6)
SIDEBAR_WIDTH = 150
GUTTER = 18


def render(ctx):
    inv, look, rng = ctx.inv, ctx.look, ctx.rng
    pw, ph = ctx.page_size
    m = look.margin
    side = party_flowables(ctx, inv.seller, "seller", name_size=look.size + 3, contact=True)
    side += [Spacer(1, 10)] + small_print(ctx, bank_lines(ctx))
    side += [Spacer(1, 10)] + small_print(ctx, registry_lines(ctx, 2))
    tint = colors.Color(look.accent.red, look.accent.green, look.accent.blue, alpha=0.08)

    def first(canvas, doc):
        canvas.saveState()
        canvas.setFillColor(tint)
        canvas.rect(0, 0, m + SIDEBAR_WIDTH + GUTTER / 2, ph, stroke=0, fill=1)
        Frame(m, m, SIDEBAR_WIDTH, ph - 2 * m, leftPadding=0, rightPadding=4,
              topPadding=0).addFromList(list(side), canvas)
        paid_stamp(canvas, ctx, pw * 0.6, ph / 2)
        canvas.restoreState()

    body_x = m + SIDEBAR_WIDTH + GUTTER
    body_w = pw - m - body_x
    body = [Frame(body_x, m, body_w, ph - 2 * m, id="body", leftPadding=0, rightPadding=0,
                  topPadding=0, bottomPadding=0)]
    story = [ctx.para(ctx.w("invoice"), size=look.title_size + 4, bold=True, color=look.accent),
             Spacer(1, 10)]
    story += party_flowables(ctx, inv.buyer, "buyer", label=ctx.w("buyer"))
    story += [Spacer(1, 10), kv_table(ctx, meta_pairs(ctx), widths=[120, body_w - 120]),
              Spacer(1, 12)]
    if inv.ship_to:
        story += party_flowables(ctx, inv.ship_to, "ship_to", label=ctx.w("ship_to"), vat=False)
        story.append(Spacer(1, 8))
    columns = line_columns(ctx, rng.choice(("basic", "full")), width=body_w)
    story += [lines_table(ctx, inv.lines, columns, width=body_w), Spacer(1, 8),
              totals_table(ctx, totals_rows(ctx), width=min(240, body_w)), Spacer(1, 12)]
    story += small_print(ctx, notes(ctx))
    return build_pdf(ctx, story, first=first, frames_first=body)
