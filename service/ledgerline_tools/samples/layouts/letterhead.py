"""Seller in large type as a letterhead, buyer window left, label/value meta block right.

Exercises: the seller's name as the largest text, a tiny return-address line above the buyer
(a second seller mention), meta labels left and values right, a right-aligned totals block, and
the bank and VAT id either in a three-column footer or right after the totals.
"""

from reportlab.lib import colors
from reportlab.platypus import Spacer, Table, TableStyle

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    draw_lines,
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
    m = look.margin
    seller = inv.seller
    head_right = rng.random() < 0.3
    bank_in_footer = rng.random() < 0.7
    seller_col = party_lines(ctx, seller, "seller")
    contact = [f"{ctx.lbl('phone')} {seller.phone}", f"{ctx.lbl('email')} {seller.email}",
               seller.web]
    third = bank_lines(ctx) if bank_in_footer else registry_lines(ctx, 2)
    draw_footer, foot_h = footer(ctx, [seller_col, contact + registry_lines(ctx, 1), third])
    head_h = look.head_size + 26

    def first(canvas, doc):
        canvas.saveState()
        canvas.setFillColor(look.accent)
        canvas.setFont(look.bold, look.head_size)
        y = ph - m - look.head_size
        (canvas.drawRightString if head_right else canvas.drawString)(
            pw - m if head_right else m, y, seller.name)
        canvas.setFillColor(colors.black)
        draw_lines(canvas, ctx, [" · ".join(seller.address)], pw - m if head_right else m,
                   y - 14, align="right" if head_right else "left")
        draw_footer(canvas)
        paid_stamp(canvas, ctx, pw - m - 90, ph / 2)
        canvas.restoreState()

    def later(canvas, doc):
        canvas.saveState()
        draw_footer(canvas)
        canvas.restoreState()

    return_line = ctx.para(" · ".join([seller.name, *seller.address]), size=6.5)
    buyer = [return_line, Spacer(1, 4)] + party_flowables(
        ctx, inv.buyer, "buyer", label=ctx.w("buyer") if rng.random() < 0.4 else None)
    meta = kv_table(ctx, meta_pairs(ctx), widths=[100, 110],
                    value_align="RIGHT" if rng.random() < 0.5 else "LEFT")
    top = Table([[buyer, meta]], colWidths=[ctx.width - 215, 215])
    top.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    story = [top, Spacer(1, 18), ctx.para(ctx.w("invoice"), size=look.title_size, bold=True),
             Spacer(1, 8)]
    if inv.ship_to:
        story += party_flowables(ctx, inv.ship_to, "ship_to", label=ctx.w("ship_to"), vat=False)
        story.append(Spacer(1, 6))
    story += [lines_table(ctx, inv.lines, line_columns(ctx, rng.choice(("basic", "full")))),
              Spacer(1, 8), totals_table(ctx, totals_rows(ctx), width=250), Spacer(1, 12)]
    story += small_print(ctx, notes(ctx))
    if not bank_in_footer:
        story += [Spacer(1, 6)] + small_print(ctx, bank_lines(ctx))
    return build_pdf(ctx, story, first=first, later=later, top=head_h, bottom=foot_h)
