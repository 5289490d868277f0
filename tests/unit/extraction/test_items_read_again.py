"""An item's amount the totals row does not add up to, read again (``line_items.reread``), and
a table headed by the materials it lists. Pages are built straight in the positioned-text model;
a page the source can read again carries a stand-in for the second recogniser."""

from ledgerline.extraction.finders.line_items import extract_line_items
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.model import Page

from test_extraction_line_items import nets, right, row


class SecondReading:
    """What a second recogniser reads in each box asked of it: ``says`` maps the first
    reading's text inside the box to its second reading."""

    def __init__(self, page: list, says: dict[str, str], sure: float = 0.99):
        self.page, self.says, self.sure = page, says, sure
        self.asked: list[str] = []

    def read(self, bbox):
        # the first reading's text inside the box, the way the picture holds it
        for ln in self.page:
            if ln.x0 - 1 <= bbox[0] and bbox[2] <= ln.x1 + 1 and ln.y0 - 1 <= bbox[1] <= ln.y1:
                self.asked.append(ln.text)
                return self.says.get(ln.text, ln.text), self.sure
        return "", 0.0

    def ink(self, bbox):
        return []


def receipt(first_item: str, subtotal: str = "150.00") -> list:
    return [
        *row(700, (50, "Description"), right(400, "Amount")),
        *row(680, (50, "Glasses of stout"), right(400, first_item)),
        *row(660, (50, "Peanuts"), right(400, "12.00")),
        *row(640, (50, "Subtotal"), right(400, subtotal)),
    ]


def items_of(lines: list, again: SecondReading | None = None) -> list[dict]:
    page = Page(1, 595, 842, sorted(lines, key=lambda ln: (-ln.y0, ln.x0)), read_again=again)
    return extract_line_items(DocText([page]))


def test_an_amount_the_subtotal_disowns_takes_the_figure_a_second_reading_gives():
    lines = receipt("148.00", subtotal="150.00")  # 138.00 misread as 148.00
    again = SecondReading(lines, {"148.00": "138.00"})
    assert nets(items_of(lines, again)) == ["138.00", "12.00"]


def test_a_second_reading_that_agrees_with_the_first_changes_nothing():
    lines = receipt("148.00", subtotal="150.00")
    again = SecondReading(lines, {})
    assert nets(items_of(lines, again)) == ["148.00", "12.00"]


def test_an_unsure_second_reading_changes_nothing():
    lines = receipt("148.00", subtotal="150.00")
    again = SecondReading(lines, {"148.00": "138.00"}, sure=0.6)
    assert nets(items_of(lines, again)) == ["148.00", "12.00"]


def test_items_that_add_up_are_never_read_again():
    lines = receipt("138.00", subtotal="150.00")
    again = SecondReading(lines, {"138.00": "188.00"})
    assert nets(items_of(lines, again)) == ["138.00", "12.00"]
    assert again.asked == []


def test_a_page_that_cannot_be_read_again_keeps_its_figures():
    assert nets(items_of(receipt("148.00", subtotal="150.00"))) == ["148.00", "12.00"]


def test_two_items_the_second_reading_would_both_fit_change_neither():
    lines = [
        *row(700, (50, "Description"), right(400, "Amount")),
        *row(680, (50, "Glasses of stout"), right(400, "20.00")),
        *row(660, (50, "Peanuts"), right(400, "20.00")),
        *row(640, (50, "Subtotal"), right(400, "30.00")),
    ]
    again = SecondReading(lines, {"20.00": "10.00"})
    assert nets(items_of(lines, again)) == ["20.00", "20.00"]


def test_a_table_headed_by_its_materials_lists_them():
    lines = [
        *row(700, (50, "Materials"), right(400, "Total")),
        *row(680, (50, "CAT6"), right(400, "$123.45")),
        *row(660, (50, "UPS Battery"), right(400, "$123.45")),
        *row(640, (300, "Total:"), right(400, "$246.90")),
    ]
    assert nets(items_of(lines)) == ["123.45", "123.45"]


# --------------------------------------------------------------------------- summed columns
def schedule(last: str = "$225.00", total: str = "$1,485.00") -> list:
    """A schedule of spots: no header read, each spot's lines over its amount, no quantity or
    price beside it, and the totals row's figure under another column than the amounts'."""
    return [
        *row(700, (50, "Advertiser"), (150, "Friends of the Station")),
        *row(640, (20, "1"), (50, "Evening News")),
        *row(630, (50, "09/24/12 5:39 PM"), right(560, "$630.00")),
        *row(610, (20, "2"), (50, "Evening News")),
        *row(600, (50, "09/20/12 5:57 PM"), right(560, "$630.00")),
        *row(580, (20, "3"), (50, "Sunday Morning")),
        *row(570, (50, "09/23/12 10:34 AM"), right(560, last)),
        *row(550, (300, "Gross Total"), right(470, total)),
        *row(540, (300, "Agency Commission"), right(470, "$222.75")),
    ]


def test_a_column_of_amounts_a_totals_row_adds_up_gives_the_items():
    assert nets(items_of(schedule())) == ["630.00", "630.00", "225.00"]


def test_a_column_of_amounts_no_total_adds_up_gives_no_items():
    assert items_of(schedule(last="$325.00")) == []


def test_a_column_whose_sum_is_printed_without_a_totals_label_gives_no_items():
    lines = [ln for ln in schedule() if ln.text != "Gross Total"]
    assert items_of(lines) == []


# --------------------------------------------------------------------------- one item's total
def one_item(total_row: str) -> list:
    return [
        *row(700, (50, "Description"), right(400, "Amount")),
        *row(680, (50, "Toll, lorry"), right(400, "286.23")),
        *row(600, (50, "& i+"), right(400, total_row)),  # the totals label misread
    ]


def test_the_one_items_amount_repeated_with_its_currency_is_the_total():
    assert nets(items_of(one_item("¥ 286.23"))) == ["286.23"]


def test_the_one_items_amount_repeated_bare_is_a_second_item():
    assert nets(items_of(one_item("286.23"))) == ["286.23", "286.23"]


def test_an_amount_more_than_one_digit_from_the_figure_asked_is_never_read_again():
    # the total asks 178.50 of the first (two digits away), 42.50 of the second (two too)
    lines = receipt("148.00", subtotal="190.50")
    again = SecondReading(lines, {"148.00": "178.50", "12.00": "42.50"})
    assert nets(items_of(lines, again)) == ["148.00", "12.00"]
    assert again.asked == []
