"""What the document is: an invoice to pay, or a credit note (money owed to its recipient).

An e-invoice says it by its type code (EN 16931's BT-3, UNTDID 1001; KSeF's ``RodzajFaktury``)
or, in UBL, by its root element (``CreditNote``); a printed page by its title ("Credit note",
"Gutschrift", "Avoir", "Nota de crédito", "Faktura korygująca", in every vocabulary language).
A correction (type 384, KSeF ``KOR``, a title such as "Rechnungskorrektur") is a credit note
when it reduces what is owed, which its totals show by their sign.

invoice-v2 gives a credit note's totals, its amount due and its lines' net amounts as negative
numbers whether or not the page prints a minus sign (:func:`signed_amounts`): a credit note is
money the issuer owes, never an amount to pay. Where the page names the invoice a credit note
corrects, that invoice's number is ``preceding_invoice_number`` (its labels are the vocabulary's
``LABELS["preceding_invoice_number"]``, read by the label finders).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .document import DOCUMENT_TYPES
from .geometry import DocText
from .vocabulary import VOCABULARY as V

INVOICE, CREDIT_NOTE = DOCUMENT_TYPES

# UNTDID 1001 codes EN 16931 allows for credit notes (BT-3): credit note related to goods or
# services (81), to financial adjustments (83), self-billed (261), consolidated (262), delcredere
# (296, 308), commercial (381), factored (396), reversal of direct debit (420), forwarder's (532)
CREDIT_NOTE_CODES = frozenset({"81", "83", "261", "262", "296", "308", "381", "396", "420", "532"})
# Corrections: a corrected invoice (384) and KSeF's corrective invoices; credit notes when they
# reduce what is owed
CORRECTION_CODES = frozenset({"384", "KOR", "KOR_ZAL", "KOR_ROZ"})

# How sure each kind of evidence makes the type.
XML_SURE = 0.99
TITLE_SURE = 0.95  # a credit note's title printed at the head of the page
NEGATIVE_CORRECTION_SURE = 0.9  # a correction's title over totals printed negative
UNSIGNED_CORRECTION = 0.5  # a correction's title over positive totals: which way it goes is unsure
NEGATIVE_TOTALS_SURE = 0.8  # no title says so, but the totals are printed negative
INVOICE_TITLED = 0.95  # an invoice's title printed, no credit note's
# No title printed, but a label of the page is a word an invoice's title begins ("Factuurnummer:",
# "Rechnungsdatum:"): in the languages that join words, the page names itself an invoice.
TITLE_IN_LABEL = 0.9
UNTITLED = 0.8  # neither title printed (a receipt, a bill)
# The title is among the first lines of page 1, at the start of its line or on a short line
# ("Credit note", "GUTSCHRIFT Nr. 17"), not in a sentence ("… as stated in our credit note …").
TITLE_LINES, TITLE_CHARS = 25, 40


@dataclass(frozen=True)
class DocumentType:
    value: str  # INVOICE or CREDIT_NOTE
    confidence: float
    evidence: str  # what says so, for review reasons ("printed title 'Gutschrift'")
    raw: str | None = None  # the title or code as printed / written
    page: int | None = None
    bbox: list | None = None
    reason: str | None = None  # why a person should look, when the type is unsure

    @property
    def credit_note(self) -> bool:
        return self.value == CREDIT_NOTE


def of_xml(type_code: str | None, credit_note_root: bool, totals: dict) -> DocumentType:
    """The type an e-invoice declares; ``totals`` are its amounts as written."""
    code = (type_code or "").strip().upper()
    what = f"XML type code {code}" if code else "XML without a type code"
    if credit_note_root:
        return DocumentType(CREDIT_NOTE, XML_SURE, "UBL CreditNote document", code or None)
    if code in CREDIT_NOTE_CODES:
        return DocumentType(CREDIT_NOTE, XML_SURE, what, code)
    if _reduces(totals):
        kind = "a correction" if code in CORRECTION_CODES else "an invoice"
        return DocumentType(CREDIT_NOTE, XML_SURE, f"{what}: {kind} with negative totals", code)
    return DocumentType(INVOICE, XML_SURE, what, code or None)


def _reduces(totals: dict) -> bool:
    """Do the totals say that what is owed goes down (gross total, else amount due, negative)?"""
    for name in ("gross_total", "amount_due", "net_total"):
        value = totals.get(name)
        if value is not None:
            return Decimal(value) < 0
    return False


def of_text(dt: DocText, printed_totals: dict) -> DocumentType:
    """The type the printed page states: its title, and for a correction the sign of the
    totals it prints (``printed_totals``: the chosen totals as printed, before any sign)."""
    title = _title(dt, V.credit_note_titles)
    if title is not None and _title(dt, V.self_billing, anywhere=True) is not None:
        # "Gutschrift (selbst ausgestellte Rechnung)": the buyer's invoice of a supply to it
        return _typed(dt, INVOICE, TITLE_SURE, title, "printed self-billing title")
    if title is not None:
        return _typed(dt, CREDIT_NOTE, TITLE_SURE, title, "printed title")
    correction = _title(dt, V.correction_titles)
    if correction is not None:
        if _reduces(printed_totals):
            return _typed(dt, CREDIT_NOTE, NEGATIVE_CORRECTION_SURE, correction,
                          "printed correction title over negative totals")
        got = _typed(dt, INVOICE, UNSIGNED_CORRECTION, correction,
                     "printed correction title over positive totals")
        return DocumentType(got.value, got.confidence, got.evidence, got.raw, got.page, got.bbox,
                            reason=f"document_type: {got.evidence} ({got.raw!r}): a correction "
                                   "that may reduce what is owed, read as an invoice")
    if _reduces(printed_totals):
        return DocumentType(CREDIT_NOTE, NEGATIVE_TOTALS_SURE, "totals printed negative")
    invoice = _title(dt, V.invoice_titles)
    if invoice is not None:
        return _typed(dt, INVOICE, INVOICE_TITLED, invoice, "printed title")
    if _title(dt, V.credit_note_compounds) is None:
        label = _title(dt, V.title_compounds, label=True)
        if label is not None:
            return _typed(dt, INVOICE, TITLE_IN_LABEL, label, "label named after the title")
    return DocumentType(INVOICE, UNTITLED, "no credit note's or invoice's title printed")


def credit_titled(dt: DocText) -> bool:
    """Is the page titled a credit note or a correction? (Its amounts are then read as
    magnitudes, and signed once the type is known.)"""
    if _title(dt, V.self_billing, anywhere=True) is not None:
        return _title(dt, V.correction_titles) is not None
    return any(_title(dt, rx) is not None for rx in (V.credit_note_titles, V.correction_titles))


def _title(dt: DocText, pattern, *, anywhere: bool = False,
           label: bool = False) -> tuple[int, int, int] | None:
    """(line, start, end) of the first title-like match of ``pattern`` at the head of page 1
    (``anywhere``: any match there; ``label``: only at the start of its line)."""
    for i in dt.by_page.get(1, [])[:TITLE_LINES]:
        folded = dt.folded[i]
        for m in pattern.finditer(folded):
            start = not folded[: m.start()].strip(" -–:#*|(")
            if anywhere or start or (not label and len(folded.strip()) <= TITLE_CHARS):
                return i, m.start(), m.end()
    return None


def _typed(dt: DocText, value: str, confidence: float, where, what: str) -> DocumentType:
    i, s, e = where
    ln = dt.lines[i]
    raw = ln.text[s:e]
    return DocumentType(value, confidence, f"{what} {raw!r}", raw, ln.page, ln.span_bbox(s, e))


def signed_amounts(value: Decimal | None) -> Decimal | None:
    """A credit note's amount as invoice-v2 gives it: negative (a zero stays zero)."""
    if value is None:
        return None
    return -abs(value) if value else value
