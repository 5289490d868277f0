"""Czech vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("cislo", never "Číslo"); "č." (číslo, the number sign) folds to "c.".
"""

# CLDR gives the genitive month names ("5. března 2024") and the stand-alone ones ("březen").
MONTH_LOCALES = ("cs",)

_DOCUMENT = r"(?:faktura|doklad|danovy\s+doklad|opravny\s+danovy\s+doklad|dobropis)"

LABELS = {
    "invoice_number": [
        (
            rf"\b{_DOCUMENT}(?:\s*[-–]\s*danovy\s+doklad)?\s+(?:c\.|cislo\b)"
            r"|\bcislo\s+(?:faktury|dokladu|dobropisu)\b",
            1.0,
            {"not_before": "other_document"},
        ),
    ],
    "issue_date": [
        (r"\bdatum\s+vystaveni\b|\bvystaveno(?:\s+dne)?\b|\bdatum\s+vyhotoveni\b", 1.0),
    ],
    "due_date": [
        (r"\bdatum\s+splatnosti\b|\bsplatnost\b|\bsplatno\s+(?:do|dne)\b|\bsplatna\s+dne\b", 1.0),
        (r"\b(?:uhradte|uhradit|zaplatte|zaplatit)\b[^\n]{0,40}?\bdo\b", 0.8),
    ],
    "gross_total": [
        (
            r"\b(?:celkem|cena\s+celkem|castka)\s+(?:s|vc\.?|vcetne)\s+dph\b"
            r"|\bcelkova\s+castka\b|\bcelkem\s+za\s+doklad\b|\bfakturovana\s+castka\b"
            r"|\bcastka\s+celkem\b",
            1.0,
        ),
    ],
    "net_total": [
        (
            r"\b(?:celkem|cena|soucet|castka)\s+bez\s+dph\b|\bzaklad\s+dane\b"
            r"|\bzaklad\s+celkem\b",
            1.0,
        ),
        (r"\bzaklad\b", 0.8),
    ],
    "tax_total": [
        (
            r"\bdph\s+celkem\b|\bcelkem\s+dph\b|\bcastka\s+dph\b|\bvyse\s+dph\b|\bdan\s+celkem\b"
            r"|\bsoucet\s+dph\b",
            1.0,
        ),
        (r"\bdph\b", 0.7),
    ],
    "amount_due": [
        (
            r"\b(?:celkem\s+|castka\s+)?k\s+(?:uhrade|zaplaceni)\b"
            r"|\bzbyva\s+(?:uhradit|zaplatit)\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bk\s+fakture(?:\s*(?:c|cislo)\b\.?)?", 1.0),
        (r"\b(?:puvodni|opravovany)\s+(?:danovy\s+)?doklad(?:\s*(?:c|cislo)\b\.?)?", 1.0),
    ],
    "currency": [(r"\bmena\b", 1.0)],
    "purchase_order": [
        (
            r"\bobjednavka\s+(?:c\.|cislo\b)|\bcislo\s+objednavky\b|\bvase\s+objednavka\b"
            r"|\bobjednavka\b",
            1.0,
        ),
    ],
    "seller_vat_id": [(r"\bdic(?:\s+dph)?\b|\bic\s+dph\b", 1.0)],
}

DOCUMENT_TITLES = ("faktura", r"danovy\s+doklad", "dobropis", r"zalohova\s+faktura")
NUMBERED_TITLES = ("faktura", r"danovy\s+doklad", "doklad", "dobropis")
# "Opravný daňový doklad k faktuře č. ...": the number of the invoice being corrected.
OTHER_DOCUMENT = (r"k\s+fakture", r"puvodni\w*", r"opravovan\w*")
NUMBERED_NOT_INVOICE = (
    "objednavk", "zakaznik", "odberatel", "dodaci", "ucet", "uctu", "smlouv", "strana", "zakazk",
)
OTHER_DATE_CONTEXT = (
    "splatnost", "zdanitelneho", "plneni", "duzp", "dodani", "objednav", "uhrad", "obdobi",
    "platnost",
)
DATE_WORDS = ("datum",)
OTHER_EVENTS = (
    "uskutecneni", "zdanitelneho", "splatnosti", "dodani", "objednavky", "uhrady", "plneni",
)
# "Faktura č. 2024017 ze dne 5. 3. 2024".
DATE_CONNECTIVES = (r"ze\s+dne", "dne")
TAX_ABBREVIATIONS = ("dph",)
TOTAL_WORDS = ("celkem",)
SUM_WORDS = ("soucet",)
EXCLUDING = ("bez",)
INCLUDING = ("vc", "vcetne", r"\bs")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("priklad", r"napr\.", "napriklad")
CREDIT_NOTE_TITLES = ("dobropis", r"opravny\s+danovy\s+doklad")
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("samofakturace",)
BUYER_CONTEXT = (
    "odberatel", "odberatele", "kupujici", "prijemce", "zakaznik", r"fakturacni\s+adresa",
)
SELLER_CONTEXT = ("dodavatel", "dodavatele", "prodavajici")
SELLER_LABELS = ("dodavatel", "prodavajici", "prodejce", "poskytovatel", "vystavovatel")
BUYER_LABELS = (
    "odberatel", "kupujici", r"prijemce(?:\s+faktury)?", "zakaznik", "objednatel",
    r"fakturacni\s+adresa",
)
TOTALS_ROWS = (
    "celkem", "soucet", "mezisoucet", r"zaklad\s+dane", "rekapitulace", r"k\s+uhrade",
    r"sazba\s+dph", r"zaokrouhleni",
)
ITEM_SECTIONS = ("slevy", r"platebni\s+podminky", r"poznamk[ay]")
CARRIED_FORWARD = ("prevod", "prenos", "prevedeno", r"z\s+prevodu")
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"prirazk[ay]",)
CASH_DISCOUNTS = (r"skonto\w*", r"platb\w*\s+predem", r"predcasn\w*\s+platb\w*")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:sazba(?:\s+dph)?|dph\s*%|%\s*dph|dph)(?!\w)",),
    "vat_amount": (r"\b(?:castka\s+dph|vyse\s+dph|dph\s+(?:kc|czk|eur|celkem))\b",),
    "gross_amount": (r"\b(?:celkem|cena\s+celkem|castka)\s+(?:s|vc\.?|vcetne)\s+dph\b",),
    "discount": (r"\bsleva\b",),
    "unit": (r"^(?:mj|m\.\s?j\.|jedn\.?|jednotka)$",),
    "quantity": (r"\b(?:mnozstvi|pocet)\b|\bmn\.(?!\w)",),
    "unit_price": (
        r"\b(?:cena\s+za\s+(?:mj|jednotku)|jedn\.\s*cena|jednotkova\s+cena|cena/mj)\b",
    ),
    "net_amount": (
        r"\b(?:celkem(?:\s+bez\s+dph)?|cena\s+celkem|zaklad(?:\s+dane)?|castka"
        r"|cena\s+bez\s+dph)\b",
    ),
    "unit_price_weak": (r"\bcena\b",),
    "description": (
        r"\b(?:oznaceni(?:\s+dodavky)?|popis|nazev(?:\s+polozky)?|polozka|predmet\s+plneni)\b",
    ),
}
NOT_THE_ISSUE_DATE = ("splatnost", "zdanitelneho", "duzp", "dodani")
PAID_WORDS = ("uhrazeno", "zaplaceno", r"zaloh[ay]", r"odecet\s+zalohy", r"zaplacena\s+zaloha")
EARLIER_BALANCES = ("nedoplatek", r"predchozi\s+zustatek")

LEGAL_FORMS = (
    r"s\.\s?r\.\s?o\.?", r"spol\.\s*s\s*r\.\s?o\.?", "sro", r"a\.\s?s\.", r"v\.\s?o\.\s?s\.",
    r"k\.\s?s\.", r"z\.\s?s\.", r"o\.\s?p\.\s?s\.",
)
NOT_NAME = (
    r"faktur\w*", r"danovy\s+doklad", "dic", r"ic", "ico", "telefon", "strana", "datum", "ucet",
    r"cislo\s+uctu", "banka", "adresa", r"spisova\s+znacka", r"obchodni\s+rejstrik", "castka",
    "celkem", r"zapsan\w*",
)
NAME_LABELS = ("nazev", r"obchodni\s+firma", "firma", "jmeno")
NOT_IN_BLOCK = (
    r"dic\b", r"ic\b", r"ico\b", "telefon", "adresa", r"cislo\s+zakaznika", r"zakaznicke\s+cislo",
    r"cislo\s+uctu", "banka",
)
PERSON_PREFIXES = (r"k\s+rukam", r"kontaktni\s+osoba", "oddeleni")
ACCOUNT_HOLDER_LABELS = (r"majitel\s+uctu",)
PAGE_TITLES = ("faktura", r"danovy\s+doklad", "dobropis", "doklad", "kopie")
DELIVERY_LABELS = (
    r"konecny\s+prijemce", r"dodaci\s+adresa", r"misto\s+dodani", r"adresa\s+dodani",
)

CURRENCY_WORDS = {
    "CZK": (r"\bkorun\w*\b", r"\d\s*kc\b"),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("odst", "zakona", "smernice")
