"""US-style: seller top left, a large title with Invoice #/Date/P.O./Terms/Due right, Bill To
beside Ship To.

Exercises: the buyer as "Bill To" next to a delivery address (often another name), the order
number right under the invoice number, totals as Subtotal / Tax / Total / Payments / Balance
Due, m/d/y dates and $ where the country is the US.
"""

from reportlab.lib.enums import TA_RIGHT
from reportlab.platypus import Spacer, Table, TableStyle

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    kv_table,
    lines_table,
    meta_pairs,
    notes,
    paid_stamp,
    party_flowables,
    party_lines,
    small_print,
    totals_rows,
    totals_table,
)

NEEDS = Needs(max_lines=8, p_ship_to=1.0)


def render(ctx):
    inv, look, rng = ctx.inv, ctx.look, ctx.rng
    pw, ph = ctx.page_size

    def page(canvas, doc):
        canvas.saveState()
        paid_stamp(canvas, ctx, pw / 2, ph / 2)
        canvas.restoreState()

    seller = party_flowables(ctx, inv.seller, "seller", name_size=look.size + 5, contact=True)
    title = ctx.para(ctx.w("invoice").upper(), size=look.title_size + 8, bold=True,
                     color=look.accent, align=TA_RIGHT)
    meta = kv_table(ctx, meta_pairs(ctx), widths=[110, 100], value_align="RIGHT")
    meta.hAlign = "RIGHT"
    head = Table([[seller, [title, Spacer(1, 6), meta]]], colWidths=[ctx.width - 230, 230])
    head.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                              ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    ship = inv.ship_to or inv.buyer
    heads = [ctx.w("buyer").upper(), ctx.w("ship_to").upper()]
    bill_lines = party_lines(ctx, inv.buyer, "buyer")
    ship_lines = party_lines(ctx, ship, "ship_to", vat=False)
    rows = max(len(bill_lines), len(ship_lines))
    cells = [heads] + [[bill_lines[i] if i < len(bill_lines) else "",
                        ship_lines[i] if i < len(ship_lines) else ""] for i in range(rows)]
    parties = Table(cells, colWidths=[ctx.width / 2] * 2)
    parties.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), look.regular),
                                 ("FONTNAME", (0, 0), (-1, 0), look.bold),
                                 ("FONTNAME", (0, 1), (-1, 1), look.bold),
                                 ("FONTSIZE", (0, 0), (-1, -1), look.size),
                                 ("LINEBELOW", (0, 0), (-1, 0), 0.8, look.accent),
                                 ("TOPPADDING", (0, 0), (-1, -1), 1),
                                 ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
    columns = ["quantity", "description", "unit_price", "amount"]
    if any(ln.discount_pct for ln in inv.lines):
        columns.insert(3, "discount")
    story = [head, Spacer(1, 16), parties, Spacer(1, 14),
             lines_table(ctx, inv.lines, columns), Spacer(1, 8),
             totals_table(ctx, totals_rows(ctx), width=230), Spacer(1, 12)]
    story += small_print(ctx, notes(ctx) + bank_lines(ctx))
    return build_pdf(ctx, story, first=page, show_pages=rng.random() < 0.3)
