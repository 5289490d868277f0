"""Building blocks the templates compose: one invoice's look, its printed blocks, the PDF.

Every block that prints a value the truth records calls ``Ctx.show(field, text)``, so the
truth's ``_printed`` forms are exactly the strings on the page.
"""

from __future__ import annotations

import dataclasses
import io
import random
from decimal import Decimal
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT, TA_RIGHT
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph, Table, TableStyle

from . import fonts
from . import identifiers as ids
from .formats import Formatter
from .languages import LANGUAGES
from .model import Invoice, Party, money

ACCENTS = ("#1f3a5f", "#000000", "#2d5d34", "#6b1d2a", "#333333", "#0b5563", "#5a3e85")
TABLE_KINDS = ("grid", "lines", "zebra", "plain")
PAGE_SIZES = {"A4": A4, "LETTER": LETTER}
COLUMN_WIDTHS = {"pos": 24, "quantity": 42, "unit": 36, "unit_price": 64, "discount": 40,
                 "vat_rate": 42, "vat_amount": 60, "amount": 72, "net_amount": 70,
                 "gross_amount": 72}
NUMERIC = {"quantity", "unit_price", "discount", "vat_rate", "vat_amount", "amount", "net_amount",
           "gross_amount"}
MIN_DESCRIPTION_WIDTH = 150
P_TOTAL_VAT_ROW = 0.6       # several rates: the sum of VAT printed as its own row
P_NET_ON_INCLUSIVE = 0.7
P_AMOUNT_DUE_ROW = 0.5      # nothing deducted: an "amount due" row repeating the gross


@dataclasses.dataclass(frozen=True)
class Look:
    family: str
    regular: str
    bold: str
    italic: str
    size: float              # body text
    accent: colors.Color
    table: str               # grid | lines | zebra | plain
    title_size: float
    head_size: float         # the seller's name in a letterhead
    margin: float
    money_in_lines: bool     # line amounts with the currency mark


def draw_look(rng: random.Random) -> Look:
    family = rng.choice(fonts.FAMILY_NAMES)
    regular, bold, italic = fonts.register(family)
    return Look(family=family, regular=regular, bold=bold, italic=italic,
                size=rng.choice((8, 8.5, 9, 9, 9.5, 10)), accent=colors.HexColor(rng.choice(ACCENTS)),
                table=rng.choice(TABLE_KINDS), title_size=rng.choice((14, 16, 18, 20, 24)),
                head_size=rng.choice((16, 18, 20, 22, 26)), margin=rng.choice((36, 42, 48, 56)),
                money_in_lines=rng.random() < 0.35)


class Ctx:
    """One invoice being rendered: content, formatter, chosen words, look, printed values."""

    def __init__(self, inv: Invoice, fmt: Formatter, words: dict, look: Look, rng: random.Random,
                 page_size: str):
        self.inv, self.fmt, self.words, self.look, self.rng = inv, fmt, words, look, rng
        self.page_size = PAGE_SIZES[page_size]
        self.printed: dict[str, str] = {}
        self.country = LANGUAGES[inv.lang].country(inv.country)

    @property
    def width(self) -> float:
        return self.page_size[0] - 2 * self.look.margin

    def show(self, field: str, text: str) -> str:
        self.printed.setdefault(field, text)
        return text

    def w(self, key: str) -> str:
        return self.words[key]

    def lbl(self, key: str) -> str:
        return self.fmt.label(self.words[key])

    def money(self, field: str | None, value: Decimal) -> str:
        text = self.fmt.money(value)
        if self.fmt.style.mark:
            self.show("currency", self.fmt.style.mark)
        return self.show(field, text) if field else text

    def cell_amount(self, value: Decimal) -> str:
        return self.fmt.money(value) if self.look.money_in_lines else self.fmt.number(value)

    def para(self, text: str, *, size: float | None = None, bold: bool = False,
             align: int = TA_LEFT, color=None, leading: float | None = None) -> Paragraph:
        size = size or self.look.size
        style = ParagraphStyle(
            "p", fontName=self.look.bold if bold else self.look.regular, fontSize=size,
            leading=leading or size * 1.25, alignment=align,
            textColor=color or colors.black)
        return Paragraph(escape(text), style)


# ---- parties, meta, bank -------------------------------------------------------------------

def party_lines(ctx: Ctx, party: Party, role: str, *, vat: bool = True,
                contact: bool = False) -> list[str]:
    """Name, address, VAT id (and contact) of ``role`` ("seller", "buyer" or "ship_to")."""
    lines = [ctx.show(f"{role}_name", party.name) if role != "ship_to" else party.name]
    lines += list(party.address)
    if vat and party.vat_printed:
        printed = party.vat_printed
        if role != "ship_to":
            ctx.show(f"{role}_vat_id", printed)
        lines.append(f"{ctx.lbl('vat_id')} {printed}")
    if contact:
        lines += [f"{ctx.lbl('phone')} {party.phone}", f"{ctx.lbl('email')} {party.email}"]
    return lines


def party_flowables(ctx: Ctx, party: Party, role: str, *, label: str | None = None,
                    name_size: float | None = None, vat: bool = True, contact: bool = False,
                    extra: list[str] | None = None) -> list:
    out = []
    if label:
        out.append(ctx.para(ctx.fmt.label(label), bold=True, color=ctx.look.accent))
    lines = party_lines(ctx, party, role, vat=vat, contact=contact) + (extra or [])
    out.append(ctx.para(lines[0], bold=True, size=name_size or ctx.look.size + 1))
    out += [ctx.para(line) for line in lines[1:]]
    return out


def meta_pairs(ctx: Ctx, *, with_due: bool = True) -> list[tuple[str, str]]:
    """(label, value) of the document's numbers and dates, the order drawn per invoice."""
    inv, fmt = ctx.inv, ctx.fmt
    numbers = [("invoice_number", ctx.show("invoice_number", inv.number))]
    if inv.preceding_number:  # a credit note names the invoice it credits
        numbers.append(("preceding_invoice",
                        ctx.show("preceding_invoice_number", inv.preceding_number)))
    near = []
    if inv.customer_number:
        near.append(("customer_number", inv.customer_number))
    if inv.order_number:
        near.append(("order_number", ctx.show("purchase_order", inv.order_number)))
    dates = [("issue_date", ctx.show("issue_date", fmt.date(inv.issue_date)))]
    if inv.delivery_date:
        dates.append(("delivery_date", fmt.date(inv.delivery_date)))
    if inv.due_date and with_due:
        dates.append(("due_date", ctx.show("due_date", fmt.date(inv.due_date))))
    tail = [("delivery_note", inv.delivery_note)] if inv.delivery_note else []
    ctx.rng.shuffle(near)
    if ctx.rng.random() < 0.5:        # order and customer numbers right beside the number
        ordered = numbers + near + dates + tail
    else:
        ordered = dates[:1] + numbers + dates[1:] + near + tail
    return [(ctx.lbl(key), value) for key, value in ordered]


def bank_lines(ctx: Ctx) -> list[str]:
    bank = ctx.inv.bank
    if bank is None:
        return []
    lines = [f"{ctx.lbl('bank')} {bank.name}"]
    if bank.iban:
        ctx.show("iban", bank.iban_printed)
        lines.append(f"{ctx.lbl('iban')} {bank.iban_printed}")
    if bank.bic:
        lines.append(f"{ctx.lbl('bic')} {bank.bic}")
    if bank.account:
        lines.append(bank.account)
    return lines


def registry_lines(ctx: Ctx, count: int) -> list[str]:
    inv = ctx.inv
    values = {"city": _city(inv.seller), "person": inv.seller.contact or "",
              "address": ", ".join(inv.seller.address), "capital": _capital(ctx),
              "form": inv.seller.name.split()[-1], **inv.seller.ids}
    chosen = ctx.rng.sample(ctx.country.registry, min(count, len(ctx.country.registry)))
    return [ids.fill_digits(ctx.rng, pattern, values) for pattern in chosen]


def _city(party: Party) -> str:
    last = party.address[-1]
    return last.split(" ", 1)[-1] if any(ch.isdigit() for ch in last[:6]) else last


def _capital(ctx: Ctx) -> str:
    return ctx.fmt.number(Decimal(ctx.rng.choice((5000, 10000, 25000, 50000, 100000))))


def notes(ctx: Ctx) -> list[str]:
    """Payment terms, payment reference, reverse-charge and currency notes, thanks."""
    inv, out = ctx.inv, []
    if inv.due_date and ctx.rng.random() < 0.4:
        out.append(ctx.w("pay_by").format(date=ctx.fmt.date(inv.due_date)))
    else:
        out.append(ctx.w("payment_terms").format(days=inv.payment_days))
    if inv.reference:
        out.append(f"{ctx.lbl('reference')} {inv.reference}")
    if inv.reverse_charge:
        out.append(ctx.w("reverse_charge"))
    if ctx.fmt.style.mark is None or ctx.rng.random() < 0.15:
        out.append(ctx.w("currency_note").format(currency=ctx.fmt.style.code))
        ctx.show("currency", ctx.fmt.style.code)
    if ctx.rng.random() < 0.6:
        out.append(ctx.w("thanks"))
    return out


# ---- tables --------------------------------------------------------------------------------

def table_style(ctx: Ctx, rows: int, *, header: bool = True, numeric_from: int | None = None,
                size: float | None = None) -> TableStyle:
    look = ctx.look
    size = size or look.size
    cmds = [("FONTNAME", (0, 0), (-1, -1), look.regular), ("FONTSIZE", (0, 0), (-1, -1), size),
            ("LEADING", (0, 0), (-1, -1), size * 1.2), ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]
    if numeric_from is not None:
        cmds.append(("ALIGN", (numeric_from, 0), (-1, -1), "RIGHT"))
    if header:
        cmds.append(("FONTNAME", (0, 0), (-1, 0), look.bold))
    if look.table == "grid":
        cmds.append(("GRID", (0, 0), (-1, -1), 0.4, colors.grey))
        if header:
            cmds.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")))
    elif look.table == "lines" and header:
        cmds += [("LINEBELOW", (0, 0), (-1, 0), 0.8, look.accent),
                 ("LINEBELOW", (0, -1), (-1, -1), 0.4, colors.grey)]
    elif look.table == "zebra":
        if header:
            cmds += [("BACKGROUND", (0, 0), (-1, 0), look.accent),
                     ("TEXTCOLOR", (0, 0), (-1, 0), colors.white)]
        for r in range(1 if header else 0, rows, 2):
            cmds.append(("BACKGROUND", (0, r), (-1, r), colors.HexColor("#f2f2f2")))
    return TableStyle(cmds)


def line_columns(ctx: Ctx, kind: str, width: float | None = None) -> list[str]:
    inclusive = ctx.inv.prices_include_vat
    has_discount = any(ln.discount_pct for ln in ctx.inv.lines)
    if kind == "basic":
        cols = ["description", "quantity", "unit_price", "amount"]
    elif kind == "split" and not inclusive:      # net, VAT and gross per line (Polish style)
        cols = ["pos", "description", "quantity", "unit", "unit_price", "net_amount", "vat_rate",
                "vat_amount", "gross_amount"]
    else:
        cols = ["pos", "description", "quantity", "unit", "unit_price", "vat_rate", "amount"]
    if has_discount:
        cols.insert(cols.index("unit_price") + 1, "discount")
    if not ctx.inv.has_vat or (len({ln.vat_rate for ln in ctx.inv.lines}) == 1
                               and kind == "basic"):
        cols = [c for c in cols if c != "vat_rate"]
    fixed = sum(COLUMN_WIDTHS[c] for c in cols if c != "description")
    for optional in ("unit", "pos", "vat_rate", "discount"):
        fixed = sum(COLUMN_WIDTHS[c] for c in cols if c != "description")
        if (width or ctx.width) - fixed < MIN_DESCRIPTION_WIDTH and optional in cols:
            cols.remove(optional)
    return cols


def _header(ctx: Ctx, column: str) -> str:
    inclusive = ctx.inv.prices_include_vat
    key = {"unit_price": "unit_price_gross" if inclusive else "unit_price",
           "amount": "gross_amount" if inclusive else "net_amount"}.get(column, column)
    return ctx.w(key)


def line_row(ctx: Ctx, index: int, line, columns: list[str], desc_style) -> list:
    fmt = ctx.fmt
    net = line.amount
    vat = money(net * line.vat_rate / 100)
    cells = {
        "pos": str(index), "description": Paragraph(escape(line.name), desc_style),
        "quantity": fmt.quantity(line.quantity), "unit": line.unit,
        "unit_price": ctx.cell_amount(line.unit_price),
        "discount": fmt.percent(line.discount_pct) if line.discount_pct else "",
        "vat_rate": fmt.percent(line.vat_rate), "vat_amount": ctx.cell_amount(vat),
        "amount": ctx.cell_amount(net), "net_amount": ctx.cell_amount(net),
        "gross_amount": ctx.cell_amount(net + vat),
    }
    if "unit" not in columns and "quantity" in columns:
        cells["quantity"] = f"{fmt.quantity(line.quantity)} {line.unit}"
    return [cells[c] for c in columns]


def lines_table(ctx: Ctx, lines, columns: list[str], *, start: int = 1,
                carry_in: Decimal | None = None, carry_out: Decimal | None = None,
                size: float | None = None, width: float | None = None) -> Table:
    width = width or ctx.width
    size = size or ctx.look.size - 0.5
    desc_style = ParagraphStyle("d", fontName=ctx.look.regular, fontSize=size, leading=size * 1.2)
    # A table style's TEXTCOLOR does not reach a Paragraph: a header on a coloured band
    # ("zebra") is given its white here, or it prints black on the band, unreadable on paper.
    head_colour = colors.white if ctx.look.table == "zebra" else colors.black
    head_style = ParagraphStyle("h", fontName=ctx.look.bold, fontSize=size, leading=size * 1.2,
                                textColor=head_colour)
    head_right = ParagraphStyle("hr", parent=head_style, alignment=TA_RIGHT)
    rows = [[Paragraph(escape(_header(ctx, c)), head_right if c in NUMERIC else head_style)
             for c in columns]]
    if carry_in is not None:
        rows.append([""] * (len(columns) - 2) + [ctx.w("carry_in"), ctx.cell_amount(carry_in)])
    for i, line in enumerate(lines, start):
        rows.append(line_row(ctx, i, line, columns, desc_style))
    if carry_out is not None:
        rows.append([""] * (len(columns) - 2) + [ctx.w("carry_out"), ctx.cell_amount(carry_out)])
    fixed = sum(COLUMN_WIDTHS[c] for c in columns if c != "description")
    widths = [COLUMN_WIDTHS.get(c, width - fixed) for c in columns]
    table = Table(rows, colWidths=widths, repeatRows=1)
    first_numeric = next(i for i, c in enumerate(columns) if c in NUMERIC)
    style = table_style(ctx, len(rows), numeric_from=first_numeric, size=size)
    table.setStyle(style)
    return table


def totals_rows(ctx: Ctx) -> list[tuple[str, str, bool]]:
    """(label, amount, emphasised) rows of the totals block, in the order issuers print them."""
    inv, t, fmt, rng = ctx.inv, ctx.inv.totals, ctx.fmt, ctx.rng
    vat_word = ctx.w("vat")
    rows: list[tuple[str, str, bool]] = []
    if t.discount:
        rows.append((ctx.lbl("subtotal"), ctx.money(None, t.lines), False))
        rows.append((ctx.fmt.label(f"{ctx.w('discount')} {fmt.percent(inv.discount_pct)}"),
                     ctx.money(None, -t.discount), False))
    single = len(t.tax_rows) == 1
    if inv.prices_include_vat:
        rows.append((ctx.lbl("gross_total"), ctx.money("gross_total", t.gross), True))
        for row in t.tax_rows:
            label = ctx.w("vat_included").format(rate=fmt.percent(row.rate))
            rows.append((label, ctx.money("tax_total" if single else None, row.tax), False))
        if rng.random() < P_NET_ON_INCLUSIVE:
            rows.append((ctx.lbl("net_total"), ctx.money("net_total", t.net), False))
    else:
        rows.append((ctx.lbl("net_total"), ctx.money("net_total", t.net), False))
        for row in t.tax_rows:
            on_base = "" if single or rng.random() < 0.5 else f" ({fmt.money(row.base)})"
            label = ctx.fmt.label(f"{vat_word} {fmt.percent(row.rate)}{on_base}")
            rows.append((label, ctx.money("tax_total" if single else None, row.tax), False))
        if not single and rng.random() < P_TOTAL_VAT_ROW:
            rows.append((ctx.fmt.label(f"{ctx.w('total_row')} {vat_word}"),
                         ctx.money("tax_total", t.tax), False))
        rows.append((ctx.lbl("gross_total"), ctx.money("gross_total", t.gross), True))
    rows += deduction_rows(ctx)
    return rows


def deduction_rows(ctx: Ctx, *, with_due: bool = True) -> list[tuple[str, str, bool]]:
    inv, t = ctx.inv, ctx.inv.totals
    rows = []
    if t.prepaid:
        if inv.prepaid_date and "{date}" in ctx.w("prepayment") and t.prepaid != t.gross:
            label = ctx.w("prepayment").format(date=ctx.fmt.date(inv.prepaid_date))
        else:
            label = ctx.w("paid")
        rows.append((ctx.fmt.label(label), ctx.money(None, -t.prepaid), False))
    if t.voucher:
        rows.append((ctx.lbl("voucher"), ctx.money(None, -t.voucher), False))
    if t.rounding:
        rows.append((ctx.lbl("rounding"), ctx.money(None, t.rounding), False))
    if with_due and (t.prepaid or t.voucher or t.rounding or ctx.rng.random() < P_AMOUNT_DUE_ROW):
        rows.append((ctx.lbl("amount_due"), ctx.money("amount_due", t.due), True))
    return rows


def totals_table(ctx: Ctx, rows, *, width: float, size: float | None = None) -> Table:
    size = size or ctx.look.size
    table = Table([[label, value] for label, value, _ in rows],
                  colWidths=[width - 90, 90], hAlign="RIGHT")
    cmds = [("FONTNAME", (0, 0), (-1, -1), ctx.look.regular), ("FONTSIZE", (0, 0), (-1, -1), size),
            ("ALIGN", (1, 0), (1, -1), "RIGHT"), ("TOPPADDING", (0, 0), (-1, -1), 1.5),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5)]
    for i, (_, _, strong) in enumerate(rows):
        if strong:
            cmds += [("FONTNAME", (0, i), (-1, i), ctx.look.bold),
                     ("LINEABOVE", (0, i), (-1, i), 0.6, ctx.look.accent)]
    table.setStyle(TableStyle(cmds))
    return table


def tax_summary(ctx: Ctx, *, width: float) -> Table:
    """Rate rows plus a total row: rate | base | VAT | gross."""
    t, fmt = ctx.inv.totals, ctx.fmt
    rows = [[ctx.w("rate"), ctx.w("base"), ctx.w("vat_amount"), ctx.w("gross_amount")]]
    for row in t.tax_rows:
        rows.append([fmt.percent(row.rate), fmt.number(row.base), fmt.number(row.tax),
                     fmt.number(row.gross)])
    rows.append([ctx.w("total_row"), ctx.money("net_total", t.net), ctx.money("tax_total", t.tax),
                 ctx.money("gross_total", t.gross)])
    table = Table(rows, colWidths=[width * 0.19, width * 0.27, width * 0.27, width * 0.27],
                  hAlign="RIGHT")
    style = table_style(ctx, len(rows), numeric_from=1)
    style.add("FONTNAME", (0, -1), (-1, -1), ctx.look.bold)
    table.setStyle(style)
    return table


def kv_table(ctx: Ctx, pairs, *, widths, value_align: str = "LEFT", size: float | None = None,
             bold_values: bool = False) -> Table:
    size = size or ctx.look.size
    table = Table([[k, v] for k, v in pairs], colWidths=widths, hAlign="LEFT")
    table.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (0, -1), ctx.look.regular),
        ("FONTNAME", (1, 0), (1, -1), ctx.look.bold if bold_values else ctx.look.regular),
        ("FONTSIZE", (0, 0), (-1, -1), size), ("ALIGN", (1, 0), (1, -1), value_align),
        ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
        ("LEFTPADDING", (0, 0), (0, -1), 0)]))
    return table


def header_row_table(ctx: Ctx, pairs, *, width: float) -> Table:
    """Labels in one row, their values in the row below."""
    labels = [k.rstrip(": ") for k, _ in pairs]
    values = [v for _, v in pairs]
    table = Table([labels, values], colWidths=[width / len(pairs)] * len(pairs))
    style = table_style(ctx, 2, size=ctx.look.size - 0.5)
    style.add("FONTNAME", (0, 1), (-1, 1), ctx.look.bold)
    table.setStyle(style)
    return table


# ---- the document --------------------------------------------------------------------------

def page_label_canvas(ctx: Ctx, *, show: bool, x: float | None = None, y: float = 22):
    """A canvas class that draws "Page n of m" once the page count is known."""
    template = ctx.w("page")
    font, size = ctx.look.regular, ctx.look.size - 1
    right = x if x is not None else ctx.page_size[0] - ctx.look.margin

    class Numbered(Canvas):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._pages = []

        def showPage(self):
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            total = len(self._pages)
            for number, state in enumerate(self._pages, 1):
                self.__dict__.update(state)
                if show:
                    self.setFont(font, size)
                    self.drawRightString(right, y, template.format(page=number, pages=total))
                super().showPage()
            super().save()

    return Numbered


def build_pdf(ctx: Ctx, story: list, *, first, later=None, frames_first=None, frames_later=None,
              top: float = 0, bottom: float = 0, show_pages: bool = True) -> tuple[bytes, int]:
    """Lay out ``story``; ``first``/``later`` draw the fixed parts of each page on the canvas."""
    buf = io.BytesIO()
    m = ctx.look.margin
    pw, ph = ctx.page_size
    doc = BaseDocTemplate(buf, pagesize=ctx.page_size, leftMargin=m, rightMargin=m,
                          topMargin=m, bottomMargin=m, invariant=1,
                          title=f"{ctx.w('invoice')} {ctx.inv.number}", author=ctx.inv.seller.name,
                          creator="", producer="")
    default = [Frame(m, m + bottom, pw - 2 * m, ph - 2 * m - top - bottom, id="body",
                     leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)]
    doc.addPageTemplates([
        PageTemplate(id="first", frames=frames_first or default, onPage=first,
                     autoNextPageTemplate="later"),
        PageTemplate(id="later", frames=frames_later or default, onPage=later or first),
    ])
    doc.build(story, canvasmaker=page_label_canvas(ctx, show=show_pages))
    return buf.getvalue(), doc.page


def draw_lines(canvas, ctx: Ctx, lines, x: float, y: float, *, size: float | None = None,
               bold_first: bool = False, align: str = "left", leading: float | None = None):
    size = size or ctx.look.size - 1.5
    leading = leading or size * 1.3
    for i, text in enumerate(lines):
        canvas.setFont(ctx.look.bold if (bold_first and i == 0) else ctx.look.regular, size)
        draw = {"left": canvas.drawString, "right": canvas.drawRightString,
                "center": canvas.drawCentredString}[align]
        draw(x, y - i * leading, text)



def footer(ctx: Ctx, columns: list[list[str]], *, size: float | None = None):
    """A callback drawing small columns of text at the page foot, and the height it takes."""
    size = size or max(6.5, ctx.look.size - 2)
    leading = size * 1.3
    columns = [c for c in columns if c]
    height = max((len(c) for c in columns), default=0) * leading + 8
    m = ctx.look.margin
    col_width = (ctx.page_size[0] - 2 * m) / max(1, len(columns))

    def draw(canvas):
        canvas.setStrokeColor(ctx.look.accent)
        canvas.setLineWidth(0.5)
        canvas.line(m, m + height, ctx.page_size[0] - m, m + height)
        canvas.setFillColor(colors.black)
        for i, col in enumerate(columns):
            draw_lines(canvas, ctx, col, m + i * col_width, m + height - size - 3, size=size,
                       leading=leading)

    return draw, height + 6


def paid_stamp(canvas, ctx: Ctx, x: float, y: float):
    """A rotated "PAID" stamp on prepaid invoices."""
    if "prepaid" not in ctx.inv.features:
        return
    canvas.saveState()
    canvas.translate(x, y)
    canvas.rotate(18)
    canvas.setFillColor(colors.HexColor("#c0392b"))
    canvas.setFont(ctx.look.bold, 30)
    canvas.drawCentredString(0, 0, ctx.w("paid_stamp"))
    canvas.restoreState()


def small_print(ctx: Ctx, texts: list[str]) -> list:
    return [ctx.para(t, size=ctx.look.size - 0.5) for t in texts]
