"""Italian vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("quantita", never "quantità").
"""

MONTH_LOCALES = ("it",)

LABELS = {
    "invoice_number": [
        (r"\bnota\s+di\s+credito\s+(?:n|nr|numero)\b\.?|\bnumero\s+nota\s+di\s+credito\b", 1.0),
        (r"\bfattura\s*(?:n\s?[o°º.]?|numero|num\.?|nr\.?|no\.?|#)(?=[\s:.\d]|$)", 1.0),
        (r"\bnumero\s+(?:della\s+)?fattura\b|\bn\.\s*fattura\b|\bnum\.\s*fattura\b", 1.0),
    ],
    "issue_date": [(r"\bdata\s+(?:della\s+|di\s+)?(?:fattura|emissione|documento)\b", 1.0)],
    "due_date": [
        (r"\bdata\s+(?:di\s+)?scadenza\b|\bscadenza\b", 1.0),
        (r"\bda\s+pagare\s+entro\s+il\b", 0.8),
    ],
    "gross_total": [
        (r"\btotale\s+(?:fattura|documento|ivato|complessivo)\b|\bimporto\s+totale\b", 1.0),
    ],
    "net_total": [(r"\btotale\s+imponibile\b|\bimponibile\b|\btotale\s+netto\b", 1.0)],
    "tax_total": [
        (r"\btotale\s+iva\b|\bimposta\b|\btotale\s+imposte\b|\bimporto\s+iva\b", 1.0),
        (r"\biva\b|\bi\.v\.a(?!\w)", 0.7),  # "I.V.A. 22%"
    ],
    "amount_due": [
        (
            r"\bimporto\s+da\s+pagare\b|\btotale\s+da\s+pagare\b|\bnetto\s+a\s+pagare\b|\bsaldo\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bfattura\s+(?:di\s+riferimento|originale|d.origine|rettificata)(?:\s*{number})?\b\.?", 1.0),
        (r"\bstorno\s+(?:della\s+)?fattura(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bdivisa\b|\bvaluta\b", 1.0)],
    "purchase_order": [(r"\bordine(?:\s+(?:n\.?|numero))?\b|\bnumero\s+ordine\b", 1.0)],
    "seller_vat_id": [
        (
            r"\biva[\s.-]*(?:reg(?:istration)?\.?\s*)?"
            r"(?:id|no|nr|number|nummer|num|n°|numero|nummer)?\b\.?"
            r"|\bpartita\s+iva\b|\bp\.?\s?iva\b",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("fattura",)
NUMBERED_TITLES = ("fattura", "nota")
OTHER_DATE_CONTEXT = ("ordine", "consegna", "scadenza")
DATE_WORDS = ("data",)
DATE_PREPOSITIONS = (r"di\s+",)
OTHER_EVENTS = ("consegna", "scadenza", "ordine")
DATE_CONNECTIVES = ("del",)
TAX_ABBREVIATIONS = ("iva",)
TOTAL_WORDS = ("totale",)
EXCLUDING = ("senza",)
INCLUDING = ("con",)
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("esempio", r"ad\s+esempio", r"per\s+esempio")
CREDIT_NOTE_TITLES = (r"nota\s+di\s+credito",)
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("autofattura", "autofatturazione")
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = (r"fattura\s+(?:di\s+)?rettifica", r"nota\s+di\s+variazione")
BUYER_CONTEXT = ("cliente", "destinatario", "acquirente")
SELLER_LABELS = ("fornitore", "venditore", r"cedente(?:\s+prestatore)?")
BUYER_LABELS = ("cliente", "destinatario", "acquirente", r"cessionario(?:\s+committente)?")
TOTALS_ROWS = ("totale", "imponibile")
ITEM_SECTIONS = ("sconti",)
CARRIED_FORWARD = (r"a\s+riportare", "riporto", "riportato")
GROSS_WORDS = ("ivato", "lordo")
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"maggiorazion[ei]",)
CASH_DISCOUNTS = (r"sconto\s+cassa", r"pronta\s+cassa", r"pagamento\s+anticipato")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:iva|iva\s*%)\b",),
    "quantity": (r"\b(?:quantita|qta)\b",),
    "unit_price": (r"\bprezzo\s+unitario\b",),
    "net_amount": (r"\b(?:importo|totale|imponibile)\b",),
    "unit_price_weak": (r"\bprezzo\b",),
    "description": (r"\b(?:descrizione|articolo|prodotto|servizio)\b",),
    "vat_amount": (r"\b(?:importo\s+iva(?!\s+incl)|imposta)\b",),
    "gross_amount": (r"\b(?:totale|importo)\s+(?:ivato|iva\s+incl\w*)\b",),
    "discount": (r"\b(?:sconto|sc\.)(?!\w)",),
    "unit": (r"^(?:u\.?\s?m\.?|unita)$",),
}
PAID_WORDS = ("pagato", "acconto", "anticipo")
EARLIER_BALANCES = (r"saldo\s+precedente", r"arretrat[io]")

LEGAL_FORMS = (r"s\.r\.l\.", "srl", r"s\.p\.a\.", "spa", "snc", r"s\.n\.c\.")
NOT_NAME = ("fattura",)
NAME_LABELS = ("nome", r"ragione\s+sociale")
ACCOUNT_HOLDER_LABELS = ("intestatario",)
PAGE_TITLES = ("fattura",)
DELIVERY_LABELS = (r"indirizzo\s+di\s+consegna",)
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("articolo", "comma", "dpr", r"d\.p\.r", r"d\.\s?lgs", "decreto", "legge", "direttiva")
