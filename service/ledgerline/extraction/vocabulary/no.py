"""Norwegian vocabulary, Bokmål with the common Nynorsk spellings (data only; see the package
docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed. Folding keeps "æ" and "ø" (they have no decomposition) and turns "å" into "a" ("å
betale" reads "a betale"); phrases spell "ø" as ``(?:ø|o)`` where text typed without it is common.
"""

MONTH_LOCALES = ("nb", "nn")

_BELOP = r"bel(?:ø|o)p"

LABELS = {
    "invoice_number": [
        (
            r"\bfaktura\s*(?:nummer|nr)\b\.?|\bkreditnota\s*(?:nummer|nr)\b\.?",
            1.0,
            {"not_before": "other_document"},
        ),
    ],
    "issue_date": [(r"\bfaktura\s*dato\b|\butstedelsesdato\b|\butstedt\b", 1.0)],
    "due_date": [
        (
            r"\bforfall(?:sdato|sdag)?\b|\bforfaller\b|\bbetalingsfrist\b"
            r"|\bbetales\s+(?:innen|senest)\b|\bsiste\s+betalingsdato\b",
            1.0,
        ),
    ],
    "gross_total": [
        (
            rf"\b(?:sum|totalt|total|{_BELOP})\s+(?:inkl\.?|inklusive|med)\s+mva\b"
            rf"|\bfaktura{_BELOP}\b|\btotal{_BELOP}\b|\bsum\s+totalt\b|\bbrutto\b",
            1.0,
        ),
    ],
    "net_total": [
        (
            rf"\b(?:sum|totalt|total|{_BELOP}|netto)\s+(?:eks\.?|ekskl\.?|eksklusive|uten|utan"
            rf"|f(?:ø|o)r)\s+mva\b|\bnetto{_BELOP}\b|\bnetto\b|\bdelsum\b|\bsubtotal\b",
            1.0,
        ),
        (rf"\bmva-?grunnlag\b|\bgrunnlag\b|\bavgiftspliktig\s+{_BELOP}\b", 0.8),
    ],
    "tax_total": [
        (
            rf"\bmva[\s-]*{_BELOP}\b|\b(?:sum|total|totalt)\s+mva\b|\bmva\s+totalt\b"
            r"|\bberegnet\s+mva\b",
            1.0,
        ),
        (r"\bmva\b|\bmerverdiavgift\b|\bmeirverdiavgift\b", 0.7),
    ],
    "amount_due": [
        (
            rf"\b(?:{_BELOP}\s+)?a\s+betale\b|\btil\s+betaling\b|\brest{_BELOP}\b"
            rf"|\bskyldig\s+{_BELOP}\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bopprinnelig\s+faktura(?:\s*{number})?\b\.?", 1.0),
        (r"\bgjelder\s+faktura(?:\s*{number})?\b\.?", 1.0),
        (r"\bkreditering\s+av\s+faktura(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bvaluta\b", 1.0)],
    "purchase_order": [
        (
            r"\bordre\s*(?:nummer|nr)\b\.?|\bbestillings?(?:nr|nummer)\b\.?"
            r"|\bderes\s+(?:ordre|bestilling)\w*\b|\binnkj(?:ø|o)psordre\b",
            1.0,
        ),
    ],
    # A Norwegian VAT registration is printed as the organisation number followed by "MVA".
    "seller_vat_id": [
        (
            r"\borg(?:anisasjons)?\.?\s*(?:nr|nummer)\b\.?|\bforetaksregisteret\b"
            r"|\bmva[\s.-]*(?:nr|nummer)\b\.?",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("faktura", "kreditnota")
NUMBERED_TITLES = ("faktura", "kreditnota")
# "Kreditnota gjelder faktura nr. 1043": the number of the invoice being credited.
OTHER_DOCUMENT = (r"opprinnelig\w*", r"vedr(?:ørende|\.)?", "krediterer", "gjelder")
NUMBERED_NOT_INVOICE = (
    "kunde", "ordre", "vare", "konto", "org", "side", "kontrakt", "avtale", "bestilling",
    "pakkseddel", "kid",
)
OTHER_DATE_CONTEXT = (
    "levering", "forfall", "ordre", "bestilling", "betaling", "periode", "utskrift", "gyldig",
)
DATE_WORDS = ("dato",)
OTHER_EVENTS = ("levering", "forfall", "ordre", "betaling")
DATE_CONNECTIVES = ("datert",)
TAX_ABBREVIATIONS = ("mva",)
TOTAL_WORDS = ("totalt", "total")
SUM_WORDS = ("sum",)
EXCLUDING = ("eks", "ekskl", "eksklusive", "uten", r"f(?:ø|o)r")
INCLUDING = ("inkl", "inklusive", "med")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("eksempel", r"for\s+eksempel", r"f\.\s?eks\.")
CREDIT_NOTE_TITLES = ("kreditnota", "kreditfaktura")
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("selvfakturering",)
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = ("korreksjonsfaktura",)
BUYER_CONTEXT = (
    "kunde", "kundens", r"kj(?:ø|o)per", "mottaker", "fakturamottaker", r"faktura\s+til", "deres",
)
SELLER_CONTEXT = ("vart", "selger", r"leverand(?:ø|o)r")
SELLER_LABELS = ("selger", r"leverand(?:ø|o)r", "avsender", "fakturautsteder", "utsteder")
BUYER_LABELS = (
    "kunde", r"kj(?:ø|o)per", "fakturamottaker", r"faktura\s+til", "mottaker", "bestiller",
    "fakturaadresse",
)
TOTALS_ROWS = (
    "sum", "totalt", "total", "delsum", "subtotal", rf"netto{_BELOP}", r"mva-?spesifikasjon",
    r"spesifikasjon\s+av\s+mva", r"a\s+betale", r"(?:(?:ø|o)re)?avrunding", r"mva-?grunnlag",
    "grunnlag",
)
ITEM_SECTIONS = ("rabatter", "betalingsbetingelser", r"merknad(?:er)?", "kommentar")
CARRIED_FORWARD = ("transport", r"overf(?:ø|o)rt", r"overf(?:ø|o)res", r"fra\s+forrige\s+side")
GROSS_WORDS = ("brutto",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"tillegg\w*",)
CASH_DISCOUNTS = (r"kontantrabatt\w*", r"betaling\s+innen")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:mva\s*%|mva-?sats|sats|mva|%\s*mva)(?!\w)",),
    "vat_amount": (rf"\b(?:mva-?{_BELOP}|mva\s+(?:kr|nok|{_BELOP}))\b",),
    "gross_amount": (rf"\b(?:{_BELOP}|sum|totalt)\s+inkl\.?\s+mva\b",),
    "discount": (r"\b(?:rabatt|rab\.?)(?!\w)",),
    "unit": (r"^(?:enhet|enh\.?|stk\.?)$",),
    "quantity": (r"\b(?:antall|ant\.?|mengde|kvantum)(?!\w)",),
    "unit_price": (
        r"\b(?:enhetspris|stk\.?\s*pris|pris\s+pr\.?\s*(?:stk|enhet))\b|(?<!\w)a[\s-]?pris\b",
    ),
    "net_amount": (rf"\b(?:{_BELOP}|sum|totalt|netto|linjesum)\b",),
    "unit_price_weak": (r"\bpris\b",),
    "description": (
        r"\b(?:beskrivelse|tekst|vare(?:tekst|beskrivelse)?|tjeneste|vare/tjeneste|produkt"
        r"|spesifikasjon)\b",
    ),
}
NOT_THE_ISSUE_DATE = ("levering", "forfall", "ordre")
PAID_WORDS = (
    "betalt", "innbetalt", r"allerede\s+betalt", r"forskudd\w*", r"a\s+konto",
)
EARLIER_BALANCES = (r"tidligere\s+saldo", "restanse")

# "AS", "DA" and "SA" are also words of other languages ("such as"): only after a name.
LEGAL_FORMS = (
    r"(?<=[^\W\d]\s)(?:as|asa|ans|da|enk|nuf|ba)(?=\s*(?:$|,))", "aksjeselskap",
)
# "Aksjeselskap Vinmonopolet": the form written out may lead the name
LEADING_LEGAL_FORMS = ("aksjeselskap",)
NOT_NAME = (
    r"faktura\w*", "kreditnota", r"org\.?\s*nr", "organisasjonsnummer", "foretaksregisteret", "mva",
    "telefon", "tlf", "side", _BELOP, "dato", "bank", "konto", "kontonr", "kid", "adresse",
    "e-post",
)
NAME_LABELS = ("navn", "firma", "firmanavn")
NOT_IN_BLOCK = (
    r"org\.?\s*nr", r"mva\b", r"tlf\b", "telefon", "e-post", "adresse", r"kunde(?:nr|nummer)",
    r"(?:deres|var)\s+ref", "referanse",
)
PERSON_PREFIXES = ("att", "v/", "avdeling")
ACCOUNT_HOLDER_LABELS = ("kontoinnehaver", "betalingsmottaker")
PAGE_TITLES = ("faktura", "kreditnota", "kvittering", "kopi", "original")
DELIVERY_LABELS = ("leveringsadresse", r"leveres\s+til", r"levering\s+til", "leveringssted")

# "kr" alone names the Norwegian, Danish or Swedish crown; on an invoice that speaks of "MVA"
# it is the Norwegian one.
CURRENCY_WORDS = {
    "NOK": (r"\bnorske\s+kroner\b", r"(?s:\bkr\b(?=.*\bmva\b)|\bmva\b(?=.*\bkr\b))"),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("ledd", "loven", "direktiv")
