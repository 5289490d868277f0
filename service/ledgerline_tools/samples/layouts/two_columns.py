"""Seller and buyer side by side, each label on a line of its own (Polish and Czech style).

Exercises: two party columns read left to right line by line, the invoice number inside the
title line, a sale/supply date beside the issue date, net/VAT/gross per line, a VAT summary
table with one row per rate and a total row, the bank account inside the seller's column, the
amount due in large type, signature lines.
"""

from reportlab.lib.enums import TA_CENTER
from reportlab.platypus import Spacer, Table, TableStyle

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    deduction_rows,
    kv_table,
    line_columns,
    lines_table,
    notes,
    paid_stamp,
    party_flowables,
    registry_lines,
    small_print,
    tax_summary,
    totals_table,
)

NEEDS = Needs(max_lines=7, p_multi_rate=0.5, p_inclusive=0.0)


def render(ctx):
    inv, look, rng, fmt = ctx.inv, ctx.look, ctx.rng, ctx.fmt
    pw, ph = ctx.page_size

    def page(canvas, doc):
        canvas.saveState()
        paid_stamp(canvas, ctx, pw / 2, ph * 0.6)
        canvas.restoreState()

    dates = []
    if "place_of_issue" in ctx.words:
        dates.append((ctx.lbl("place_of_issue"), inv.seller.address[-1].split(" ", 1)[-1]))
    dates.append((ctx.lbl("issue_date"), ctx.show("issue_date", fmt.date(inv.issue_date))))
    if inv.delivery_date:
        dates.append((ctx.lbl("delivery_date"), fmt.date(inv.delivery_date)))
    date_table = kv_table(ctx, dates, widths=[150, 90], value_align="RIGHT")
    date_table.hAlign = "RIGHT"
    title = f"{ctx.w('invoice_number')} {ctx.show('invoice_number', inv.number)}"
    bank_near_seller = rng.random() < 0.6
    seller = party_flowables(ctx, inv.seller, "seller", label=ctx.w("seller"),
                             extra=bank_lines(ctx) if bank_near_seller else None)
    buyer = party_flowables(ctx, inv.buyer, "buyer", label=ctx.w("buyer"))
    parties = Table([[seller, buyer]], colWidths=[ctx.width / 2] * 2)
    parties.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                 ("LINEBELOW", (0, 0), (-1, 0), 0.5, look.accent)]))
    refs = []
    if inv.order_number:
        refs.append((ctx.lbl("order_number"), ctx.show("purchase_order", inv.order_number)))
    if inv.customer_number:
        refs.append((ctx.lbl("customer_number"), inv.customer_number))
    story = [date_table, Spacer(1, 10),
             ctx.para(title, size=look.title_size, bold=True, align=TA_CENTER), Spacer(1, 12),
             parties, Spacer(1, 8)]
    if inv.ship_to:
        story += party_flowables(ctx, inv.ship_to, "ship_to", label=ctx.w("ship_to"), vat=False)
    if refs:
        story.append(kv_table(ctx, refs, widths=[120, 160]))
    story += [Spacer(1, 8), lines_table(ctx, inv.lines, line_columns(ctx, "split")),
              Spacer(1, 8), tax_summary(ctx, width=min(340, ctx.width))]
    extra = deduction_rows(ctx, with_due=False)
    if extra:
        story += [Spacer(1, 4), totals_table(ctx, extra, width=240)]
    due = ctx.money("amount_due", inv.totals.due)
    story += [Spacer(1, 10), ctx.para(f"{ctx.lbl('amount_due')} {due}", size=look.size + 4,
                                      bold=True)]
    if inv.due_date:
        story.append(ctx.para(f"{ctx.lbl('due_date')} {ctx.show('due_date', fmt.date(inv.due_date))}"))
    story += small_print(ctx, notes(ctx))
    if not bank_near_seller:
        story += small_print(ctx, bank_lines(ctx))
    story += small_print(ctx, registry_lines(ctx, 2))
    left, right = ctx.w("signatures").split("|")
    signs = Table([["." * 50, "." * 50], [left, right]], colWidths=[ctx.width / 2] * 2)
    signs.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), look.regular),
                               ("FONTSIZE", (0, 0), (-1, -1), look.size - 2),
                               ("ALIGN", (0, 0), (-1, -1), "CENTER")]))
    story += [Spacer(1, 30), signs]
    return build_pdf(ctx, story, first=page, show_pages=rng.random() < 0.5)
