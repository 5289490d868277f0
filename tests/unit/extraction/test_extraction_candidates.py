"""Candidate generation and choice are apart: the finders read the positioned-text model and
score nothing; the rules score their evidence for the fields they choose, the ranker picks the
totals."""

from decimal import Decimal

from ledgerline.extraction import choice, parse_pdf, ranker
from ledgerline.extraction.candidates import BELOW, RIGHT, SAME_LINE
from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.model import Line, Page

PAGE = [
    (50, 800, "Muster Handel GmbH"),
    (350, 760, "Rechnung"),
    (350, 740, "Rechnungsnummer:"),
    (460, 740, "RE-2024-17"),
    (350, 726, "Rechnungsdatum: 05.03.2024"),
    (350, 520, "Nettobetrag"),
    (460, 520, "100,00 EUR"),
    (350, 506, "MwSt. 19 %"),
    (460, 506, "19,00 EUR"),
    (350, 492, "Gesamtbetrag"),
    (460, 492, "119,00 EUR"),
    (350, 450, "Zahlbetrag"),
    (350, 436, "119,00 EUR"),
]


def _index(make_pdf) -> DocText:
    return DocText(parse_pdf(make_pdf([PAGE])).pages)


def test_candidates_carry_evidence_and_no_score(make_pdf):
    found = find_candidates(_index(make_pdf))
    number = found.fields["invoice_number"][0]
    assert number.value == "RE-2024-17" and number.score == 0.0
    ev = number.evidence
    assert ev.kind == "label" and ev.relation == RIGHT and ev.label_language == "de"
    assert ev.label_text.startswith("rechnungsnummer") and ev.label_weight == 1.0
    date = found.fields["issue_date"][0]
    assert date.evidence.relation == SAME_LINE and str(date.value) == "2024-03-05"
    due = [c for c in found.fields["amount_due"] if c.evidence.kind == "label"]
    assert due and due[0].evidence.relation == BELOW and due[0].value == Decimal("119.00")
    assert all(c.score == 0.0 for cands in found.fields.values() for c in cands)


def test_the_rules_score_evidence_and_leave_the_totals_to_the_ranker(make_pdf):
    dt = _index(make_pdf)
    rules = choice.choose(dt, find_candidates(dt))
    assert rules.fields["invoice_number"].value == "RE-2024-17"
    assert rules.fields["invoice_number"].score > 0.9
    assert rules.fields["currency"].value == "EUR"
    assert "gross_total" not in rules.fields
    chosen = ranker.choose(dt, find_candidates(dt)).fields
    assert (chosen["net_total"].value, chosen["tax_total"].value, chosen["gross_total"].value) == (
        Decimal("100.00"),
        Decimal("19.00"),
        Decimal("119.00"),
    )


def test_finders_read_any_source_of_the_model():
    """An OCR source gives the same model, with per-word confidence; finders do not care."""
    text = "Invoice No: 4711"
    line = Line(1, 50, 700, 200, 712, text, [None] * len(text), confidences=[0.9] * len(text))
    dt = DocText([Page(1, 595, 842, [line])])
    found = find_candidates(dt).fields["invoice_number"]
    (number,) = [c for c in found if c.evidence.kind == "label"]
    assert number.value == "4711"
    assert {c.value for c in found if c.evidence.kind == "page_id"} == {"4711"}
    assert line.span_confidence(12, 16) == 0.9
    assert Line(1, 0, 0, 1, 1, "x", [None]).span_confidence(0, 1) is None


def test_a_legal_form_printed_with_a_digit_for_a_letter_is_that_form():
    """"1/S" is no legal form, "I/S" is: a name's last word reads as the form its letters make;
    the raw text stays as printed, and a figure that makes no form stays a figure."""
    def sellers(text: str) -> list:
        line = Line(1, 50, 800, 300, 812, text, [None] * len(text))
        found = find_candidates(DocText([Page(1, 595, 842, [line])])).fields["seller_name"]
        return [(c.value, c.raw) for c in found]

    found = sellers("Gregersen & Christoffersen 1/S")
    assert found and set(found) == {("Gregersen & Christoffersen I/S",
                                     "Gregersen & Christoffersen 1/S")}
    found = sellers("Nordic Supplies Unit 10")
    assert found and all(v == "Nordic Supplies Unit 10" for v, _ in found)
