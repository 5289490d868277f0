"""Swedish vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("forfallodatum", never "Förfallodatum"; "å", "ä" and "ö" fold to "a", "a", "o").
"""

MONTH_LOCALES = ("sv",)

LABELS = {
    "invoice_number": [
        (
            r"\bfaktura\s*(?:nummer|nr)\b\.?|\bfakt\.?\s*nr\b\.?"
            r"|\bkreditfaktura\s*(?:nummer|nr)\b\.?",
            1.0,
            {"not_before": "other_document"},
        ),
    ],
    "issue_date": [(r"\bfaktura\s*datum\b|\butstalld\b|\bfakturerad\b", 1.0)],
    "due_date": [
        (
            r"\bforfallo(?:dag(?:en)?|datum)\b|\bforfaller(?:\s+till\s+betalning)?\b"
            r"|\bsista\s+betalnings(?:dag|datum)\b|\bbetalas\s+senast\b|\bbetala\s+senast\b",
            1.0,
        ),
    ],
    "gross_total": [
        (
            r"\b(?:summa|totalt|total|belopp)\s+(?:inkl\.?|inklusive|med)\s+moms\b"
            r"|\btotalbelopp\b|\bfakturabelopp\b|\bfaktura\s+totalt\b|\bsumma\s+totalt\b"
            r"|\b(?:fakturans\s+)?totala\s+belopp(?:et)?\b",
            1.0,
        ),
    ],
    "net_total": [
        (
            r"\b(?:summa|totalt|total|belopp|netto)\s+(?:exkl\.?|exklusive|utan|fore)\s+moms\b"
            r"|\bnetto(?:belopp|summa)?\b|\bdelsumma\b|\bsumma\s+netto\b"
            r"|\bmomspliktigt\s+belopp\b|^\s*exkl\.?\s+moms\b",
            1.0,
        ),
        (r"\b(?:moms)?underlag\b", 0.8),
    ],
    "tax_total": [
        (
            r"\bmoms(?:belopp)?\s+(?:totalt|summa)\b|\b(?:summa|total|totalt)\s+moms\b"
            r"|\bmomsbelopp\b|\bmoms\s+kr\b",
            1.0,
        ),
        (r"\bmoms\b", 0.7),
    ],
    "amount_due": [
        (
            r"\b(?:(?:summa|belopp|kvar)\s+)?att\s+betala\b|\bni\s+ska\s+betala\b"
            r"|\batt\s+erlagga\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bursprunglig\s+faktura(?:\s*{number})?\b\.?", 1.0),
        (r"\bavser\s+faktura(?:\s*{number})?\b\.?", 1.0),
        (r"\bkreditering\s+av\s+faktura(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bvaluta\b", 1.0)],
    "purchase_order": [
        (
            r"\bordernummer\b|\bordernr\b\.?|\bbestallningsnummer\b|\bbestallningsnr\b\.?"
            r"|\bert\s+ordernr\b\.?|\ber\s+bestallning\b|\binkopsorder\b",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (
            r"\bmomsreg(?:istrerings)?\.?\s*(?:nr|nummer)\b\.?|\bmoms\s*nr\b\.?"
            r"|\bvat[\s-]*nr\b\.?",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("faktura", "kreditfaktura", "kreditnota")
NUMBERED_TITLES = ("faktura", "kreditfaktura")
# "Kreditfaktura avser faktura nr 1043": the number of the invoice being credited.
OTHER_DOCUMENT = (r"ursprunglig\w*", "avser", r"krediterar")
NUMBERED_NOT_INVOICE = (
    "kund", "order", "artikel", "art", "org", "momsreg", "konto", "bankgiro", "plusgiro", "sida",
    "kontrakt", "avtal", "referens", "foljesedel", "leverantor",
)
OTHER_DATE_CONTEXT = (
    "leverans", "forfall", "order", "bestallning", "betalning", "period", "utskrift", "giltig",
)
DATE_WORDS = ("datum",)
OTHER_EVENTS = ("leverans", "forfall", "order", "betalning", "utskrift")
DATE_CONNECTIVES = ("daterad",)
TAX_ABBREVIATIONS = ("moms",)
TOTAL_WORDS = ("totalt",)
SUM_WORDS = ("summa",)
EXCLUDING = ("exkl", "exklusive", "utan", "fore")
INCLUDING = ("inkl", "inklusive", "med")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("exempel", r"till\s+exempel", r"t\.\s?ex\.")
CREDIT_NOTE_TITLES = ("kreditfaktura", "kreditnota")
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("sjalvfakturering",)
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = ("korrigeringsfaktura",)
BUYER_CONTEXT = (
    "kund", "kunden", "kopare", "mottagare", "fakturaadress", "faktureras", "ert", "er",
)
SELLER_CONTEXT = ("vart", "saljare", "leverantor")
SELLER_LABELS = ("saljare", "leverantor", "avsandare", "fakturautstallare")
BUYER_LABELS = (
    "kund", "kopare", "fakturaadress", "faktureringsadress", r"faktura\s*mottagare", "mottagare",
    "bestallare",
)
TOTALS_ROWS = (
    "summa", "totalt", "total", "delsumma", "nettobelopp", "momsspecifikation", r"att\s+betala",
    r"(?:ores)?avrundning", r"exkl\.?\s+moms",
)
ITEM_SECTIONS = ("rabatter", "betalningsvillkor", "villkor", "meddelande", "anmarkning")
CARRIED_FORWARD = ("transport", r"att\s+transportera", "overforing", r"overfort")
GROSS_WORDS = ("brutto",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"tillagg\w*",)
CASH_DISCOUNTS = (r"kassarabatt\w*", r"betalning\s+inom")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:moms\s*%|momssats|moms|%\s*moms)(?!\w)",),
    "vat_amount": (r"\b(?:momsbelopp|moms\s+(?:kr|sek|belopp))\b",),
    "gross_amount": (r"\b(?:belopp|summa|totalt)\s+inkl\.?\s+moms\b",),
    "discount": (r"\b(?:rabatt|rab\.?)(?!\w)",),
    "unit": (r"^(?:enhet|enh\.?|st)$",),
    "quantity": (r"\b(?:antal|ant\.?|kvantitet|mangd)(?!\w)",),
    "unit_price": (r"(?<!\w)a[\s-]?pris\b|\b(?:styckpris|enhetspris|pris\s*/\s*st)\b",),
    "net_amount": (r"\b(?:belopp|summa|totalt|netto|radsumma|totalbelopp)\b",),
    "unit_price_weak": (r"\bpris\b",),
    "description": (
        r"\b(?:beskrivning|benamning|artikel|specifikation|text|vara|tjanst|produkt)\b",
    ),
}
NOT_THE_ISSUE_DATE = ("leverans", "forfall", "order")
PAID_WORDS = (
    "betalt", r"redan\s+betalt", "inbetalt", r"forskott\w*", "delbetalning",
    r"erhallen\s+betalning",
)
EARLIER_BALANCES = (r"tidigare\s+(?:saldo|skuld)",)

# "AB", "HB" and "KB" are also syllables of other languages' words ("ab Werk"): only after a name.
LEGAL_FORMS = (
    r"(?<=[^\W\d]\s)(?:ab|hb|kb)(?=\s*(?:\(publ\))?\s*(?:$|,))", r"ek\.\s?for\.?",
    r"aktiebolag(?:et)?", "handelsbolag",
)
# "Aktiebolaget Electrolux": the form written out may lead the name
LEADING_LEGAL_FORMS = (r"aktiebolag(?:et)?", "handelsbolag")
NOT_NAME = (
    r"faktura\w*", "momsreg", r"org\.?\s*nr", "organisationsnummer", "bankgiro", "plusgiro",
    "telefon", "sida", "moms", r"f-skatt\w*", r"styrelsens\s+sate", "belopp", "summa", "datum",
    "kundnummer", "adress", "e-post",
)
NAME_LABELS = ("namn", "foretag", "firma")
NOT_IN_BLOCK = (
    r"org\.?\s*nr", "momsreg", "telefon", "e-post", "adress", r"kund(?:nr|nummer)", "referens",
    r"(?:er|var)\s+referens",
)
PERSON_PREFIXES = ("att", r"(?:er|var)\s+referens", "avdelning")
ACCOUNT_HOLDER_LABELS = ("betalningsmottagare", "kontohavare")
PAGE_TITLES = ("faktura", "kreditfaktura", "kvitto", "kopia", "original")
DELIVERY_LABELS = ("leveransadress", r"leverans\s+till", r"levereras\s+till", "godsmottagare")

# "kr" alone names the Swedish, Danish or Norwegian crown; beside a word only Swedish invoices
# print it is the Swedish one.
_SWEDISH = (
    r"\b(?:bankgiro|plusgiro|momsreg\w*|oresavrundning|f-skatt\w*|belopp\w*|exkl"
    r"|att\s+betala)\b"
)
CURRENCY_WORDS = {
    "SEK": (
        r"\bsvenska\s+kronor\b", r"\bkronor\b",
        rf"(?s:\bkr\b(?=.*{_SWEDISH})|{_SWEDISH}(?=.*\bkr\b))",
    ),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("kap", "lagen", "direktiv")
