"""Danish vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed. Folding keeps "æ" and "ø" (they have no decomposition) and turns "å" into "a"; phrases
spell "ø" as ``(?:ø|o)`` where text typed without it is common ("Belob").
"""

MONTH_LOCALES = ("da",)

_BELOB = r"bel(?:ø|o)b"

LABELS = {
    "invoice_number": [
        (
            r"\bfaktura\s*(?:nummer|nr)\b\.?|\bkreditnota\s*(?:nummer|nr)\b\.?|\bbilagsnr\b\.?",
            1.0,
            {"not_before": "other_document"},
        ),
    ],
    "issue_date": [(r"\bfaktura\s*dato\b|\budstedelsesdato\b|\budstedt\b", 1.0)],
    "due_date": [
        (
            r"\bforfaldsdato\b|\bforfalder\b|\bbetalingsfrist\b|\bsidste\s+rettidige\s+"
            r"betalings(?:dag|dato)\b|\bbetales\s+senest\b|\bsidste\s+betalingsdato\b",
            1.0,
        ),
    ],
    "gross_total": [
        (
            rf"\b(?:i\s+alt|total|totalt|{_BELOB}|sum)\s+(?:inkl\.?|inklusive|med)\s+moms\b"
            rf"|\bfaktura{_BELOB}\b|\btotal{_BELOB}\b|\bfaktura\s+i\s+alt\b",
            1.0,
        ),
    ],
    "net_total": [
        (
            rf"\b(?:i\s+alt|total|subtotal|{_BELOB}|sum)\s+(?:ekskl\.?|eksklusive|excl\.?|uden"
            rf"|f(?:ø|o)r)\s+moms\b|\bnetto{_BELOB}\b|\bnetto\b|\bmellemsum\b|\bvare{_BELOB}\b",
            1.0,
        ),
        (rf"\bmomsgrundlag\b|\bmomspligtigt\s+{_BELOB}\b", 0.8),
    ],
    "tax_total": [
        (
            rf"\bmoms\s+i\s+alt\b|\bmoms{_BELOB}\b|\bmoms\s+(?:total|{_BELOB})\b"
            r"|\btotal\s+moms\b",
            1.0,
        ),
        (r"\bmoms\b", 0.7),
    ],
    "amount_due": [
        (
            rf"\bat\s+betale\b|\b(?:{_BELOB}\s+)?til\s+betaling\b|\brest{_BELOB}\b"
            rf"|\bskyldigt\s+{_BELOB}\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\boprindelig\s+faktura(?:\s*{number})?\b\.?", 1.0),
        (r"\bvedr(?:ørende|\.)?\s+faktura(?:\s*{number})?\b\.?", 1.0),
        (r"\bkreditering\s+af\s+faktura(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bvaluta\b", 1.0)],
    "purchase_order": [
        (
            r"\bordre\s*(?:nummer|nr)\b\.?|\brekvisitions?(?:nr|nummer)\b\.?"
            r"|\b(?:jeres|deres)\s+(?:ordre|rekvisition)\w*\b|\bindk(?:ø|o)bsordre\b",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (
            r"\bcvr(?:[\s.-]*(?:nr|nummer))?\b\.?|\bse[\s.-]*nr\b\.?"
            r"|\bmoms[\s.-]*(?:nr|nummer)\b\.?",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("faktura", "kreditnota")
NUMBERED_TITLES = ("faktura", "kreditnota")
# "Kreditnota vedrørende faktura nr. 1043": the number of the invoice being credited.
OTHER_DOCUMENT = (r"oprindelig\w*", r"vedr(?:ørende|\.)?", "krediterer")
NUMBERED_NOT_INVOICE = (
    "kunde", "ordre", "vare", "konto", "reg", "cvr", "side", "kontrakt", "aftale", "rekvisition",
    "følgeseddel",
)
OTHER_DATE_CONTEXT = (
    "levering", "forfald", "ordre", "betaling", "periode", "udskrift", "gyldig",
)
DATE_WORDS = ("dato",)
DATE_PREPOSITIONS = (r"for\s+",)
OTHER_EVENTS = ("levering", "forfald", "ordre", "betaling")
DATE_CONNECTIVES = ("dateret",)
TAX_ABBREVIATIONS = ("moms",)
TOTAL_WORDS = (r"i\s+alt", "total", "totalt")
SUM_WORDS = ("sum",)
EXCLUDING = ("ekskl", "eksklusive", "uden", r"f(?:ø|o)r", "excl")
INCLUDING = ("inkl", "inklusive", "med")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("eksempel", r"for\s+eksempel", r"f\.\s?eks\.")
CREDIT_NOTE_TITLES = ("kreditnota", r"kredit\s+nota", "kreditfaktura")
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("selvfakturering",)
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = ("korrektionsfaktura",)
BUYER_CONTEXT = (
    "kunde", "kundens", r"k(?:ø|o)ber", "modtager", r"faktureres\s+til", "fakturaadresse",
    "deres", "jeres",
)
SELLER_CONTEXT = ("vores", "vor", r"s(?:æ|ae)lger", r"leverand(?:ø|o)r")
SELLER_LABELS = (
    r"s(?:æ|ae)lger", r"leverand(?:ø|o)r", "afsender", "udsteder", "fakturaudsteder",
)
BUYER_LABELS = (
    "kunde", r"k(?:ø|o)ber", r"faktureres\s+til", "fakturaadresse", "modtager", "bestiller",
    r"faktura\s+til",
)
TOTALS_ROWS = (
    r"i\s+alt", "subtotal", "total", "totalt", "mellemsum", rf"netto{_BELOB}", "momsspecifikation",
    r"at\s+betale", r"(?:(?:ø|o)re)?afrunding", r"moms\s+i\s+alt", r"ekskl\.?\s+moms",
)
ITEM_SECTIONS = ("rabatter", "betalingsbetingelser", r"bem(?:æ|ae)rkning(?:er)?")
CARRIED_FORWARD = ("transport", r"overf(?:ø|o)rt", r"overf(?:ø|o)res", r"fra\s+forrige\s+side")
GROSS_WORDS = ("brutto",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"tillæg\w*",)
CASH_DISCOUNTS = (r"kontantrabat\w*", r"betaling\s+inden")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:moms\s*%|momssats|moms|%\s*moms)(?!\w)",),
    "vat_amount": (rf"\b(?:moms{_BELOB}|moms\s+(?:kr|dkk|{_BELOB}))\b",),
    "gross_amount": (rf"\b(?:{_BELOB}|i\s+alt|total)\s+inkl\.?\s+moms\b",),
    "discount": (r"\brabat(?!\w)",),
    "unit": (r"^(?:enhed|enh\.?|stk\.?)$",),
    "quantity": (r"\b(?:antal|ant\.?|m(?:æ|ae)ngde|kvantum)(?!\w)",),
    "unit_price": (
        r"\b(?:enhedspris|stk\.?\s*pris|pris\s+pr\.?\s*(?:stk|enhed))\b|(?<!\w)a[\s-]?pris\b",
    ),
    "net_amount": (rf"\b(?:{_BELOB}|i\s+alt|total|sum|pris\s+i\s+alt|linjetotal)\b",),
    "unit_price_weak": (r"\bpris\b",),
    "description": (
        r"\b(?:beskrivelse|tekst|vare(?:tekst|beskrivelse)?|ydelse|produkt|specifikation)\b",
    ),
}
NOT_THE_ISSUE_DATE = ("levering", "forfald", "ordre")
PAID_WORDS = (
    "betalt", r"allerede\s+betalt", "indbetalt", "forudbetaling", r"aconto\w*", "depositum",
)
EARLIER_BALANCES = (r"tidligere\s+saldo", "restance")

LEGAL_FORMS = ("a/s", "aps", "i/s", "k/s", "p/s", "ivs", "amba", r"a\.m\.b\.a\.")
# "I/S Vestforbrænding", "A/S Storebælt": a partnership's or an older company's form may lead
LEADING_LEGAL_FORMS = ("a/s", "i/s", "k/s", "p/s")
NOT_NAME = (
    r"faktura\w*", "kreditnota", "cvr", "se-nr", "telefon", "tlf", "side", "moms", _BELOB, "dato",
    "bank", r"reg\.?\s*nr", "konto", "kontonr", "kundenr", "adresse",
)
NAME_LABELS = ("navn", "firma", "firmanavn")
NOT_IN_BLOCK = (
    r"cvr\b", "se-nr", r"tlf\b", "telefon", "adresse", r"kunde(?:nr|nummer)", r"att\b",
    r"ean\b", "reference",
)
PERSON_PREFIXES = ("att", "attention", "afdeling")
ACCOUNT_HOLDER_LABELS = ("kontohaver", "betalingsmodtager")
PAGE_TITLES = ("faktura", "kreditnota", "kvittering", "kopi", "original")
DELIVERY_LABELS = ("leveringsadresse", r"leveres\s+til", r"levering\s+til", "leveringssted")

# "kr" alone names the Danish, Norwegian or Swedish crown; beside a word only Danish invoices
# print it is the Danish one.
_DANISH = rf"\b(?:cvr|{_BELOB}\w*|ekskl|moms\s+i\s+alt|at\s+betale)\b"
CURRENCY_WORDS = {
    "DKK": (r"\bdanske\s+kroner\b", rf"(?s:\bkr\b(?=.*{_DANISH})|{_DANISH}(?=.*\bkr\b))"),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("loven", "direktiv")
