"""What the ranker reads from shapes of invoices it missed: a column of totals with a deduction
in it, a total rounded to whole units, a party's name over its address, a footer centred over
the seller's VAT id, Swedish totals labels. Invented invoices, one shape each."""

from decimal import Decimal

from cell_pages import page_of as _doc

from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.finders.header_fields import LABEL_FIELDS, _plain_hits
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.ranker import joint
from ledgerline.extraction.ranker.features import FEATURE_INDEX
from ledgerline.extraction.ranker.rows import document_rows

D = Decimal


def _features(dt: DocText, field: str, value) -> dict:
    doc = document_rows(dt, find_candidates(dt))
    row = next(r for r in doc.rows[field] if r.value == value)
    return {name: row.x[k] for name, k in FEATURE_INDEX.items()}


def test_a_subtotal_stands_over_a_deduction_and_the_total_under_it():
    dt = _doc(
        (40, 800, "Invoice 4711"),
        (380, 300, "Gross Total"), (500, 300, "$1,640.00"),
        (380, 288, "Agency commission"), (506, 288, "-$246.00"),
        (380, 276, "Sales Tax"), (516, 276, "$0.00"),
        (380, 264, "NET TOTAL"), (500, 264, "$1,394.00"),
    )
    before = _features(dt, "gross_total", D("1640.00"))
    assert before["col_deduction_below"] == 1 and before["col_deduction_above"] == 0
    assert before["col_amounts_below"] == 3
    after = _features(dt, "gross_total", D("1394.00"))
    assert after["col_deduction_above"] == 1 and after["col_amounts_below"] == 0


def test_a_discount_row_is_a_deduction_and_a_deposit_paid_is_not():
    discounted = _doc(
        (380, 300, "Subtotal:"), (500, 300, "5,661.12"),
        (380, 288, "Discount (10%):"), (505, 288, "566.11"),
        (380, 276, "Total:"), (500, 276, "5,095.01"),
    )
    assert _features(discounted, "gross_total", D("5661.12"))["col_deduction_below"] == 1
    deposit = _doc(
        (380, 300, "Total:"), (500, 300, "1,000.00"),
        (380, 288, "Deposit paid"), (505, 288, "-300.00"),
        (380, 276, "Balance due:"), (505, 276, "700.00"),
    )
    assert _features(deposit, "gross_total", D("1000.00"))["col_deduction_below"] == 0


def test_a_gross_total_rounded_to_whole_units_adds_up():
    # "Total 4,489.90" and "Total Amount After Tax (rounded) 4,490.00": both add up now, so the
    # likelier one wins instead of the one that adds up to the cent
    picks = joint.choose_totals({
        "net_total": {D("3805.00"): 0.9},
        "tax_total": {D("684.90"): 0.9},
        "gross_total": {D("4490.00"): 0.86, D("4489.90"): 0.83},
        "amount_due": {},
    })
    assert picks["gross_total"].value == D("4490.00")
    # two units are not 1.70 + 0.36 rounded: the miss is too large a share of the total
    assert not joint.adds_up(D("1.70"), D("0.36"), D("2"))
    assert joint.adds_up(D("3805.00"), D("684.90"), D("4490"))
    assert not joint.adds_up(D("3805.00"), D("684.90"), D("4490.50"))


def test_a_party_name_stands_over_its_address_and_an_item_text_does_not():
    dt = _doc(
        (85, 640, "Lumenwerk"), (85, 622, "26 rue des Lilas"), (85, 604, "69100 Villeurbanne"),
        (85, 520, "Consulting and design work"), (85, 508, "as agreed"),
        (400, 508, "1,200.00"),
    )
    assert _features(dt, "seller_name", "Lumenwerk")["name_address_below"] == 1
    assert _features(dt, "seller_name", "Consulting and design work")["name_address_below"] == 0


def test_a_centred_footer_name_is_in_the_block_of_the_vat_id_under_it():
    dt = _doc(
        (40, 800, "Faktura 463"),
        (208, 177, "Nordlund Verktyg AB, 12345, Storgatan 10."),
        (140, 166, "Styrelsens säte Storstad, Telefon: 0709-191925"),
        (110, 155, "Godkänd för F-skatt: Ja. Momsregistreringsnummer: SE556251680601."),
    )
    assert _features(dt, "seller_name", "Nordlund Verktyg AB")["name_block_seller_vat"] == 1


def test_swedish_totals_labels():
    dt = _doc((26, 535, "Exkl moms"), (214, 535, "Moms kr"), (400, 288, "Fakturans totala belopp"))
    fields = [[h.field for h in dt.labels(i, LABEL_FIELDS, _plain_hits)] for i in range(3)]
    assert fields == [["net_total"], ["tax_total"], ["gross_total"]]
    weights = [max(h.weight for h in dt.labels(i, LABEL_FIELDS, _plain_hits)) for i in range(3)]
    assert weights == [1.0, 1.0, 1.0]
