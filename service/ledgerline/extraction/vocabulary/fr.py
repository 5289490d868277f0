"""French vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("echeance", never "Échéance"); "." stands for the apostrophe in "d'échéance".
"""

MONTH_LOCALES = ("fr",)
# Abbreviations seen on invoices that CLDR does not list.
MONTH_NAMES = (("fév", 2), ("aoû", 8))

# "N° de facture" but not "N° de la facture d'origine / associée / rectifiée / précédente".
_NOT_THIS_INVOICE = r"(?!\s+(?:associ|d.origine|origin|rectifi|preced))"

LABELS = {
    "invoice_number": [
        (r"\b(?:n[°o]|numero)\s*d.avoir\b|\bavoir\s+n[°o]", 1.0),
        (
            r"\b(?:n[o°º]|numero|num\.?)\s*(?:de\s+)?(?:la\s+)?(?:facture|avoir)\b"
            + _NOT_THIS_INVOICE,
            1.0,
        ),
        (r"\b(?:facture|avoir)\s*(?:n\s?[o°º.]?|numero|num\.?|nr\.?|no\.?|#)(?=[\s:.\d]|$)", 1.0),
    ],
    "issue_date": [
        (
            r"\bdate\s+(?:de\s+)?(?:la\s+)?(?:facture|facturation|l.emission|emission)\b"
            + _NOT_THIS_INVOICE,
            1.0,
        ),
    ],
    "due_date": [
        (
            r"\bdate\s+d.echeance\b|\becheance\b|\ba\s+payer\s+avant\s+le\b"
            r"|\bdate\s+limite\s+de\s+paiement\b",
            1.0,
        ),
        (r"\b(?:a\s+regler|payable|a\s+payer)\s+(?:avant\s+le|au\s+plus\s+tard\s+le)\b", 0.8),
    ],
    "gross_total": [
        (
            r"\btotal\s+ttc\b|\bmontant\s+ttc\b|\bttc\b|\bmontant\s+total\b|\btotal\s+facture\b",
            1.0,
        ),
    ],
    "net_total": [
        (
            r"\btotal\s+h\.?t\.?\b|\bmontant\s+h\.?t\.?\b|\bsous[\s-]total\b"
            r"|\btotal\s+hors\s+taxes?\b",
            1.0,
        ),
        (r"\bbase\s+h\.?t\.?\b", 0.8),
    ],
    "tax_total": [
        (r"\b(?:montant|total)\s+(?:de\s+la\s+)?tva\b|\btotal\s+taxes?\b", 1.0),
        (r"\btva\b|\bt\.v\.a(?!\w)", 0.7),  # "T.V.A. 20 %"
    ],
    "amount_due": [
        (
            r"\bnet\s+a\s+payer\b|\bsolde\s+a\s+payer\b|\breste\s+a\s+payer\b|\bmontant\s+du\b"
            r"|\btotal\s+a\s+payer\b|\bmontant\s+a\s+payer\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bfacture\s+(?:d.origine|initiale|corrigee|rectifiee|de\s+reference)(?:\s*{number})?\b\.?", 1.0),
        (r"\bavoir\s+sur\s+(?:la\s+)?facture(?:\s*{number})?\b\.?", 1.0),
        (r"\breference\s+(?:de\s+la\s+)?facture\b", 1.0),
    ],
    "currency": [(r"\bdevise\b|\bmonnaie\b", 1.0)],
    "purchase_order": [
        (
            r"\bbon\s+de\s+commande\b|\b(?:n[o°]\s+de\s+)?commande\b"
            r"|\bvotre\s+(?:commande|reference)\b",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (
            r"\btva[\s.-]*(?:reg(?:istration)?\.?\s*)?"
            r"(?:id|no|nr|number|nummer|num|n°|numero|nummer)?\b\.?"
            r"|\bintra[\s-]?(?:communautaire)?\b|\bn[°o]\s+(?:de\s+)?tva\b",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("facture", "avoir")
NUMBERED_TITLES = ("facture", "avoir")
OTHER_DOCUMENT = ()
NUMBERED_NOT_INVOICE = ()
OTHER_DATE_CONTEXT = ("livraison", "commande", "echeance", "periode")
DATE_WORDS = ("date",)
DATE_PREPOSITIONS = (r"de\s+", "d.", r"du\s+")
DATE_ARTICLES = ("la",)
OTHER_EVENTS = (
    "livraison", "echeance", "paiement", "commande", "debut", "fin", "prestation",
    r"facture\s+associee", "naissance",
)
DATE_CONNECTIVES = ("du",)
TAX_ABBREVIATIONS = ("tva",)
TOTAL_WORDS = ("total",)
SUM_WORDS = ()
EXCLUDING = ("hors",)
INCLUDING = ("avec", "compris")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("exemple", r"par\s+exemple")
CREDIT_NOTE_TITLES = ("avoir", r"facture\s+d.avoir")
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = (r"auto-?facturation",)
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = (r"facture\s+rectificative", r"facture\s+corrective")
BUYER_CONTEXT = (
    "votre", "client", "destinataire", r"facture\s+a", r"adresse\s+de\s+(?:facturation|livraison)",
)
SELLER_CONTEXT = ("notre",)
SELLER_LABELS = ("fournisseur", "vendeur", "emetteur")
BUYER_LABELS = (
    "client", "destinataire", r"facture\s+a", r"facturer\s+a", r"adresse\s+de\s+facturation",
)
TOTALS_ROWS = (r"montant\s+h\.?t", r"total\s+ht", r"montant\s+(?:ht|ttc)", r"sous[\s-]total")
# "Remise : remise commerciale", "Charge : frais de déplacement": an allowance or charge on
# the whole invoice, printed under the items.
ITEM_SECTIONS = ("remises", "majorations", r"(?:remise|majoration|charge)\s*:")
LINE_AMOUNT_LABELS = (r"montant\s+net\s+de\s+(?:la\s+)?ligne",)
CARRIED_FORWARD = (r"a\s+reporter", r"report(?:e)?")
GROSS_WORDS = ("ttc",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"majorations?",)
CASH_DISCOUNTS = (r"escompte\w*", r"(?:paiement|reglement)\s+anticipe", r"paiement\s+comptant")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:tva|taxe|taxes|tva\s*%|taux)\b",),
    "quantity": (r"\b(?:quantite|qte|nombre)\b",),
    "unit_price": (r"\b(?:prix\s+unitaire|p\.?\s?u\.?(?:\s+ht)?|unitaire)\b",),
    "net_amount": (r"\b(?:montant(?:\s+ht)?|prix\s+ht|total\s+ht|prix\s+incl)\b",),
    "unit_price_weak": (r"\bprix\b",),
    "description": (r"\b(?:article|designation|libelle|produit|prestation|description)\b",),
    "vat_amount": (r"\bmontant\s+(?:de\s+la\s+)?tva\b",),
    "gross_amount": (r"\b(?:montant|total|prix)\s+ttc\b|^ttc$",),
    "discount": (r"\b(?:remise|rabais)\b",),
    "unit": (r"^(?:unite|u\.?)$",),
}
NOT_THE_ISSUE_DATE = ("livraison",)
PAID_WORDS = ("acompte", r"deja\s+(?:paye|regle)", r"montant\s+regle")
EARLIER_BALANCES = (r"solde\s+(?:precedent|anterieur|reporte)",)

LEGAL_FORMS = ("sarl", r"s\.a\.r\.l\.", "sas", "sasu", "eurl", "sa", r"s\.a\.", "snc", r"s\.n\.c\.")
# "SARL Dupont", "SAS Les Jardins": French forms of three letters or more may lead the name too
LEADING_LEGAL_FORMS = ("sarl", r"s\.a\.r\.l\.", "sas", "sasu", "eurl", "snc", r"s\.n\.c\.")
NOT_NAME = ("facture", "avoir", "tva", "capital", "siret", "siren", "rcs", "adresse")
NAME_LABELS = ("nom", r"raison\s+sociale")
NOT_IN_BLOCK = (r"tva\b", "adresse")
PERSON_PREFIXES = (r"a\s+l.attention",)
ACCOUNT_HOLDER_LABELS = (r"titulaire\s+du\s+compte", "beneficiaire")
PAGE_TITLES = ("facture", "avoir", "recu", "original")
DELIVERY_LABELS = (r"adresse\s+de\s+livraison", "livraison")
# "SARL au capital de 120 000 €": the legal form (the first group) is stated apart from the name.
DECLARED_CAPITAL = (r"\b(sarl|sas|sasu|sa|eurl|snc|sca|selarl)\s+au\s+capital\b",)

CURRENCY_WORDS = {
    "EUR": (r"\beuros?\b",),
    "CHF": (r"\bfrancs?\s+suisses?\b",),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("article", "alinea", "loi", "decret", "cgi", "directive")
