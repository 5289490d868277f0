"""Finnish vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("erapaiva", never "Eräpäivä"; "ä" and "ö" fold to "a" and "o").
"""

# CLDR gives the partitive month names ("5. maaliskuuta 2024") and the stand-alone ones.
MONTH_LOCALES = ("fi",)

LABELS = {
    "invoice_number": [
        (
            r"\blaskun\s+(?:numero|nro|nr|n:o)\b\.?|\blaskunumero\b|\blasku\s*(?:nro|nr|n:o)\b\.?"
            r"|\bhyvityslaskun\s+(?:numero|nro)\b\.?|\bhyvityslasku\s*(?:nro|nr)\b\.?",
            1.0,
            {"not_before": "other_document"},
        ),
    ],
    "issue_date": [
        (
            r"\blaskun\s+(?:paivays|paivamaara|pvm)\b|\blaskutuspaiva(?:maara)?\b"
            r"|\blaskupaiva\b",
            1.0,
        ),
    ],
    "due_date": [
        (
            r"\berapaiva\b|\beraantymispaiva\b|\bmaksettava\s+viimeistaan\b"
            r"|\bviimeinen\s+maksupaiva\b|\bmaksupaiva\b",
            1.0,
        ),
        (r"\bviimeistaan\b", 0.8),
    ],
    "gross_total": [
        (
            r"\byhteensa\s+(?:sis\.?|sisaltaen)\s+alv\b"
            r"|\bverollinen(?:\s+(?:summa|hinta|yhteensa))?\b"
            r"|\blaskun\s+(?:summa|loppusumma)\b|\bloppusumma\b|\bkokonaissumma\b",
            1.0,
        ),
    ],
    "net_total": [
        (
            r"\bveroton(?:\s+(?:summa|hinta|yhteensa|osuus))?\b|\byhteensa\s+ilman\s+alv\b"
            r"|\barvonlisaveroton(?:\s+(?:summa|hinta))?\b|\bvalisumma\b|\bnetto\b",
            1.0,
        ),
        (r"\bveron\s+peruste\b|\bveropohja\b", 0.8),
    ],
    "tax_total": [
        (
            r"\balv[\s-]*(?:maara|yhteensa|osuus|summa)\b|\barvonlisavero\s+yhteensa\b"
            r"|\bvero\s+yhteensa\b|\bveron\s+maara\b",
            1.0,
        ),
        (r"\balv\b|\barvonlisavero\b", 0.7),
    ],
    "amount_due": [
        (
            r"\bmaksettava(?:\s+(?:yhteensa|summa|maara))?\b|\byhteensa\s+maksettava\b"
            r"|\bmaksettavaa\b|\bavoinna\b|\bavoin\s+saldo\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\balkuperainen\s+lasku(?:\s*{number})?\b\.?", 1.0),
        (r"\bhyvitettava\s+lasku(?:\s*{number})?\b\.?", 1.0),
        (r"\bhyvitys\s+laskusta(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bvaluutta\b", 1.0)],
    "purchase_order": [
        (
            r"\btilaus(?:numero|nro)\b|\btilaus\s+(?:nro|numero)\b|\bostotilaus\w*"
            r"|\btilauksenne\b",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (r"\balv[\s.-]*(?:numero|nro|tunniste|tunnus|rek\w*)\b\.?|\bvat[\s-]*tunniste\b", 1.0),
    ],
}

DOCUMENT_TITLES = ("lasku", "hyvityslasku")
NUMBERED_TITLES = ("lasku", "hyvityslasku")
OTHER_DOCUMENT = (r"alkuperaise\w*", r"hyvitettava\w*")
NUMBERED_NOT_INVOICE = ("asiakas", "tilaus", "tuote", "tilin", "sivu", "sopimus", "lahete")
OTHER_DATE_CONTEXT = (
    "toimitus", "erapaiva", "eraantym", "tilaus", "maksu", "kausi", "jakso", "voimassa",
)
# The weak date word ("Päiväys: …"); Finnish names other events' dates in one compound word.
DATE_WORDS = ("paivays", "paivamaara", "pvm")
TAX_ABBREVIATIONS = ("alv",)
TOTAL_WORDS = ("yhteensa",)
SUM_WORDS = ("summa",)
EXCLUDING = ("ilman",)
INCLUDING = ("sis", "sisaltaen", "sisaltaa")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("esimerkki", r"esim\.", "esimerkiksi")
CREDIT_NOTE_TITLES = ("hyvityslasku",)
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("itselaskutus",)
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = ("korjauslasku",)
BUYER_CONTEXT = (
    "asiakas", "asiakkaan", "ostaja", "vastaanottaja", "laskutusosoite", "tilaaja", "maksaja",
)
SELLER_CONTEXT = ("myyja", "toimittaja", "laskuttaja")
SELLER_LABELS = ("myyja", "laskuttaja", "toimittaja", "lahettaja")
BUYER_LABELS = (
    "ostaja", "asiakas", "laskutusosoite", r"(?:laskun\s+)?vastaanottaja", "tilaaja", "maksaja",
)
TOTALS_ROWS = (
    "yhteensa", "valisumma", "veroton", "verollinen", r"alv[\s-]*erittely",
    "arvonlisaveroerittely", "maksettava", "pyoristys", "loppusumma",
)
ITEM_SECTIONS = ("alennukset", r"maksuehd(?:ot|o)", "lisatiedot", "huomautukset")
CARRIED_FORWARD = ("siirto", "siirretaan", r"edellinen\s+sivu")
GROSS_WORDS = ("verollinen",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"lisamaksu\w*",)
CASH_DISCOUNTS = (r"kateisalennus\w*", r"kassa-?alennus\w*", r"maksettaessa\s+\d*\s*(?:paivan|pv)")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:alv\s*%|alv-?kanta|verokanta|alv|%\s*alv)(?!\w)",),
    "vat_amount": (r"\b(?:alv[\s-]*(?:maara|eur|euroa|osuus)|veron\s+maara)\b",),
    "gross_amount": (
        r"\b(?:verollinen(?:\s+(?:hinta|summa|yhteensa))?|yhteensa\s+sis\.?\s+alv)\b",
    ),
    "discount": (r"\b(?:alennus|ale)(?!\w)",),
    "unit": (r"^(?:yks\.?|yksikko)$",),
    "quantity": (r"\b(?:maara|kpl|lkm|kappaletta)(?!\w)",),
    "unit_price": (r"\b(?:yksikkohinta|kpl-?hinta)\b|(?<!\w)a[\s-]?hinta\b",),
    "net_amount": (
        r"\b(?:yhteensa|summa|veroton(?:\s+(?:hinta|summa|yhteensa))?|rivisumma"
        r"|hinta\s+yhteensa)\b",
    ),
    "unit_price_weak": (r"\bhinta\b",),
    "description": (r"\b(?:kuvaus|tuote|nimike|selite|tuotenimi|palvelu|tuote/palvelu)\b",),
}
NOT_THE_ISSUE_DATE = ("toimitus", "erapaiva", "tilaus")
PAID_WORDS = ("maksettu", r"jo\s+maksettu", "ennakkomaksu", "osamaksu")
EARLIER_BALANCES = (r"(?:edellinen|aiempi)\s+saldo",)

# "Ky", "Ay" and "Tmi" are also syllables of other languages' words: only after a name.
LEGAL_FORMS = ("oy", "oyj", r"(?<=[^\W\d]\s)(?:ky|ay|tmi|osk)(?=\s*(?:$|,))", r"^tmi(?=\s)")
# "Oy Hartwall Ab", "Tmi Virtanen": the form may lead the name too
LEADING_LEGAL_FORMS = ("oy", "oyj", "tmi")
NOT_NAME = (
    r"(?:hyvitys)?lasku\w*", "y-tunnus", "alv", "puhelin", "puh", "sivu", "summa", "paivays",
    "paivamaara", "pvm", "erapaiva", "maksuehdot", "viivastyskorko", "huomautusaika", "pankki",
    "tilinumero", "viitenumero", "osoite", "sahkoposti", "kotipaikka",
)
NAME_LABELS = ("nimi", "yritys", "toiminimi")
NOT_IN_BLOCK = (
    "y-tunnus", r"alv\b", r"puh\b", "puhelin", "sahkoposti", "osoite", r"asiakas(?:numero|nro)",
    "viite", r"viitteen(?:ne|me)",
)
PERSON_PREFIXES = ("yhteyshenkilo",)
ACCOUNT_HOLDER_LABELS = (r"saaja\b", "maksunsaaja", r"tilin\s+omistaja")
PAGE_TITLES = ("lasku", "hyvityslasku", "kuitti", "kopio")
DELIVERY_LABELS = ("toimitusosoite", "toimituspaikka")

CURRENCY_WORDS = {
    "EUR": (r"\beuroa\b",),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("pykala", "lain", "direktiivi")
