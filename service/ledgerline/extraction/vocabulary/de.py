"""German vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, umlauts
and accents removed ("falligkeit", never "Fälligkeit").
"""

# de_AT adds "Jänner"; "Feber" and the transliteration "Maerz" are not in CLDR.
MONTH_LOCALES = ("de", "de_AT")
MONTH_NAMES = (("feber", 2), ("maerz", 3))

LABELS = {
    "invoice_number": [
        (
            r"\brechnungs?[\s-]*(?:nr|nummer|no)\b\.?|\b\w*rechnung(?:skorrektur)?\s+(?:nr|no)\b\.?"
            r"|\bbeleg[\s-]*(?:nr|nummer)\b\.?|\b\w*rechnung\s*#|\bgutschrift\s+nr\b\.?",
            1.0,
            {"not_before": "other_document"},
        ),
        (r"\bgutschrifts?[\s-]*(?:nr|nummer)\b\.?|\bgutschrift\s+nr\b\.?", 1.0),
    ],
    "issue_date": [
        (
            r"\brechnungs[\s-]*datum\b|\bbeleg[\s-]*datum\b|\bausstellungs[\s-]*datum\b"
            r"|\bgutschrifts[\s-]*datum\b",
            1.0,
        ),
    ],
    "due_date": [
        (
            r"\bfalligkeit(?:sdatum)?\b|\bfallig\s+(?:am|bis)\b|\bzahlbar\s+bis\b|\bzahlungsziel\b"
            r"|\bfallig\b",
            1.0,
        ),
        (
            r"\b(?:zahlbar|uberweisen|zahlen|bezahlen|begleichen)\b[^\n]{0,40}?"
            r"\bbis(?:\s+(?:zum|spatestens))?\b",
            0.8,
        ),
    ],
    "gross_total": [
        (
            r"\bgesamtbetrag\b(?!\s+der\s+(?:zu|ab))|\bbruttobetrag\b|\bbruttosumme\b"
            r"|\brechnungsbetrag\b|\bgesamtsumme\b|\bendbetrag\b|\bsumme\s+brutto\b"
            r"|\bgesamt\s+brutto\b|\brechnungssumme\b(?!\s+ohne)|\bbrutto\b|\bgutschriftsbetrag\b"
            r"|\bgesamt\s*(?:\(?eur\)?)?$",
            1.0,
        ),
    ],
    "net_total": [
        (
            r"\bnettobetrag\b|\bnettosumme\b|\bsumme\s+netto\b|\bgesamt\s+netto\b|\bnetto\s*gesamt\b"
            r"|\brechnungssumme\s+ohne\s+(?:ust|mwst|umsatzsteuer|steuer)\b\.?"
            r"|\brechnungssumme\s+ohne\b|\bgesamtbetrag\s+netto\b|\bsumme\s+ohne\s+(?:ust|mwst)\b"
            r"|\bnetto\b|\bsteuerbasis\b|\bsteuerpflichtiger\s+betrag\b|\bgesamtsumme\s+netto\b",
            1.0,
        ),
        (r"\bbasisbetrag\b", 0.8),
    ],
    "tax_total": [
        (
            r"\b(?:ust|mwst|umsatzsteuer|mehrwertsteuer)[\s.-]*betrag\b|\bsteuerbetrag\b"
            r"|\bsumme\s+(?:ust|mwst)\b|\bgesamt\s+(?:ust|mwst)\b",
            1.0,
        ),
        (r"\b(?:ust|mwst|umsatzsteuer|mehrwertsteuer)\b\.?", 0.7),
    ],
    "amount_due": [
        (
            r"\bzahlbetrag\b|\bzu\s+zahlen(?:der\s+betrag)?\b|\bfalliger\s+betrag\b"
            r"|\boffener\s+betrag\b|\bzahlungsbetrag\b|\brestbetrag\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bursprungsrechnung(?:s?nummer|\s*{number})?\b\.?", 1.0),
        (r"\b(?:korrektur|gutschrift|storno)\s+(?:zur?|der)\s+rechnung(?:\s*{number})?\b\.?", 1.0),
        (r"\b(?:bezug|bezugnehmend\s+auf)\s+(?:(?:die|unsere)\s+)?rechnung(?:\s*{number})?\b\.?", 1.0),
        (r"\brechnungsbezug\b", 1.0),
        (r"\bkorrigierte\s+rechnung(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bwahrung\b|\brechnungswahrung\b", 1.0)],
    "purchase_order": [
        (
            r"\bbestell(?:ung|nummer|nr)\b\.?|\bihre\s+bestellung\b|\bauftrags?(?:nummer|nr)\b\.?"
            r"|\bbestellnr\b\.?",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (
            r"\b(?:ust|mwst)[\s.-]*(?:reg(?:istration)?\.?\s*)?"
            r"(?:id|no|nr|number|nummer|num|n°|numero|nummer)?\b\.?"
            r"|\bust[\s.-]*id[\s.-]*nr\b\.?|\bust-?idnr\b\.?|\buid(?:-nr)?\b|\bumsatzsteuer-?id\b"
            r"|\bsteuer-?id\b",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = (r"\w*rechnung", "rechnungskorrektur", "gutschrift")
NUMBERED_TITLES = ("rechnung", "gutschrift")
OTHER_DOCUMENT = (r"ursprung\w*", r"bezug\w*", r"vorherige\w*", "zu")
NUMBERED_NOT_INVOICE = (
    "kunde", "kunden", "lief", "liefer", "art", "artikel", "bestell", "bestellung", "auftrag",
    "steuer", "ust", "konto", "blz", "seite", "hrb", "hra", "vsnr", "mandat", "referenz", "vertrag",
    "haus", "postfach", "zimmer", "lieferschein", "beleg", r"ursprungs\w*",
)
OTHER_DATE_CONTEXT = (
    "bestell", "liefer", "leistung", "fallig", "zahlbar", "zeitraum", "reklamation", "vertrag",
    "druck", "geburt", "ablauf", "gultig", "abschluss", "beginn", "ende",
)
DATE_WORDS = ("datum",)
DATE_PREPOSITIONS = ()
DATE_ARTICLES = ()
OTHER_EVENTS = ("lieferung", "leistung")
DATE_CONNECTIVES = ("vom", "von")
TAX_ABBREVIATIONS = ("ust", "mwst")
TOTAL_WORDS = ("gesamt",)
SUM_WORDS = ("summe",)
EXCLUDING = ("exkl", "ohne", "zzgl", "zuzgl", "zuzuglich")
INCLUDING = ("inkl", "mit")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("beispiel", r"z\.\s?b\.", r"zum\s+beispiel")
CREDIT_NOTE_TITLES = ("gutschrift",)
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = (r"selbst\s+ausgestellte\s+rechnung", "gutschriftsverfahren", "selbstfakturierung")
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = (r"rechnungs[\s-]*korrektur", "korrekturrechnung", "stornorechnung")
BUYER_CONTEXT = (
    "kunde", "kunden", "kaufer", "leistungsempfanger", "rechnungsempfanger", "empfanger",
    "rechnungsadresse", "lieferadresse", "ihre?",
)
SELLER_CONTEXT = ("unsere?",)
SELLER_LABELS = ("verkaufer", "lieferant", r"rechnungs(?:er|aus)steller", "absender")
BUYER_LABELS = (
    "kunde", r"kaufer(?:\s*/\s*leistungsempfanger)?", "leistungsempfanger", "rechnungsempfanger",
    "rechnungsadresse",
)
TOTALS_ROWS = (
    "summe", "gesamt", "gesamtbetrag", "zwischensumme", "nettobetrag", "bruttobetrag",
    "rechnungssumme", "positionssumme", "steueraufschlusselung", "umsatzsteueraufschlusselung",
    "belegsummen", "zahlbetrag", "warenwert", "nettowert", "endbetrag", r"zu-?/abschlag",
)
ITEM_SECTIONS = (
    r"zu-?\s*und\s+abschlage", "abschlage", "zuschlage", "rabatte", "nachlasse",
    "zahlungsbedingungen", "bemerkungen", r"(?:ab|zu)schlag\s*:",
)
LINE_AMOUNT_LABELS = (r"gesamtpreis\s*\(netto\)", r"nettobetrag\s+der\s+(?:rechnungs)?position",)
CARRIED_FORWARD = ("ubertrag", "vortrag", r"zwischensumme\s+ubertrag")
GROSS_WORDS = ("brutto",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"zuschlag\w*",)
CASH_DISCOUNTS = (r"skonto\w*", r"bei\s+zahlung\s+(?:innerhalb|bis)", r"zahlung\s+innerhalb")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:ust|mwst|steuer|ust\.?\s*%|mwst-?%|steuersatz)\b", r"steuersatz|mwst-?%"),
    "quantity": (r"\b(?:menge|anzahl|anz|stunden|std|stk)\b",),
    "unit_price": (r"\b(?:einzelpreis|e-?preis|stuckpreis|vk-?preis|nettopreis)\b",),
    "net_amount": (r"\b(?:\w*betrag|\w*summe|gesamt\w*|\w*wert|entgelt|netto)\b",),
    "unit_price_weak": (r"\bpreis\b",),
    "description": (r"\b(?:artikel\w*|bezeichnung|beschreibung|leistung|produkt|position)\b",),
    "vat_amount": (r"\b(?:ust|mwst|steuer)[\s.-]*betrag\b",),
    "gross_amount": (
        r"\bbrutto\w*|\b\w*(?:betrag|summe|gesamt\w*)\s+(?:brutto|inkl\.?\s+(?:ust|mwst))\b",
    ),
    "discount": (r"\b(?:rabatt|nachlass)\w*",),
    "unit": (r"^(?:einheit|eh|me|mengeneinheit)$",),
}
NOT_THE_ISSUE_DATE = ("liefer", "leistung", "bestell", "fallig")
PAID_WORDS = (r"anzahlung\w*", r"bereits\s+(?:bezahlt|gezahlt)", "geleistete", r"vorauszahlung\w*")
EARLIER_BALANCES = (
    r"offene\s+(?:zahlungen|posten|betrage)", r"offener\s+(?:saldo|betrag)", "saldovortrag",
    r"(?:alter|vorheriger)\s+saldo", r"ruckstand\w*",
)

LEGAL_FORMS = (
    "gmbh", "ag", "kg", "ohg", "ug", "gbr", r"e\.\s?k\.", "mbh", "se", r"a\.g\.", r"e\.v\.",
)
NOT_NAME = (
    "rechnung", "gutschrift", "seite", "datum", "telefon", "ust", "steuer", "steuernummer",
    "postfach", "amtsgericht", "registergericht", r"handelsregister\w*", r"geschaftsfuhr\w*", "hrb",
    "konto", "summe", "betrag", "nummer", r"kunden-?nr", r"lief-?nr", "bestellung", "referenz",
    "kontakt", "ansprechpartner", "adresse", "anschrift",
)
NAME_LABELS = ("firma", "firmenname", "unternehmen")
NOT_IN_BLOCK = (
    "nummer", r"kunden-?(?:nr|nummer)", r"lief-?(?:nr|nummer)", r"ust\b", "steuer",
    r"globale\s+nummer", "anschrift", "adresse", "kontakt", "telefon",
)
PERSON_PREFIXES = (r"z\.\s?hd", r"zu\s+handen", "abteilung")
ACCOUNT_HOLDER_LABELS = (r"kontoinhaber(?:in)?", r"begunstigte[rn]?")
PAGE_TITLES = ("rechnung", "gutschrift", "quittung", "kopie")
DELIVERY_LABELS = ("lieferadresse", "lieferanschrift", "warenempfanger")
DECLARED_CAPITAL = ()

CURRENCY_WORDS = {
    "CHF": (r"\bschweizer\s+franken\b", r"\bsfr\.?\b"),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("absatz", "abs", "paragraph", "ustg", "gesetz", "richtlinie")
