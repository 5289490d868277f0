"""A shop's invoice: centred narrow column, seller in large type, VAT-inclusive prices.

Exercises: gross unit prices, the VAT contained in the total ("incl. 19 % VAT") instead of VAT
added on top, a short buyer line, totals without a net row on some, a paid stamp.
"""

from reportlab.lib.enums import TA_CENTER
from reportlab.platypus import Spacer

from ..build import Needs
from ..render import (
    bank_lines,
    build_pdf,
    kv_table,
    lines_table,
    meta_pairs,
    notes,
    paid_stamp,
    tax_summary,
    totals_rows,
    totals_table,
)

NEEDS = Needs(max_lines=6, p_inclusive=0.7, p_ship_to=0.0)
COLUMN = 330


def render(ctx):
    inv, look, rng = ctx.inv, ctx.look, ctx.rng
    pw, ph = ctx.page_size
    seller = inv.seller

    def page(canvas, doc):
        canvas.saveState()
        paid_stamp(canvas, ctx, pw / 2 + 80, ph * 0.45)
        canvas.restoreState()

    def centred(text, **kw):
        return ctx.para(text, align=TA_CENTER, **kw)

    story = [centred(ctx.show("seller_name", seller.name), size=look.head_size, bold=True,
                     color=look.accent), Spacer(1, 4)]
    story += [centred(line) for line in seller.address]
    if seller.vat_printed:
        story.append(centred(f"{ctx.lbl('vat_id')} {ctx.show('seller_vat_id', seller.vat_printed)}"))
    story += [centred(f"{ctx.lbl('phone')} {seller.phone}"), Spacer(1, 14),
              centred(ctx.w("invoice"), size=look.title_size, bold=True), Spacer(1, 6)]
    meta = kv_table(ctx, meta_pairs(ctx), widths=[COLUMN / 2, COLUMN / 2], value_align="RIGHT")
    meta.hAlign = "CENTER"
    buyer_line = f"{ctx.lbl('buyer')} {ctx.show('buyer_name', inv.buyer.name)}"
    if inv.buyer.vat_printed:
        buyer_line += f", {ctx.lbl('vat_id')} {ctx.show('buyer_vat_id', inv.buyer.vat_printed)}"
    table = lines_table(ctx, inv.lines, ["description", "quantity", "amount"], width=COLUMN)
    table.hAlign = "CENTER"
    totals = totals_table(ctx, totals_rows(ctx), width=COLUMN)
    totals.hAlign = "CENTER"
    story += [meta, Spacer(1, 6), centred(buyer_line), Spacer(1, 10), table, Spacer(1, 8), totals]
    if len(inv.totals.tax_rows) > 1 or rng.random() < 0.4:
        summary = tax_summary(ctx, width=COLUMN)
        summary.hAlign = "CENTER"
        story += [Spacer(1, 8), summary]
    story += [Spacer(1, 12)] + [centred(t, size=look.size - 0.5)
                                for t in notes(ctx) + bank_lines(ctx)]
    return build_pdf(ctx, story, first=page, show_pages=False)
