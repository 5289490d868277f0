"""Dutch vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed.
"""

MONTH_LOCALES = ("nl",)

LABELS = {
    "invoice_number": [
        (
            r"\bfactuur\s*(?:nummer|nr|no)\b\.?|\bfactuurnummer\b|\bfactuurnr\b\.?"
            r"|\bcreditnota\s*(?:nummer|nr)\b\.?",
            1.0,
        ),
    ],
    "issue_date": [(r"\bfactuur\s*datum\b|\bfactuurdatum\b", 1.0)],
    "due_date": [
        (
            r"\bvervaldatum\b|\bvervaldag\b|\buiterste\s+betaaldatum\b"
            r"|\bte\s+betalen\s+(?:voor|uiterlijk)\b",
            1.0,
        ),
        (r"\bte\s+betalen\s+voor\b", 0.8),
    ],
    "gross_total": [
        (r"\bfactuur\s*totaal\b|\btotaal\s*(?:bedrag|incl\.?(?:\s+btw)?)\b|\btotaalbedrag\b", 1.0),
    ],
    "net_total": [
        (
            r"\bsubtotaal\b|\btotaal\s+excl\.?(?:\s+btw)?\b|\bnetto\s*bedrag\b|\bbedrag\s+excl\.?"
            r"|\bexclusief\s+btw\b|\bexcl\.?\s+btw\b",
            1.0,
        ),
        (r"\bgrondslag\b", 0.8),
    ],
    "tax_total": [
        (r"\btotaal\s+btw\b|\bbtw[\s-]*bedrag\b", 1.0),
        (r"\bbtw\b", 0.7),
    ],
    "amount_due": [
        (r"\bte\s+betalen(?:\s+bedrag)?\b|\bopenstaand\s+bedrag\b|\bnog\s+te\s+betalen\b", 1.0),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\b(?:oorspronkelijke|originele)\s+factuur(?:\s*{number})?\b\.?", 1.0),
        (r"\bcreditnota\s+(?:voor|bij)\s+factuur(?:\s*{number})?\b\.?", 1.0),
        (r"\bbetreft\s+factuur(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bvaluta\b", 1.0)],
    "purchase_order": [
        (r"\bbestel(?:nummer|ling|nr)\b\.?|\border(?:nummer|nr)\b\.?|\buw\s+referentie\b", 1.0),
    ],
    "seller_vat_id": [
        (
            r"\bbtw[\s.-]*(?:reg(?:istration)?\.?\s*)?"
            r"(?:id|no|nr|number|nummer|num|n°|numero|nummer)?\b\.?|\bbtw-?(?:nummer|nr)\b",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("factuur", "creditnota")
NUMBERED_TITLES = ("factuur",)
OTHER_DATE_CONTEXT = ("levering", "bestel", "verval", "periode")
DATE_WORDS = ("datum",)
DATE_PREPOSITIONS = (r"van\s+",)
OTHER_EVENTS = ("levering",)
DATE_CONNECTIVES = ("van",)
TAX_ABBREVIATIONS = ("btw",)
TOTAL_WORDS = ("totaal",)
INCLUDING = ("inclusief",)
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("voorbeeld", "bijvoorbeeld", r"bijv\.")
CREDIT_NOTE_TITLES = ("creditnota", "creditfactuur")
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = (r"self-?billing", "zelffacturering")
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = ("correctiefactuur",)
BUYER_CONTEXT = ("uw", "factuuradres", "afleveradres", "klant", "afnemer")
SELLER_CONTEXT = ("onze",)
SELLER_LABELS = ("leverancier", "verkoper")
BUYER_LABELS = ("factuuradres", "klant", "afnemer")
TOTALS_ROWS = ("subtotaal", "totaal")
ITEM_SECTIONS = ("kortingen",)
CARRIED_FORWARD = ("transport", r"over\s+te\s+brengen", "overgebracht")
GROSS_WORDS = ("bruto",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"toeslag(?:en)?",)
CASH_DISCOUNTS = (r"betalingskorting", r"contante\s+betaling", r"betaling\s+binnen")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:btw|btw\s*%)\b",),
    "quantity": (r"\b(?:aantal|hoeveelheid)\b",),
    "unit_price": (r"\b(?:stukprijs|prijs\s+per\s+stuk)\b",),
    "net_amount": (r"\b(?:\w*bedrag|totaal|prijs\s+incl)\b",),
    "unit_price_weak": (r"\bprijs\b",),
    "description": (r"\bomschrijving\b",),
    "vat_amount": (r"\bbtw[\s-]*bedrag\b",),
    "gross_amount": (r"\b(?:bedrag|totaal)\s+incl\.?(?:\s+btw)?\b",),
    "discount": (r"\bkorting\b",),
    "unit": (r"^(?:eenheid|eh)$",),
}
PAID_WORDS = ("betaald", "vooruitbetaald", "aanbetaling")
EARLIER_BALANCES = (r"(?:vorig|openstaand)\s+saldo", r"openstaande\s+posten")

LEGAL_FORMS = (r"b\.v\.", "bv", r"n\.v\.", "nv", r"v\.o\.f\.", "vof")
# "V.O.F. De Bakker", Belgium's "NV Bekaert": the form may lead the name too
LEADING_LEGAL_FORMS = LEGAL_FORMS
NOT_NAME = ("factuur", "btw", "kvk")
NAME_LABELS = ("naam",)
ACCOUNT_HOLDER_LABELS = ("begunstigde", r"ten\s+name\s+van")
PAGE_TITLES = ("factuur",)
DELIVERY_LABELS = ("afleveradres",)
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("artikel", "lid", "wet", "richtlijn")
