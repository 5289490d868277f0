"""No letterhead: a large title, the buyer on top, and the seller only in the small-print footer.

Exercises: the buyer's name as the most prominent party (a ranker must not take it for the
seller), the seller's name, VAT id and IBAN only in 6–7 pt footer columns.
"""

from reportlab.platypus import Spacer, Table, TableStyle

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    footer,
    kv_table,
    line_columns,
    lines_table,
    meta_pairs,
    notes,
    paid_stamp,
    party_flowables,
    party_lines,
    registry_lines,
    small_print,
    totals_rows,
    totals_table,
)

NEEDS = Needs(max_lines=8)


def render(ctx):
    inv, look, rng = ctx.inv, ctx.look, ctx.rng
    pw, ph = ctx.page_size
    seller = inv.seller
    seller_col = party_lines(ctx, seller, "seller", contact=rng.random() < 0.5)
    draw_footer, foot_h = footer(ctx, [seller_col, registry_lines(ctx, 3), bank_lines(ctx)])

    def page(canvas, doc):
        canvas.saveState()
        draw_footer(canvas)
        paid_stamp(canvas, ctx, pw / 2, ph / 2)
        canvas.restoreState()

    title = ctx.w("invoice")
    title = title.upper() if rng.random() < 0.5 else title
    meta = kv_table(ctx, meta_pairs(ctx), widths=[105, 110], bold_values=rng.random() < 0.3)
    head = Table([[ctx.para(title, size=look.title_size + 6, bold=True, color=look.accent), meta]],
                 colWidths=[ctx.width - 215, 215])
    head.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                              ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    buyer = party_flowables(ctx, inv.buyer, "buyer", label=ctx.w("buyer"),
                            name_size=look.size + 3)
    parties = [buyer]
    if inv.ship_to:
        parties.append(party_flowables(ctx, inv.ship_to, "ship_to", label=ctx.w("ship_to"),
                                       vat=False))
    block = Table([parties], colWidths=[ctx.width / 2] * len(parties), hAlign="LEFT")
    block.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                               ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    story = [head, Spacer(1, 16), block, Spacer(1, 16),
             lines_table(ctx, inv.lines, line_columns(ctx, rng.choice(("basic", "full")))),
             Spacer(1, 8), totals_table(ctx, totals_rows(ctx), width=240), Spacer(1, 12)]
    story += small_print(ctx, notes(ctx))
    return build_pdf(ctx, story, first=page, bottom=foot_h)
