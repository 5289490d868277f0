"""Dates that are not the invoice's: an item table's dates are not its issue date, and a date
after a title word is not its number (finders/header_fields.py, finders/page_values.py)."""
from __future__ import annotations

import datetime

from cell_pages import page_of

from ledgerline.extraction.finders import find_candidates


def values(dt, field: str) -> set:
    return {c.value for c in find_candidates(dt).fields[field]}


def treatment_table(*header):
    """A bill whose only dates are its treatments', in a "Datum" column of its item table."""
    cells = [(80, 800, "Spital Papierberg"), (80, 786, "Papierstrasse 5"),
             *((80 + 70 * k, 560, text) for k, text in enumerate(header))]
    for n, y in enumerate((540, 528, 516)):
        cells += [(80, y, f"1{n}.02.2021"), (150, y, "Dr. med. Meier"), (290, y, "1"),
                  (360, y, "200.00")]
    return page_of(*cells, (80, 300, "Total"), (360, 300, "600.00"))


def test_an_item_tables_dates_are_not_the_issue_date():
    # a quantity column makes it an item table's header
    dt = treatment_table("Datum", "Arzt", "Anzahl", "Betrag")
    assert values(dt, "issue_date") == set()
    # a header row naming a price and an amount, whatever its description column is called
    dt = treatment_table("Date", "Descrip", "Rate", "Total")
    assert values(dt, "issue_date") == set()


def test_a_labelled_issue_date_and_a_date_over_a_summary_are_still_taken():
    dt = page_of((80, 800, "Invoice date: 03.03.2021"), (80, 560, "Date"), (80, 540, "10.02.2021"),
                 (200, 560, "Reference"), (200, 540, "A-17"))
    found = values(dt, "issue_date")
    assert datetime.date(2021, 3, 3) in found
    assert datetime.date(2021, 2, 10) in found  # no item table: a date under a plain "Date"


def test_a_date_after_a_title_word_is_not_the_invoice_number():
    dt = page_of((30, 800, "RECHNUNG"), (110, 800, "29.07.2014 16:39:46"), (30, 700, "Total"),
                 (140, 700, "20,60 EUR"))
    assert "29.07.2014" not in {c.value for c in find_candidates(dt).fields["invoice_number"]
                                if c.evidence.kind == "label"}
    # a label that names the number keeps a number printed as a date
    dt = page_of((30, 800, "Numer faktury: 2/11/2023"), (30, 700, "Razem"), (140, 700, "20,60"))
    assert "2/11/2023" in values(dt, "invoice_number")


def test_a_due_date_under_its_label_in_a_schedule_of_payments_is_still_labelled():
    # "Fälligkeit" heads a column beside "Betrag": a table, but of payments, not of items
    dt = page_of((80, 800, "Rechnung 2018-17"), (80, 560, "Fälligkeit"), (200, 560, "Menge"),
                 (290, 560, "Betrag"), (80, 540, "04.04.2018"), (200, 540, "1"),
                 (290, 540, "100,00"))
    labelled = {c.value for c in find_candidates(dt).fields["due_date"]
                if c.evidence.kind == "label"}
    assert datetime.date(2018, 4, 4) in labelled
