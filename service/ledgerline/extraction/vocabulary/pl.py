"""Polish vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("wartosc", never "Wartość"). Folding keeps "ł" (it has no decomposition), so phrases
spell it ``[lł]``: that also reads text typed without Polish letters ("Termin platnosci").
"""

# CLDR gives the genitive month names ("5 marca 2024") and the stand-alone ones ("marzec").
MONTH_LOCALES = ("pl",)

LABELS = {
    "invoice_number": [
        (
            r"\bfaktura\s+(?:vat\s+)?(?:(?:korygujaca|korekta|proforma|zaliczkowa|koncowa)\s+)?"
            r"(?:nr|numer)\b\.?|\brachunek\s+(?:nr|numer)\b\.?|\bkorekta\s+(?:nr|numer)\b\.?",
            1.0,
            {"not_before": "other_document"},
        ),
        (r"\b(?:nr|numer)\s+faktury(?:\s+vat)?\b|\b(?:nr|numer)\s+korekty\b", 1.0),
        (r"\b(?:nr|numer)\s+dokumentu\b", 0.6),
    ],
    "issue_date": [
        (
            r"\bdata\s+wystawienia(?:\s+faktury)?\b|\bdata\s+faktury\b"
            r"|\bwystawion[aoy]\s+(?:dnia|w\s+dniu)\b",
            1.0,
        ),
    ],
    "due_date": [
        (
            r"\btermin\s+(?:p[lł]atnosci|zap[lł]aty)\b|\bdata\s+p[lł]atnosci\b"
            r"|\b(?:p[lł]atne|p[lł]atnosc|zap[lł]ata|p[lł]atny)\s+do\b",
            1.0,
        ),
        (r"\b(?:wp[lł]at\w*|zap[lł]at\w*|p[lł]atnosc\w*)\b[^\n]{0,40}?\bdo\s+dnia\b", 0.8),
    ],
    "gross_total": [
        (
            r"\b(?:razem|suma|kwota|wartosc|[lł]acznie|ogo[lł]em)\s+brutto\b|\bbrutto\b"
            r"|\bwartosc\s+faktury\b|\bkwota\s+(?:naleznosci\s+)?ogo[lł]em\b",
            1.0,
        ),
    ],
    "net_total": [
        (r"\b(?:razem|suma|kwota|wartosc|[lł]acznie|ogo[lł]em)\s+netto\b|\bnetto\b", 1.0),
        (r"\bpodstawa\s+opodatkowania\b", 0.8),
    ],
    "tax_total": [
        (
            r"\bkwota\s+(?:podatku(?:\s+vat)?|vat)\b|\b(?:razem|suma|wartosc|[lł]acznie)\s+vat\b"
            r"|\bpodatek\s+vat\b|\bkwota\s+podatku\b",
            1.0,
        ),
        (r"\bpodatek\b", 0.7),
    ],
    "amount_due": [
        (
            r"\b(?:(?:razem|kwota|pozosta[lł]o|ogo[lł]em)\s+)?do\s+zap[lł]aty\b"
            r"|\bdo\s+zap[lł]acenia\b|\bnaleznosc\b|\bkwota\s+naleznosci\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bfaktur[ay]\s+korygowan\w*(?:\s*{number})?\b\.?", 1.0),
        (r"\bdotyczy\s+faktury(?:\s*{number})?\b\.?", 1.0),
        (r"\bkorekta\s+do\s+faktury(?:\s*{number})?\b\.?", 1.0),
        (r"\bfaktura\s+pierwotna(?:\s*{number})?\b\.?", 1.0),
        (r"\bnumer\s+faktury\s+korygowanej\b", 1.0),
    ],
    "currency": [(r"\bwaluta\b", 1.0)],
    "purchase_order": [
        (
            r"\b(?:nr|numer)\s+zamowienia\b|\bzamowienie\s+(?:nr|numer)\b\.?"
            r"|\b(?:nr|numer)\s+zlecenia\b|\bzamowienie\b",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (r"\b(?:nr\s+)?nip(?:\s+ue)?\b|\bvat\s+ue\b|\bnip/vat\b|\bnr\s+vat\b", 1.0),
    ],
}

DOCUMENT_TITLES = ("faktura", r"faktura\s+vat", r"faktura\s+korygujaca", "rachunek")
NUMBERED_TITLES = ("faktura", r"faktura\s+vat", "korekta", "rachunek")
# "Korekta do faktury nr ...": the number of the invoice being corrected.
OTHER_DOCUMENT = (r"korygowan\w*", r"pierwotn\w*", "dotyczy", r"do\s+faktury")
NUMBERED_NOT_INVOICE = (
    "zamowieni", "klient", "kontrahent", "kont", "zleceni", "umow", "wz", "krs", "regon", "bdo",
    "lokal", "strona", "dowod", "rachunk",
)
OTHER_DATE_CONTEXT = (
    "sprzedaz", "dostaw", "wykonani", "zamowieni", "termin", r"p[lł]atnos", r"zap[lł]at", "okres",
    "umow", "wazn",
)
DATE_WORDS = ("data",)
OTHER_EVENTS = (
    "sprzedazy", "dostawy", "wykonania", "zamowienia", r"p[lł]atnosci", r"zap[lł]aty",
    "otrzymania", "dokonania",
)
# "Faktura VAT nr FV/12/2024 z dnia 05.03.2024".
DATE_CONNECTIVES = (r"z\s+dnia", "dnia")
TAX_ABBREVIATIONS = ("vat",)
TOTAL_WORDS = ("razem", r"ogo[lł]em", r"[lł]acznie")
SUM_WORDS = ("suma",)
EXCLUDING = ("bez",)
INCLUDING = (r"\bz", r"wraz\s+z", r"[lł]acznie\s+z")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("przyklad", r"na\s+przyklad", r"np\.")
CREDIT_NOTE_TITLES = (
    r"faktura\s+(?:vat\s+)?korygujaca", r"korekta\s+faktury", r"nota\s+uznaniowa",
    r"faktura\s+korekta",
)
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("samofakturowanie",)
BUYER_CONTEXT = (
    r"nabywc\w*", "odbiorca", "odbiorcy", r"kupujac\w*", r"p[lł]atnik\w*", "klient", "klienta",
    r"zamawiajac\w*",
)
SELLER_CONTEXT = (r"sprzedawc\w*", "wystawca", r"dostawc\w*", r"sprzedajac\w*")
SELLER_LABELS = (
    "sprzedawca", r"sprzedajac\w*", "wystawca", "dostawca", r"us[lł]ugodawca", "zleceniobiorca",
)
BUYER_LABELS = (
    "nabywca", r"kupujac\w*", r"p[lł]atnik", r"zamawiajac\w*", r"us[lł]ugobiorca",
    "zleceniodawca", r"odbiorca\s+faktury",
)
TOTALS_ROWS = (
    "razem", "suma", r"ogo[lł]em", r"[lł]acznie", "podsumowanie", r"w\s+tym", r"do\s+zap[lł]aty",
    "zestawienie", r"stawka\s+vat",
)
ITEM_SECTIONS = ("rabaty", "uwagi", r"sposob\s+p[lł]atnosci", r"forma\s+p[lł]atnosci")
CARRIED_FORWARD = (r"do\s+przeniesienia", r"z\s+przeniesienia", "przeniesienie")
GROSS_WORDS = ("brutto",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"narzut\w*",)
CASH_DISCOUNTS = (r"skonto\w*", r"wczesniejsz\w*\s+p\w*atno\w*", r"przedterminow\w*")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:stawka(?:\s+(?:vat|podatku))?|st\.\s*vat|vat\s*%|%\s*vat)(?!\w)",),
    "vat_amount": (r"\b(?:kwota\s+(?:vat|podatku)|wartosc\s+vat|podatek\s+vat)\b",),
    "gross_amount": (r"\b(?:wartosc|kwota|razem|suma)\s+brutto\b|^brutto$",),
    "discount": (r"\b(?:rabat|upust)(?!\w)",),
    "unit": (r"^(?:j\.?\s?m\.?|jedn\.?|jednostka|jm|miara)$",),
    "quantity": (r"\b(?:ilosc|liczba)\b",),
    "unit_price": (r"\bcena(?:\s+jedn(?:ostkowa|\.)?)?(?:\s+(?:netto|brutto))?\b",),
    "net_amount": (r"\b(?:wartosc(?:\s+netto)?|kwota\s+netto|netto)\b",),
    "unit_price_weak": (),
    "description": (
        r"\b(?:nazwa(?:\s+towaru(?:\s+(?:lub|i)\s+us[lł]ugi)?)?|opis|towar(?:/us[lł]uga)?"
        r"|us[lł]uga|przedmiot)\b",
    ),
}
NOT_THE_ISSUE_DATE = ("sprzedazy", "dostawy", r"p[lł]atnosci", "termin")
PAID_WORDS = (
    r"zap[lł]acono", r"wp[lł]acono", r"zaliczk\w*", r"przedp[lł]at\w*", r"op[lł]acono",
)
EARLIER_BALANCES = (r"saldo\s+poprzednie", r"zaleg[lł]osc\w*")

LEGAL_FORMS = (
    r"sp\.?\s?z\s?o\.?\s?o\.?", r"z\s?o\.\s?o\.", r"s\.\s?a\.", r"sp\.\s?j\.", r"sp\.\s?k\.",
    r"sp\.\s?p\.", r"s\.\s?c\.", r"spo[lł]ka\s+(?:akcyjna|jawna|komandytowa|cywilna|partnerska)",
    r"spo[lł]ka\s+z\s+ograniczon\w+\s+odpowiedzialno\w+",
)
NOT_NAME = (
    r"faktur\w*", "nip", "regon", "krs", "bdo", "konto", "rachunek", "rachunku", "telefon",
    "strona",
    "data", "adres", "kwota", "razem", r"zap[lł]at\w*", r"kapita[lł]", r"sad\s+rejonowy",
    r"orygina[lł]", "kopia", "pesel",
)
NAME_LABELS = ("nazwa", r"nazwa\s+firmy", "firma")
NOT_IN_BLOCK = (
    "nip", "regon", "krs", "bdo", "pesel", "telefon", "adres", r"nr\s+klienta", r"kod\s+klienta",
    r"nr\s+(?:konta|rachunku)", "konto",
)
PERSON_PREFIXES = (r"do\s+rak", r"osoba\s+kontaktowa", r"dzia[lł]")
ACCOUNT_HOLDER_LABELS = (
    r"w[lł]asciciel\s+rachunku", r"posiadacz\s+rachunku", r"odbiorca\s+przelewu",
)
PAGE_TITLES = (
    "faktura", r"faktura\s+vat", r"faktura\s+korygujaca", "rachunek", r"orygina[lł]", "kopia",
    "duplikat", "paragon",
)
DELIVERY_LABELS = (r"adres\s+dostawy", r"miejsce\s+dostawy", "odbiorca", r"adres\s+wysy[lł]ki")

CURRENCY_WORDS = {
    "PLN": (r"\bz[lł]otych\b", r"\d\s*z[lł]\b"),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("ustawy", "dyrektywy")
