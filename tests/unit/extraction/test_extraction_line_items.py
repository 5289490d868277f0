"""Line-item tables: headers in every language, columns from the header's geometry, descriptions
over several lines, VAT-inclusive and discounted lines, tables over several pages, and totals
that are no items. Pages are built straight in the positioned-text model (so the gaps between
cells are exactly what a text layer gives), plus generated invoices of every layout."""

from decimal import Decimal

import pytest

from ledgerline.extraction import extract_pdf
from ledgerline.extraction.finders.line_items import extract_line_items, repeated_header
from ledgerline.extraction.finders.line_items.header import Column, Header
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.model import Line, Page

CHAR, SIZE = 5.0, 8.0  # points: every character as wide, every line as high


def cells(y: float, *parts: tuple[float, str], page: int = 1) -> Line:
    """One text line of the model made of cells at their x positions, the way a text layer runs
    neighbouring cells into one line: the gaps between them are spaces without a glyph."""
    text, chars = "", []
    for x, part in parts:
        if text:
            text += " "
            chars.append(None)
        for k, _ in enumerate(part):
            chars.append((x + k * CHAR, x + (k + 1) * CHAR))
        text += part
    x0, x1 = parts[0][0], parts[-1][0] + len(parts[-1][1]) * CHAR
    return Line(page, x0, y, x1, y + SIZE, text, chars)


def row(y: float, *parts: tuple[float, str], page: int = 1) -> list[Line]:
    """A table row whose cells are lines of their own (the usual case)."""
    return [cells(y, p, page=page) for p in parts]


def items(*pages: list[Line]) -> list[dict]:
    model = [Page(n, 595, 842, sorted(ls, key=lambda ln: (-ln.y0, ln.x0)))
             for n, ls in enumerate(pages, start=1)]
    return extract_line_items(DocText(model))


def nets(found: list[dict]) -> list[str]:
    return [str(it["net_amount"]) for it in found]


def right(x: float, text: str) -> tuple[float, str]:
    """A cell right-aligned at x, as figures are."""
    return (x - len(text) * CHAR, text)


# --------------------------------------------------------------------------- every language
HEADERS = {
    "en": ("Description", "Qty", "Unit price", "Amount", "Subtotal"),
    "pl": ("Nazwa towaru lub uslugi", "Ilosc", "Cena netto", "Wartosc netto", "Razem"),
    "cs": ("Popis", "Množství", "Cena za MJ", "Celkem bez DPH", "Celkem"),
    "pt": ("Descrição", "Qtd.", "Preço unitário", "Valor", "Total"),
    "sv": ("Benämning", "Antal", "À-pris", "Belopp", "Summa"),
    "da": ("Beskrivelse", "Antal", "Enhedspris", "Beløb", "I alt"),
    "no": ("Beskrivelse", "Antall", "Enhetspris", "Beløp", "Sum"),
    "fi": ("Kuvaus", "Määrä", "Yksikköhinta", "Yhteensä", "Yhteensä"),
    "de": ("Bezeichnung", "Menge", "Einzelpreis", "Gesamtbetrag", "Zwischensumme"),
    "fr": ("Désignation", "Quantité", "Prix unitaire", "Montant HT", "Total HT"),
}


@pytest.mark.parametrize("lang", HEADERS)
def test_a_header_in_each_language_opens_the_table(lang):
    desc, qty, price, amount, total = HEADERS[lang]
    page = [
        *row(700, (50, desc), (260, qty), (330, price), (460, amount)),
        *row(680, (50, "Widget"), right(290, "3"), right(400, "12,50"), right(540, "37,50")),
        *row(666, (50, "Gadget"), right(290, "2"), right(400, "100,00"), right(540, "200,00")),
        *row(630, (50, total), right(540, "237,50")),
    ]
    found = items(page)
    assert nets(found) == ["37.50", "200.00"]
    assert found[0]["quantity"] == Decimal("3") and found[0]["unit_price"] == Decimal("12.50")
    assert found[0]["description"] == "Widget"


# --------------------------------------------------------------------------- columns
def test_header_cells_run_together_are_read_apart():
    # one text line for three header cells, and a stacked second header line under two of them
    page = [
        cells(700, (40, "Lp."), (60, "Nazwa towaru lub uslugi"), (330, "Cena jedn."),
              (390, "Ilosc"), (430, "Stawka"), (485, "Wartosc sprzedazy")),
        cells(690, (330, "netto"), (430, "podatku"), (485, "netto")),
        *row(675, right(48, "1"), (60, "Usluga pierwsza"), right(385, "10 120,00"), right(420, "1"),
             (430, "23 %"), right(575, "10 120,00")),
        *row(660, right(48, "2"), (60, "Usluga druga"), right(385, "3 795,00"), right(420, "1"),
             (430, "23 %"), right(575, "3 795,00")),
    ]
    found = items(page)
    assert nets(found) == ["10120.00", "3795.00"]
    assert found[0]["vat_rate"] == Decimal("23") and found[1]["description"] == "Usluga druga"


def test_one_header_cell_over_two_columns_of_figures_is_split_where_they_part():
    # "Unit price Price": the text layer gives one cell, the figures below give two columns
    page = [
        *row(700, (20, "Pos."), (40, "Description")),
        cells(700, (300, "Quantity")),
        cells(700, (360, "Unit price Price")),
        *row(685, right(25, "1"), (40, "Concept work"), right(340, "12"), right(400, "160.00"),
             right(450, "1'920.00")),
        *row(670, right(25, "2"), (40, "Implementation"), right(340, "34"), right(400, "160.00"),
             right(450, "5'440.00")),
        *row(650, (40, "Sub-Total"), right(450, "7'360.00")),
    ]
    assert nets(items(page)) == ["1920.00", "5440.00"]


def test_the_amount_column_is_told_by_arithmetic_when_the_words_mislead():
    # "Amount" here is the quantity (a translation of "Menge"); quantity × price = total
    page = [
        *row(700, (50, "Amount"), (120, "Product"), (300, "VAT"), (350, "Price"), (430, "Total")),
        *row(680, right(90, "400.00"), (120, "Ballons"), (300, "19%"), right(400, "0.79 €"),
             right(480, "316.00 €")),
        *row(665, right(90, "800.00"), (120, "Hot air"), (300, "19%"), right(400, "0.025 €"),
             right(480, "20.00 €")),
        *row(640, (50, "Net total: 336.00 €")),
    ]
    assert nets(items(page)) == ["316.00", "20.00"]


def test_a_sidebar_beside_the_header_is_no_column():
    page = [
        *row(700, (40, "CVR 44151227"), (220, "Vare"), (390, "Antal"), (440, "Pris"),
             (500, "Beløb")),
        *row(688, (40, "Direktør: R. Pedersen")),
        *row(675, (220, "Konsulentydelser"), right(410, "6"), right(480, "1.500,00"),
             right(545, "9.000,00")),
        *row(650, (320, "I alt"), right(545, "9.000,00")),
    ]
    assert nets(items(page)) == ["9000.00"]


# --------------------------------------------------------------------------- descriptions
def test_descriptions_over_several_lines_stay_with_their_item():
    page = [
        *row(700, (50, "Pos."), (80, "Description"), (440, "Prices in EUR")),
        *row(680, right(60, "1"), (80, "The first service"), right(500, "320,00")),
        *row(660, right(60, "2"), (80, "Another one, with details"), right(500, "245,00")),
        *row(652, (90, "- some more explanation")),
        *row(644, (90, "- of the service")),
        *row(624, right(60, "3"), (80, "The last service"), right(500, "65,00")),
        *row(600, (380, "Subtotal:"), right(500, "630,00")),
        *row(586, (380, "VAT 20%:"), right(500, "126,00")),
    ]
    found = items(page)
    assert nets(found) == ["320.00", "245.00", "65.00"]
    assert found[1]["description"] == (
        "Another one, with details - some more explanation - of the service"
    )


def test_an_amount_printed_between_description_lines_is_one_item():
    # the amount sits on the middle line; the gap between items is wider than between lines
    page = [
        *row(700, (50, "Item"), (300, "Qty"), (460, "Total")),
        *row(680, (50, "Annual licence")),
        *row(671, (50, "Premium plan"), right(320, "2"), right(520, "1,200.00")),
        *row(662, (50, "(12 months)")),
        *row(640, (50, "Setup fee")),
        *row(631, (50, "one-off"), right(320, "1"), right(520, "150.00")),
        *row(622, (50, "on site")),
        *row(600, (50, "Total"), right(520, "1,350.00")),
    ]
    found = items(page)
    assert nets(found) == ["1200.00", "150.00"]
    assert found[0]["description"] == "Annual licence Premium plan (12 months)"
    assert found[1]["description"] == "Setup fee one-off on site"


# --------------------------------------------------------------------------- VAT and discounts
def test_vat_inclusive_lines_give_their_net_amount():
    page = [
        *row(700, (50, "Artikel"), (250, "Anzahl"), (300, "Preis inkl. MwSt."), (400, "USt."),
             (470, "Gesamt brutto")),
        *row(680, (50, "Fachbuch"), right(280, "1"), right(380, "29,90"), (400, "7 %"),
             right(540, "29,90")),
        *row(665, (50, "Monitor"), right(280, "6"), right(380, "481,50"), (400, "19 %"),
             right(540, "2.889,00")),
        *row(640, (300, "Rechnungsbetrag:"), right(540, "2.918,90 €")),
    ]
    found = items(page)
    assert nets(found) == ["27.94", "2427.73"]
    assert found[1]["unit_price"] == Decimal("404.62") and found[1]["vat_rate"] == Decimal("19")


def test_a_line_total_with_its_tax_gives_quantity_times_price():
    page = [
        *row(700, (50, "Description"), (300, "Price"), (360, "Quantity"), (430, "Tax"),
             (500, "Total")),
        *row(680, (50, "Website"), right(340, "$12,500"), right(550, "$12,500")),
        *row(665, (50, "Hardware"), right(340, "$500"), right(400, "3"), (430, "7.025%"),
             right(550, "$1,605.38")),
        *row(650, (50, "Voucher"), right(340, "($100)"), right(550, "($100)")),
        *row(620, (420, "TOTAL"), right(550, "$14,005.38")),
    ]
    assert nets(items(page)) == ["12500", "1500.00", "-100"]


def test_discounted_lines_keep_the_amount_after_the_discount():
    page = [
        *row(700, (50, "Description"), (260, "Qty"), (300, "Unit price"), (380, "Disc. %"),
             (450, "Amount")),
        *row(680, (50, "Chairs"), right(280, "4"), right(360, "120.00"), right(420, "10"),
             right(510, "432.00")),
        *row(665, (50, "Desks"), right(280, "2"), right(360, "300.00"), right(420, "0"),
             right(510, "600.00")),
        *row(640, (50, "Subtotal"), right(510, "1,032.00")),
    ]
    found = items(page)
    assert nets(found) == ["432.00", "600.00"]
    assert found[0]["unit_price"] == Decimal("120.00")


# --------------------------------------------------------------------------- pages and totals
def _header(page: int, y: float) -> list[Line]:
    return row(y, (50, "Description"), (300, "Qty"), (460, "Amount"), page=page)


def _item(page: int, y: float, n: int) -> list[Line]:
    return row(y, (50, f"Article {n}"), right(320, "1"), right(520, f"{n},00"), page=page)


def test_a_table_goes_on_over_pages_without_its_carried_forward_rows():
    first = [*_header(1, 700), *(x for n in range(1, 4) for x in _item(1, 700 - 15 * n, n)),
             *row(600, (300, "Carried forward"), right(520, "6,00"))]
    second = [*row(800, (50, "Invoice 2024-17, page 2")), *_header(2, 780),
              *row(765, (300, "Brought forward"), right(520, "6,00"), page=2),
              *(x for n in range(4, 6) for x in _item(2, 765 - 15 * (n - 3), n)),
              *row(600, (300, "Übertrag"), right(520, "15,00"), page=2)]
    third = [*row(800, (50, "Invoice 2024-17, page 3"), page=3),
             *(x for n in range(6, 8) for x in _item(3, 790 - 15 * (n - 5), n)),
             *row(700, (300, "Total"), right(520, "28,00"), page=3)]
    assert nets(items(first, second, third)) == [f"{n}.00" for n in range(1, 8)]


def test_a_carried_forward_label_in_two_cells_is_no_item():
    # OCR parts "Brought forward" at a wide space: the row is still the running sum, and its
    # amount (the sum of the items above) does not end the table before the page's items
    first = [*_header(1, 700), *(x for n in range(1, 4) for x in _item(1, 700 - 15 * n, n))]
    second = [*_header(2, 780), *row(765, (300, "Brought"), (345, "forward"), right(520, "6,00"),
                                     page=2),
              *(x for n in range(4, 6) for x in _item(2, 765 - 15 * (n - 3), n)),
              *row(700, (300, "Net"), (322, "total:"), right(520, "15,00"), page=2)]
    assert nets(items(first, second)) == [f"{n}.00" for n in range(1, 6)]


def test_a_repeated_header_missing_a_cell_keeps_the_tables_columns():
    # the header repeated on page 2 lost its "Amount" cell (and moved 3 points): its figures
    # are still the line amounts, not a second figure of the quantity column
    first = [*row(700, (50, "Description"), (300, "Qty"), (380, "Price"), (460, "Amount")),
             *row(685, (50, "Article 1"), right(320, "2"), right(420, "1,50"), right(520, "3,00"))]
    second = [*row(780, (53, "Description"), (303, "Qty"), (383, "Price"), page=2),
              *row(765, (53, "Article 2"), right(323, "3"), right(423, "2,00"), right(523, "6,00"),
                   page=2),
              *row(750, (53, "Article 3"), right(323, "1"), right(423, "4,00"), right(523, "4,00"),
                   page=2)]
    found = items(first, second)
    assert nets(found) == ["3.00", "6.00", "4.00"]
    assert [it["quantity"] for it in found] == [Decimal(2), Decimal(3), Decimal(1)]
    # a later header naming columns at other places is a header of its own
    other = [*row(780, (53, "Description"), (200, "Amount"), page=2),
             *row(765, (53, "Article 2"), right(240, "9,00"), page=2)]
    assert nets(items(first, other)) == ["3.00", "9.00"]


def test_a_repeated_header_on_a_page_photographed_further_right_keeps_the_tables_columns():
    # each page of a phone photo is a picture of its own: on page 2 the table stands 35 points
    # further right, and its header lost the "Description" and "Amount" cells; the cells it
    # kept moved alike, so the table's columns move with them and the amounts stay amounts
    first = [*row(700, (50, "Description"), (300, "Qty"), (380, "Price"), (460, "Amount")),
             *row(685, (50, "Article 1"), right(320, "2"), right(420, "1,50"), right(520, "3,00"))]
    second = [*row(780, (335, "Qty"), (415, "Price"), page=2),
              *row(765, (85, "Article 2"), right(355, "3"), right(455, "2,00"), right(555, "6,00"),
                   page=2),
              *row(750, (85, "Article 3"), right(355, "1"), right(455, "4,00"), right(555, "4,00"),
                   page=2)]
    found = items(first, second)
    assert nets(found) == ["3.00", "6.00", "4.00"]
    assert [it["unit_price"] for it in found] == [Decimal("1.50"), Decimal("2.00"),
                                                   Decimal("4.00")]
    # cells that moved unlike each other are a header of its own
    table = _header_of([(50, "description"), (300, "quantity"), (380, "unit_price"),
                        (460, "net_amount")])
    apart = _header_of([(335, "quantity"), (455, "unit_price")])
    assert repeated_header(table, apart) is apart
    alike = _header_of([(335, "quantity"), (415, "unit_price")])
    assert [c.x0 for c in repeated_header(table, alike).columns] == [85, 335, 415, 495]


def _header_of(cells: list[tuple[float, str]]) -> Header:
    columns = [Column(kind, x, x + 30, kind) for x, kind in cells]
    return Header(1, columns, 700.0, frozenset(), True, SIZE)


def test_quantities_with_one_decimal_and_unnamed_quantity_columns_are_read():
    # "22,5" hours is no amount (amounts print two decimals) but is the quantity; the quantity
    # column's header is misread ("Quantitz"), and the arithmetic of the rows names it
    page = [
        *row(700, (50, "Description"), (290, "Quantitz"), (380, "Price"), (460, "Amount")),
        *row(685, (50, "Cleaning"), right(320, "22,5"), right(420, "29,00"), right(520, "652,50")),
        *row(670, (50, "Stand"), right(320, "4"), right(420, "35,99"), right(520, "143,96")),
        *row(655, (50, "Travel"), right(320, "1"), right(420, "27,05"), right(520, "27,05")),
    ]
    found = items(page)
    assert nets(found) == ["652.50", "143.96", "27.05"]
    assert [it["quantity"] for it in found] == [Decimal("22.5"), Decimal(4), Decimal(1)]
    # a column of position numbers multiplies out in no row: no quantity
    numbered = [
        *row(700, (30, "No."), (50, "Description"), (380, "Price"), (460, "Amount")),
        *row(685, (30, "1"), (50, "Cleaning"), right(420, "29,00"), right(520, "652,50")),
        *row(670, (30, "2"), (50, "Stand"), right(420, "35,99"), right(520, "143,96")),
    ]
    assert [it["quantity"] for it in items(numbered)] == [None, None]


def test_a_header_cell_misread_as_a_tall_glyph_leaves_the_rows_in_the_table():
    # "N.º" read as one "E" twice as high as the header's words: the rows under the header are
    # still of the table's size, not margin notes too small for it
    tall = Line(1, 30, 696, 40, 712, "E", [(30, 40)])
    page = [
        tall, *row(700, (50, "Description"), (300, "Qty"), (460, "Amount")),
        *row(685, (50, "Article 1"), right(320, "1"), right(520, "1,00")),
        *row(670, (50, "Article 2"), right(320, "2"), right(520, "4,00")),
    ]
    assert nets(items(page)) == ["1.00", "4.00"]


def test_misread_figures_are_told_by_the_rows_arithmetic():
    # "52,99" for 252,99 (a digit lost): quantity x price agrees with the row's VAT and gross
    # amounts, the amount read does not; "145" for 14,5 (the separator lost)
    header = row(700, (50, "Description"), (200, "Qty"), (280, "Price"), (340, "Net"),
                 (400, "VAT %"), (450, "VAT"), (510, "Gross"))
    page = [
        *header,
        *row(685, (50, "Boiler service"), right(220, "1"), right(310, "252,99"),
             right(370, "52,99"), right(430, "21%"), right(480, "53,13"), right(540, "306,12")),
        *row(670, (50, "Consulting"), right(220, "145"), right(310, "92,00"),
             right(370, "1.334,00"), right(430, "21%"), right(480, "280,14"),
             right(540, "1.614,14")),
        # a discount: the amount is no quantity x price, and no other figure says it is
        *row(655, (50, "Chair"), right(220, "2"), right(310, "100,00"), right(370, "180,00"),
             right(430, "21%"), right(480, "37,80"), right(540, "217,80")),
    ]
    found = items(page)
    assert nets(found) == ["252.99", "1334.00", "180.00"]
    assert [it["quantity"] for it in found] == [Decimal(1), Decimal("14.5"), Decimal(2)]


def test_a_footer_far_below_a_numbered_table_is_no_items_text():
    # "Carried" unread: "forward 6,00" is the sum of the items above and no item, and the
    # footer far below is no part of the last item (its "4200" no quantity)
    page = [
        *row(700, (30, "No."), (50, "Description"), (300, "Qty"), (460, "Amount")),
        *(x for n in range(1, 4)
          for x in row(700 - 15 * n, (30, str(n)), (50, f"Article {n}"), right(320, "1"),
                       right(520, f"{n},00"))),
        *row(640, (300, "forward"), right(520, "6,00")),
        *row(200, (50, "Noone Street"), (290, "4200 Dublin")),
    ]
    found = items(page)
    assert nets(found) == ["1.00", "2.00", "3.00"]
    assert found[-1]["description"] == "Article 3"


def test_a_header_whose_amount_cells_went_unread_takes_its_columns_from_the_figures():
    # OCR read "Description" and "Qty" but not "Unit price" and "Amount": the figures right of
    # "Qty" give the columns, and quantity x price = amount names the amount column
    page = [
        *row(700, (50, "Description"), (300, "Qty")),
        *row(685, (50, "Paint"), right(320, "1"), right(420, "44,00 €"), right(520, "44,00 €")),
        *row(670, (50, "Monitor"), right(320, "2"), right(420, "317,50 €"),
             right(520, "635,00 €")),
        *row(655, (50, "Paper"), right(320, "20"), right(420, "5,95 €"), right(520, "119,00 €")),
        *row(630, (300, "Total"), right(520, "798,00 €")),
    ]
    found = items(page)
    assert nets(found) == ["44.00", "635.00", "119.00"]
    assert found[1]["quantity"] == Decimal(2) and found[1]["unit_price"] == Decimal("317.50")
    # figures that do not multiply out (identifiers) under such a row are no items
    codes = [
        *row(700, (50, "Description"), (300, "Qty")),
        *row(685, (50, "Paint"), right(320, "3"), right(420, "4215,44"), right(520, "9026,95")),
        *row(670, (50, "Monitor"), right(320, "2"), right(420, "1054,85"), right(520, "3778,12")),
    ]
    assert items(codes) == []


def test_a_sum_brought_forward_unlabelled_at_a_pages_top_is_skipped_not_a_total():
    # "Brought" and "forward" both unread: the page's first row repeats the sum of the items
    # before it; it is no item, and the page's items below it are the table's
    first = [*_header(1, 700), *(x for n in range(1, 4) for x in _item(1, 700 - 15 * n, n))]
    second = [*_header(2, 780), *row(765, right(520, "6,00"), page=2),
              *(x for n in range(4, 6) for x in _item(2, 765 - 15 * (n - 3), n)),
              *row(700, (300, "Total"), right(520, "15,00"), page=2)]
    assert nets(items(first, second)) == [f"{n}.00" for n in range(1, 6)]


def test_a_line_far_taller_than_the_text_runs_no_rows_together():
    # a smudge read as one tall "=" beside the table: each row stays its own
    # (read in the order a source gives it, by its top, before the rows it spans)
    smudge = Line(1, 560, 640, 570, 698, "=", [(560, 570)])
    lines = [*_header(1, 700), smudge, *(x for n in range(1, 4) for x in _item(1, 700 - 15 * n, n))]
    found = extract_line_items(DocText([Page(1, 595, 842, lines)]))
    assert nets(found) == ["1.00", "2.00", "3.00"]


def test_an_amount_that_lost_its_decimal_separator_is_told_by_quantity_times_price():
    page = [
        *row(700, (50, "Description"), (300, "Qty"), (380, "Price"), (460, "Amount")),
        *row(685, (50, "Lunch"), right(320, "1"), right(420, "157,48 €"), right(520, "15748 €")),
        *row(670, (50, "Paint"), right(320, "2"), right(420, "10,00 €"), right(520, "20,00 €")),
    ]
    assert nets(items(page)) == ["157.48", "20.00"]


def test_a_table_whose_header_went_unread_is_read_from_rows_that_multiply_out():
    # a photo lost the header's band: the columns come from the figures' right edges, the
    # table from the first to the last row where quantity x price = amount
    page = [
        *row(760, (50, "Uphus Groothandel B.V."), (400, "Factuur 2026")),
        *row(720, right(440, "15150"), right(520, "151,50")),  # a fragment above the rows
        *row(700, (50, "Design flyer"), right(320, "1"), right(440, "617,77"),
             right(520, "617,77")),
        *row(685, (50, "Monitor"), right(320, "3"), right(440, "435,33"), right(520, "1.305,99")),
        *row(670, (50, "Advice hours"), right(320, "39"), right(440, "130,99"),
             right(520, "5.108,61")),
        *row(655, (50, "Paper"), right(320, "5"), right(440, "4,00"), right(520, "20,00")),
        *row(620, (300, "Totaal"), right(520, "7.052,37")),
    ]
    found = items(page)
    assert nets(found) == ["617.77", "1305.99", "5108.61", "20.00"]
    assert found[1]["description"] == "Monitor"
    # rows of figures that never multiply out make no table
    codes = [x for n in range(4) for x in row(700 - 15 * n, (50, f"Ref {n}"),
                                              right(320, str(n + 3)), right(440, "12,00"),
                                              right(520, "99,00"))]
    assert items(codes) == []


def test_a_repeated_header_with_misread_cells_keeps_the_tables_columns_and_labels():
    # page 2's header read "z." for "Qty" and "oe" for "Price"; its rows still print their
    # quantity and price, so an item whose text starts like a carried-forward word ("Transport
    # costs", Dutch "transport") is an item, and "Suma anterior" after a stray mark under the
    # figures is the sum brought forward
    first = [*row(700, (50, "Description"), (300, "Qty"), (380, "Price"), (460, "Amount")),
             *row(685, (50, "Article 1"), right(320, "2"), right(420, "1,50"), right(520, "3,00")),
             *row(670, (50, "Article 2"), right(320, "1"), right(420, "5,00"), right(520, "5,00"))]
    second = [*row(780, (50, "Description"), (300, "z."), (380, "oe"), (460, "Amount"), page=2),
              *row(765, (300, "as"), (380, "_ Suma anterior"), right(520, "8,00"), page=2),
              *row(750, (50, "Transport costs"), right(320, "1"), right(420, "4,00"),
                   right(520, "4,00"), page=2)]
    found = items(first, second)
    assert nets(found) == ["3.00", "5.00", "4.00"]
    assert found[-1]["quantity"] == Decimal(1)


def test_totals_are_no_items():
    page = [
        *_header(1, 700), *_item(1, 685, 1), *_item(1, 670, 2),
        *row(655, right(520, "3,00")),  # an unlabelled sum under the amounts
        *row(640, (50, "Note: delivered in two parts")),
        *row(600, (300, "Total due: 3,00")),
    ]
    assert nets(items(page)) == ["1.00", "2.00"]
    labelled = [*_header(1, 700), *_item(1, 685, 1), *_item(1, 670, 2),
                *row(650, (330, "Kwota należności ogółem: 3,00 PLN"))]
    assert nets(items(labelled)) == ["1.00", "2.00"]



def test_the_vat_at_its_rate_under_the_items_is_no_item():
    # "Iva (22 %)" under the amounts, then the total: neither is an item
    page = [
        *row(700, (50, "DESCRIZIONE"), (380, "IMPORTO")),
        *row(680, (50, "Progettazione"), (380, "1168 Euro")),
        *row(640, (300, "Iva (22 %)"), (380, "256,96 Euro")),
        *row(610, (380, "1424,96 Euro")),
        *row(598, (300, "TOTALE")),
    ]
    assert nets(items(page)) == ["1168"]


def test_a_currency_word_beside_a_whole_number_marks_it_as_an_amount():
    page = [*row(700, (50, "Description"), (380, "Amount")), *row(680, (50, "Design"), (380, "980 Euro"))]
    assert nets(items(page)) == ["980"]
    bare = [*row(700, (50, "Description"), (380, "Amount")), *row(680, (50, "Design"), (380, "980"))]
    assert items(bare) == []


def test_times_and_dates_in_a_row_are_no_figures():
    # a broadcast schedule: the day of an air date times the line number is the minutes of a
    # spot's length in both rows, arithmetic that would take the length for the line amount
    head = row(700, (30, "No."), (60, "Air date"), (130, "Length"), (200, "Description"),
               (480, "Amount"))
    page = [
        *head,
        *row(685, (30, "2"), (60, "05/01/20"), (130, "00:10"), (200, "Evening news 5:54PM"),
             right(520, "$25.00")),
        *row(670, (30, "3"), (60, "04/30/20"), (130, "00:12"), (200, "Late show"),
             right(520, "$30.00")),
    ]
    assert nets(items(page)) == ["25.00", "30.00"]


def test_rows_indented_under_an_item_that_add_up_to_it_break_it_down():
    head = row(700, (36, "Description"), (390, "Quantity"), (440, "Unit price"), (520, "Total"))
    page = [
        *head,
        *row(685, (36, "Consulting Services"), right(403, "15"), right(494, "50 €"),
             right(559, "750 €")),
        *row(670, (51, "Frontend Development"), right(400, "5"), right(492, "50 €"),
             right(556, "250 €")),
        *row(655, (51, "Backend Development"), right(402, "10"), right(492, "50 €"),
             right(556, "500 €")),
        *row(640, (36, "Software License"), right(401, "1"), right(494, "250 €"),
             right(559, "250 €")),
        *row(620, (420, "Subtotal"), right(559, "1000 €")),
    ]
    assert nets(items(page)) == ["750", "250"]
    # indented rows that do not add up to the item above are items of their own
    options = [
        *head,
        *row(685, (36, "Desk"), right(403, "1"), right(494, "300 €"), right(559, "300 €")),
        *row(670, (51, "Drawer unit"), right(400, "1"), right(492, "80 €"), right(556, "80 €")),
    ]
    assert nets(items(options)) == ["300", "80"]

@pytest.mark.parametrize("code", ["", "95"])
def test_allowances_and_charges_on_the_whole_invoice_are_no_items(code):
    """EN 16931 renderings print the document's allowances and charges under the items, each
    with an amount and a rate in the item columns, a code in the first column or none."""
    head = row(700, (40, "Ligne"), (90, "Désignation"), (300, "Qté"), (380, "Total HT"),
               (450, "TVA"))
    lines = [
        *head,
        *row(685, (40, "1"), (90, "Prestation support"), right(320, "1,00"), right(420, "60,00"),
             (450, "20,00%")),
        *row(670, (40, "2"), (90, "Fournitures papier"), right(320, "3,00"), right(420, "28,00"),
             (450, "10,00%")),
        *row(650, *([(40, code)] if code else []), (90, "REMISE : REMISE COMMERCIALE"),
             right(420, "-5,00"), (450, "20,00%")),
        *row(635, *([(40, code)] if code else []), (90, "CHARGE : FRAIS DEPLACEMENT"),
             right(420, "10,00"), (450, "20,00%")),
        *row(620, (90, "Abschlag: Skonto"), right(420, "-1,00"), (450, "20,00%")),
    ]
    assert nets(items(lines)) == ["60.00", "28.00"]


def test_a_subtotal_between_two_groups_of_items_does_not_end_the_table():
    head = row(700, (50, "Description"), (260, "Qty"), (320, "Unit price"), (460, "Amount"))
    group = [
        *row(685, (50, "Office chair"), right(280, "1"), right(380, "70.00"), right(520, "70.00")),
        *row(670, (420, "Subtotal $ 70.00")),
        *row(655, (50, "--- Food ---")),
        *row(640, (50, "Olive oil"), right(280, "2"), right(380, "4.50"), right(520, "9.00")),
        *row(610, (300, "Total"), right(520, "79.00")),
    ]
    assert nets(items([*head, *group])) == ["70.00", "9.00"]


def test_rows_of_totals_and_of_document_facts_head_no_table():
    page = [
        *row(700, (50, "Invoice no."), (200, "Date"), (350, "Customer"), (460, "Amount due")),
        *row(686, (50, "RE-17"), (200, "05.03.2024"), (350, "K-1"), right(520, "119,00")),
        *row(650, (100, "Net"), (250, "VAT"), (400, "Gross")),
        *row(636, right(150, "100,00"), right(300, "19,00"), right(450, "119,00")),
    ]
    assert items(page) == []


def test_a_header_word_broken_over_two_lines_is_no_document_fact():
    # "Pos." in a narrow column, broken into "Po" / "s.": "Po" alone reads as a PO label
    page = [
        *row(700, (20, "Po"), (40, "Description"), (300, "Qty"), (360, "Unit price"),
             (460, "Amount")),
        *row(691, (20, "s.")),
        *row(675, right(30, "1"), (40, "Concept work"), right(320, "12"), right(420, "160.00"),
             right(520, "1920.00")),
        *row(660, right(30, "2"), (40, "Implementation"), right(320, "34"), right(420, "160.00"),
             right(520, "5440.00")),
        *row(640, (300, "Total"), right(520, "7360.00")),
    ]
    assert nets(items(page)) == ["1920.00", "5440.00"]


def test_a_copy_of_the_invoice_on_a_later_page_repeats_no_item():
    copy = [*_header(1, 700), *_item(1, 685, 1), *_item(1, 670, 2),
            *row(640, (300, "Total"), right(520, "3,00"))]
    again = [Line(2, ln.x0, ln.y0, ln.x1, ln.y1, ln.text, ln.chars) for ln in copy]
    assert nets(items(copy, again)) == ["1.00", "2.00"]


# --------------------------------------------------------------------------- generated invoices
LAYOUTS = ("letterhead", "footer_seller", "two_columns", "header_rows", "boxed", "sidebar",
           "bill_ship_to", "retail", "multi_page")


@pytest.mark.parametrize("template", LAYOUTS)
def test_generated_invoices_of_every_layout(template, tmp_path):
    from ledgerline_tools.samples import generate

    checked = 0
    for seed in range(40):  # the first net-priced invoices of the layout in three languages
        pdf, truth = generate(seed, lang=("en", "de", "pl")[checked % 3], template=template)
        if truth["_generator"]["prices_include_vat"]:
            continue
        path = tmp_path / f"{seed}.pdf"
        path.write_bytes(pdf)
        doc = extract_pdf(path, content_hash="blake3:" + "ab" * 32, use_embedded_xml=False)
        want = sorted(Decimal(str(li["net_amount"])) for li in truth["line_items"])
        assert sorted(Decimal(li["net_amount"]) for li in doc["line_items"]) == want, seed
        checked += 1
        if checked == 3:
            break
    assert checked == 3


# --------------------------------------------------------------------------- labelled blocks
def _block(y: float, qty: str, amount: str, name: str, *, de: bool = True) -> list[Line]:
    """One line of an EN 16931 invoice rendered term by term: price details, then the item."""
    labels = ("Menge", "Gesamtpreis (netto)", "Bezeichnung:") if de else \
        ("Quantité", "Montant net de ligne", "Nom de l'article:")
    return [
        *row(y, (62, labels[0]), right(300, qty)),
        *row(y - 14, (62, labels[1]), right(300, amount)),
        *row(y - 40, (62, labels[2]), (160, name)),
    ]


def test_lines_printed_as_labelled_blocks_are_items():
    page = [
        *row(780, (62, "Summe aller Positionen"), (405, "netto"), right(567, "10.026,07")),
        *row(760, (62, "Umsatzsteuersatz"), right(567, "19")),
        *_block(700, "10.00", "10.000,00", "Schrauben"),
        *_block(600, "1", "26,07", "Porto + Versandkosten"),
    ]
    found = items(page)
    assert nets(found) == ["10000.00", "26.07"]
    assert [it["description"] for it in found] == ["Schrauben", "Porto + Versandkosten"]
    assert [it["quantity"] for it in found] == [Decimal("10.00"), Decimal("1")]
    assert [it["vat_rate"] for it in found] == [None, None]
    french = items(_block(700, "1", "972,00", "Item 1", de=False))
    assert nets(french) == ["972.00"] and french[0]["description"] == "Item 1"


def test_a_table_of_items_is_read_before_labelled_blocks():
    page = [
        *row(780, (50, "Description"), (260, "Qty"), (330, "Unit price"), (460, "Amount")),
        *row(765, (50, "Widget"), right(290, "3"), right(400, "12.50"), right(540, "37.50")),
        *row(740, (50, "Total"), right(540, "37.50")),
        *_block(700, "3", "37,50", "Widget"),
    ]
    assert nets(items(page)) == ["37.50"]
