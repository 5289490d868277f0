"""Multilingual label vocabularies and how label hits on one line are resolved."""

import pytest

from ledgerline.extraction.document import AMOUNT_FIELDS
from ledgerline.extraction.finders.header_fields import LABEL_FIELDS, read_id
from ledgerline.extraction.finders.labels import match_labels
from ledgerline.extraction.finders.labels import resolve as _resolve
from ledgerline.extraction.text import fold


def _fields(text: str, prev: str | None = None) -> list[str]:
    f = fold(text)
    return [h.field for h in _resolve(match_labels(f, LABEL_FIELDS, prev=prev), f)]


def test_fold_keeps_length_and_drops_accents():
    for s in ("Rechnungsempfänger", "Date d'échéance", "Nº", "ﬁnal", "İstanbul"):
        assert len(fold(s)) == len(s)
    assert fold("Fälligkeit ÉCHÉANCE") == "falligkeit echeance"


@pytest.mark.parametrize(
    "text,field",
    [
        ("Invoice Number:", "invoice_number"),
        ("Invoice #", "invoice_number"),
        ("Rechnungs-Nr.", "invoice_number"),
        ("Handelsrechnung Nr.", "invoice_number"),
        ("Facture n°", "invoice_number"),
        ("N° de facture", "invoice_number"),
        ("Factura nº", "invoice_number"),
        ("Factuurnummer:", "invoice_number"),
        ("Numero fattura", "invoice_number"),
        ("Invoice Date:", "issue_date"),
        ("Rechnungsdatum", "issue_date"),
        ("Date de facturation", "issue_date"),
        ("Fecha de emisión", "issue_date"),
        ("Factuurdatum:", "issue_date"),
        ("Data fattura", "issue_date"),
        ("Due Date:", "due_date"),
        ("Fälligkeitsdatum", "due_date"),
        ("Date d'échéance", "due_date"),
        ("Fecha de vencimiento", "due_date"),
        ("Vervaldatum", "due_date"),
        ("Data di scadenza", "due_date"),
        ("Subtotal", "net_total"),
        ("Nettobetrag", "net_total"),
        ("Total HT", "net_total"),
        ("Base imponible", "net_total"),
        ("Totaal excl. BTW", "net_total"),
        ("Imponibile", "net_total"),
        ("VAT amount", "tax_total"),
        ("MwSt.-Betrag", "tax_total"),
        ("Total TVA", "tax_total"),
        ("Cuota IVA", "tax_total"),
        ("BTW bedrag", "tax_total"),
        ("Totale IVA", "tax_total"),
        ("Grand Total", "gross_total"),
        ("Bruttosumme", "gross_total"),
        ("Total TTC", "gross_total"),
        ("Importe total", "gross_total"),
        ("Factuur totaal", "gross_total"),
        ("Totale fattura", "gross_total"),
        ("Amount due", "amount_due"),
        ("Zahlbetrag", "amount_due"),
        ("Net à payer", "amount_due"),
        ("Importe a pagar", "amount_due"),
        ("Te betalen", "amount_due"),
        ("Totale da pagare", "amount_due"),
        ("Währung:", "currency"),
        # Polish, Czech, Portuguese, Swedish, Danish, Norwegian, Finnish
        ("Faktura VAT nr", "invoice_number"),
        ("Numer faktury", "invoice_number"),
        ("Data wystawienia", "issue_date"),
        ("Termin płatności", "due_date"),
        ("Termin platnosci", "due_date"),
        ("Razem netto", "net_total"),
        ("Kwota VAT", "tax_total"),
        ("Razem brutto", "gross_total"),
        ("Do zapłaty", "amount_due"),
        ("Faktura č.", "invoice_number"),
        ("Číslo faktury", "invoice_number"),
        ("Datum vystavení", "issue_date"),
        ("Datum splatnosti", "due_date"),
        ("Základ daně", "net_total"),
        ("DPH celkem", "tax_total"),
        ("Celkem s DPH", "gross_total"),
        ("Celkem k úhradě", "amount_due"),
        ("Měna:", "currency"),
        ("Fatura n.º", "invoice_number"),
        ("N.º da fatura", "invoice_number"),
        ("Data de emissão", "issue_date"),
        ("Data de vencimento", "due_date"),
        ("Total sem IVA", "net_total"),
        ("Valor IVA", "tax_total"),
        ("Total do documento", "gross_total"),
        ("Total a pagar", "amount_due"),
        ("Moeda", "currency"),
        ("Fakturanummer", "invoice_number"),
        ("Fakturadatum", "issue_date"),
        ("Förfallodatum", "due_date"),
        ("Summa exkl. moms", "net_total"),
        ("Momsbelopp", "tax_total"),
        ("Summa inkl. moms", "gross_total"),
        ("Att betala", "amount_due"),
        ("Fakturanr.", "invoice_number"),
        ("Fakturadato", "issue_date"),
        ("Forfaldsdato", "due_date"),
        ("Beløb ekskl. moms", "net_total"),
        ("Moms i alt", "tax_total"),
        ("I alt inkl. moms", "gross_total"),
        ("At betale", "amount_due"),
        ("Forfallsdato", "due_date"),
        ("Sum eks. mva", "net_total"),
        ("Mva-beløp", "tax_total"),
        ("Sum inkl. mva", "gross_total"),
        ("Å betale", "amount_due"),
        ("Laskun numero", "invoice_number"),
        ("Laskun päivämäärä", "issue_date"),
        ("Eräpäivä", "due_date"),
        ("Veroton summa", "net_total"),
        ("ALV yhteensä", "tax_total"),
        ("Yhteensä sis. ALV", "gross_total"),
        ("Maksettava", "amount_due"),
        ("Valuutta", "currency"),
    ],
)
def test_label_vocabulary(text, field):
    assert field in _fields(text)


@pytest.mark.parametrize(
    "text,field",
    [
        ("Rechnungssumme Netto (excl. USt.)", "net_total"),
        ("Rechnungssumme Brutto (inkl. USt.)", "gross_total"),
        ("Total (incl. VAT)", "gross_total"),
        ("Summe zzgl. MwSt", "net_total"),
        ("Rechnungssumme ohne USt.", "net_total"),
        ("Celkem bez DPH", "net_total"),
        ("I alt ekskl. moms", "net_total"),
        ("Totalt inkl. moms", "gross_total"),
    ],
)
def test_qualified_totals_are_not_vat_labels(text, field):
    assert _fields(text) == [field]


def test_weak_date_words_need_a_numbered_title_before_them():
    assert "issue_date" in _fields("Rechnung Nr. 4711 vom 05.03.2024")
    assert "issue_date" in _fields("Facture n° FA-12 du 13/11/2017")
    assert "issue_date" not in _fields("Rechnung gemäß Bestellung Nr. 2018-471331 vom 01.03.2018")
    assert "issue_date" not in _fields("ZUGFeRD-Version: 2.1 vom 24.03.2020")
    # the number may sit in the cell to the left or on the line above
    assert "issue_date" in _fields("vom", prev="nr. 471102")
    assert "issue_date" in _fields("Faktura VAT nr FV/12/2024 z dnia 05.03.2024")
    assert "issue_date" in _fields("Faktura č. 2024017 ze dne 5. 3. 2024")


def test_dates_of_other_events_are_not_issue_dates():
    assert "issue_date" not in _fields("Lieferdatum: 05.03.2024")
    assert "issue_date" not in _fields("Date de livraison : 28/01/2026")
    assert "issue_date" not in _fields("DATE DE FACTURE ASSOCIÉE : 01/01/2026")


def test_amount_fields_constant():
    assert set(AMOUNT_FIELDS) == {"net_total", "tax_total", "gross_total", "amount_due"}


@pytest.mark.parametrize(
    "segment,expected",
    [
        (": RE-2024/12", "RE-2024/12"),
        (" No. 4711 vom", "4711"),
        (" (380) Nr. 471102", "471102"),
        ("# INV/2023/03/0008", "INV/2023/03/0008"),
        (" RE-20151008/504 von", "RE-20151008/504"),
    ],
)
def test_read_id(segment, expected):
    assert read_id(segment)[0] == expected


@pytest.mark.parametrize("segment", [" Summary", " 1.234,56", ""])
def test_read_id_rejects(segment):
    assert read_id(segment) is None


def test_read_id_reads_a_date_shaped_number_less_surely():
    assert read_id(" 05.03.2018")[3] < read_id(" RE-2024/12")[3] == 1.0
