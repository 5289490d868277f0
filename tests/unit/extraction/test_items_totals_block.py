"""Rows of the totals block under an item table that are no items: a charge labelled where the
totals are labelled, and a total whose label OCR read with a box's border before it in a row
shared with a footer. Pages are built straight in the positioned-text model."""

from test_extraction_line_items import items, nets, right, row


def books(delivery_x: float, priced: bool = False) -> list:
    """Three titles, then a delivery charge and the total, their labels at ``delivery_x``
    (the total's label at 230, under the price column)."""
    qty, price = ((100, "1"), right(330, "12,50 $")) if priced else ((), ())
    return [
        *row(700, (10, "Référence"), (80, "Quantité"), (130, "Titre du livre"), (290, "Prix"),
             (340, "Montant")),
        *row(680, (10, "5497621584"), (90, "12"), (130, "La cuisine de tous les jours"),
             right(330, "15,95 $"), right(400, "191,40 $")),
        *row(665, (10, "5498721685"), (90, "3"), (130, "Ismène et la ville"),
             right(330, "8,75 $"), right(400, "26,25 $")),
        *row(650, (10, "5498825741"), (90, "10"), (130, "La pensée positive"),
             right(330, "11,45 $"), right(400, "114,50 $")),
        *row(560, *[p for p in (qty,) if p], (delivery_x, "Frais de livraison"),
             *[p for p in (price,) if p], right(400, "12,50 $")),
        *row(545, (230, "Montant total"), right(400, "344,65 $")),
    ]


def test_a_charge_labelled_where_the_total_is_labelled_is_no_item():
    assert nets(items(books(delivery_x=230))) == ["191.40", "26.25", "114.50"]


def test_a_charge_in_the_items_text_column_stays_an_item():
    # the truth of such a table lists the delivery among its lines
    assert nets(items(books(delivery_x=130))) == ["191.40", "26.25", "114.50", "12.50"]


def test_a_charge_with_a_quantity_and_a_price_stays_an_item():
    assert nets(items(books(delivery_x=230, priced=True))) == [
        "191.40", "26.25", "114.50", "12.50"]


def test_the_only_item_is_kept_whatever_its_label():
    lines = [
        *row(700, (50, "Description"), (300, "Amount")),
        *row(680, (230, "Service"), right(400, "100.00")),
        *row(660, (230, "Total"), right(400, "100.00")),
    ]
    assert nets(items(lines)) == ["100.00"]


def spots(total_label: str) -> list:
    """A schedule two of whose spots were read (the total is of more), the gross total's row
    shared with the remittance address printed left of it."""
    return [
        *row(700, (20, "Line"), (150, "Air Time"), (300, "Program"), (480, "Amount")),
        *row(680, (20, "Spot"), (150, "10/24/12 7:24AM"), (300, "Today Show"),
             right(520, "625.00")),
        *row(665, (20, "Spot"), (150, "10/24/12 8:10AM"), (300, "Judge Judy"),
             right(520, "400.00")),
        *row(600, (20, "REMIT TO: P.O. BOX 640132 PGH, PA"), (400, total_label),
             right(520, "$2,050.00")),
        *row(585, (400, "[Commission"), right(520, "($153.75)")),
    ]


def test_a_total_behind_a_box_border_in_a_row_a_footer_shares_closes_the_table():
    assert nets(items(spots("[Gross Total"))) == ["625.00", "400.00"]
    assert nets(items(spots("| Invoice total:"))) == ["625.00", "400.00"]


def test_a_text_ending_in_more_than_a_totals_label_is_no_total():
    # "Sales total campaign", no label of a total at its end: the row stays in the table
    assert nets(items(spots("Sales total campaign")))[:3] == ["625.00", "400.00", "2050.00"]


def till_receipt(total_label: str, total: str = "538.00") -> list:
    return [
        *row(700, (20, "Description"), (300, "Amount")),
        *row(680, (20, "BOSTRAK WRD 80X50X18 2 pc"), right(340, "538.00")),
        *row(660, (20, "Lamp"), right(340, "106.00")),
        *row(640, (20, total_label), right(340, total)),
    ]


def test_lines_over_a_total_including_vat_they_add_up_to_are_gross():
    found = items(till_receipt("Total RM Including GST 6%", total="644.00"))
    assert nets(found) == ["507.55", "100.00"]
    assert [str(it["vat_rate"]) for it in found] == ["6", "6"]
    assert nets(items(till_receipt("Total incl. VAT 6%", total="644.00"))) == ["507.55", "100.00"]


def test_lines_a_total_including_vat_does_not_add_up_to_stay_as_printed():
    # net lines, the VAT explained below the total
    assert nets(items(till_receipt("Total incl. VAT 6%", total="682.64"))) == ["538.00", "106.00"]


def test_lines_over_a_plain_total_stay_as_printed():
    assert nets(items(till_receipt("Total", total="644.00"))) == ["538.00", "106.00"]


def test_a_total_including_vat_without_a_rate_leaves_the_lines_as_printed():
    assert nets(items(till_receipt("Total incl. VAT", total="644.00"))) == ["538.00", "106.00"]
