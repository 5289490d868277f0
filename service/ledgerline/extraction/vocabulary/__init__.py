"""Multilingual label vocabularies (en, de, fr, es, nl, it) and text folding.

Patterns are written against *folded* text: lower case, accents removed, same length as the
input so match offsets map straight back onto the printed line.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "fold",
    "LABELS",
    "match_labels",
    "LabelHit",
    "CREDIT_NOTE_TITLES",
    "BUYER_CONTEXT",
    "SELLER_CONTEXT",
    "SELLER_LABEL",
    "BUYER_LABEL",
    "STOP_ITEMS",
    "COLUMN_HEADERS",
]


# --------------------------------------------------------------------------- vocabularies
# Each entry: field -> list of (regex, weight).  Weight says how specific the label is.
_N = r"(?:n(?:o|r|um|umber|ummer|°|º|\.)?\.?|#|nummer|number|num|id)"
_CONTEXT = {
    # "Rechnung Nr. 4711 vom 05.03.2018", "Facture n° 12 du 13/11/2017": a title with a number
    "_TITLE_NUMBER": re.compile(
        r"(?:rechnung|invoice|facture|factura|fattura|factuur|gutschrift|avoir|credit note|nota)"
        r"[^\n]{0,12}?(?:n[o°º]?|nr|#|no|nummer|number|numero)?[.:]?\s*[a-z0-9][\w/.-]*\s*$"
        r"|(?:^|\s)(?:nr|no|n[°o])\.?\s*[a-z0-9][\w/.-]*\s*$"
    ),
    # numbers of other documents: "original invoice no.", "Ursprungsrechnung Nr."
    "_OTHER_DOC": re.compile(
        r"(?:original|referenced|corrected|previous|ursprung\w*|bezug\w*|vorherige\w*|zu)\s*$"
    ),
    # "<word> Nr." that numbers something other than the invoice
    "_NOT_INVOICE_NR": re.compile(
        r"(?:kunde|kunden|lief|liefer|art|artikel|bestell|bestellung|auftrag|order|customer|client|steuer|tax|"
        r"vat|ust|tel|fax|konto|account|iban|blz|seite|page|pos|hrb|hra|vsnr|mandat|referenz|vertrag|"
        r"contract|haus|postfach|zimmer|lieferschein|beleg|ursprungs\w*)\w*$"
    ),
    # dates that are not the issue date
    "_NOT_ISSUE": re.compile(
        r"(?:bestell|liefer|leistung|order|deliver|livraison|commande|pedido|entrega|levering|bestel|"
        r"ordine|consegna|due|fallig|echeance|vencimiento|verval|scadenza|zahlbar|payable|period|"
        r"zeitraum|periode|reklamation|vertrag|contract|check|start|end|version|druck|print|"
        r"geburt|birth|ablauf|expir|valid|gultig|abschluss|beginn|ende)[\w.-]*\s*"
        r"(?:(?:nr|no|n[°o]|#)\.?\s*[\w/.-]*\d[\w/.-]*\s*)?[:]?\s*$"
    ),
}

_RAW: dict[str, list[tuple]] = {
    "invoice_number": [
        (rf"\b(?:invoice|inv|bill|tax invoice)\s*{_N}\b:?|\binvoice\s*#", 1.0),
        (r"\binvoice number\b|\binvoice no\b", 1.0),
        (
            r"\brechnungs?[\s-]*(?:nr|nummer|no)\b\.?|\b\w*rechnung(?:skorrektur)?\s+(?:nr|no)\b\.?"
            r"|\bbeleg[\s-]*(?:nr|nummer)\b\.?|\b\w*rechnung\s*#|\bgutschrift\s+nr\b\.?",
            1.0,
            {"not_before": "_OTHER_DOC"},
        ),
        (r"\bgutschrifts?[\s-]*(?:nr|nummer)\b\.?|\bgutschrift\s+nr\b\.?", 1.0),
        (
            r"\b(?:n[o°º]|numero|num\.?)\s*(?:de\s+)?(?:la\s+)?(?:facture|avoir|factura)\b(?!\s+(?:associ|d.origine|origin|rectifi|preced))",
            1.0,
        ),
        (
            r"\b(?:facture|avoir|factura|fattura)\s*(?:n\s?[o°º.]?|numero|num\.?|nr\.?|no\.?|#)(?=[\s:.\d]|$)",
            1.0,
        ),
        (
            r"\bfactuur\s*(?:nummer|nr|no)\b\.?|\bfactuurnummer\b|\bfactuurnr\b\.?|\bcreditnota\s*(?:nummer|nr)\b\.?",
            1.0,
        ),
        (r"\bnumero\s+(?:della\s+)?fattura\b|\bn\.\s*fattura\b|\bnum\.\s*fattura\b", 1.0),
        (r"\bdocument\s*(?:no|number|nr)\b\.?", 0.6),
        (
            r"\b\w*rechnung\b|\brechnungskorrektur\b|\binvoice\b|\bfacture\b|\bfactuur\b|\bfactura\b|\bfattura\b"
            r"|\bgutschrift\b|\bcredit note\b|\bavoir\b|\bcreditnota\b",
            0.45,
        ),
        (r"^(?:nr|no|n[°o])(?![a-z])\.?(?=\s*[:#]?\s*[a-z0-9])", 0.5),
        (r"(?<=[a-z)])\s+(?:nr|no)\.(?=\s*[a-z0-9])", 0.35, {"not_before": "_NOT_INVOICE_NR"}),
    ],
    "issue_date": [
        (
            r"\b(?:invoice|billing|issue|bill|tax invoice)\s*date\b"
            r"|\bdate\s+(?:of\s+)?(?:invoice|issue)\b"
            r"|\bdate issued\b|\binvoice dated\b",
            1.0,
        ),
        (
            r"\brechnungs[\s-]*datum\b|\bbeleg[\s-]*datum\b|\bausstellungs[\s-]*datum\b|\bgutschrifts[\s-]*datum\b",
            1.0,
        ),
        (
            r"\bdate\s+(?:de\s+)?(?:la\s+)?(?:facture|facturation|l.emission|emission)\b(?!\s+(?:associ|d.origine|origin|rectifi|preced))",
            1.0,
        ),
        (r"\bfecha\s+(?:de\s+)?(?:la\s+)?(?:factura|emision|expedicion)\b", 1.0),
        (r"\bfactuur\s*datum\b|\bfactuurdatum\b", 1.0),
        (r"\bdata\s+(?:della\s+|di\s+)?(?:fattura|emissione|documento)\b", 1.0),
        (
            r"(?<![-\w])(?:datum|date|fecha|data|dated)\b(?!\s*(?:de\s+|of\s+|d.|du\s+|di\s+|van\s+)?"
            r"(?:la\s+)?(?:livraison|delivery|echeance|paiement|payment|commande|order|debut|fin|prestation|"
            r"facture\s+associee|naissance|entrega|vencimiento|pedido|levering|consegna|scadenza|ordine|"
            r"lieferung|leistung|due|expiry|service))",
            0.55,
            {"not_before": "_NOT_ISSUE"},
        ),
        (
            r"\bvom\b|\bvon\b|\bdu\b|\bdel\b|\bvan\b|\bdated\b|\bof\b",
            0.6,
            {"before": "_TITLE_NUMBER", "not_before": "_NOT_ISSUE"},
        ),
    ],
    "due_date": [
        (
            r"\bdue\s*date\b|\bpayment\s+due\b|\bdue\s+(?:on|by)\b"
            r"|\bpay(?:able)?\s+by\b|\bdate due\b|^due\s*:",
            1.0,
        ),
        (
            r"\bfalligkeit(?:sdatum)?\b|\bfallig\s+(?:am|bis)\b|\bzahlbar\s+bis\b|\bzahlungsziel\b|\bfallig\b",
            1.0,
        ),
        (
            r"\bdate\s+d.echeance\b|\becheance\b|\ba\s+payer\s+avant\s+le\b|\bdate\s+limite\s+de\s+paiement\b",
            1.0,
        ),
        (r"\bfecha\s+de\s+vencimiento\b|\bvencimiento\b|\bfecha\s+(?:limite\s+)?de\s+pago\b", 1.0),
        (
            r"\bvervaldatum\b|\bvervaldag\b|\buiterste\s+betaaldatum\b|\bte\s+betalen\s+(?:voor|uiterlijk)\b",
            1.0,
        ),
        (r"\bdata\s+(?:di\s+)?scadenza\b|\bscadenza\b", 1.0),
        (
            r"\b(?:zahlbar|uberweisen|zahlen|bezahlen|begleichen)\b[^\n]{0,40}?\bbis(?:\s+(?:zum|spatestens))?\b"
            r"|\bpayable\s+(?:on\s+or\s+)?(?:before|by|until)\b|\b(?:pay|remit)\s+(?:by|before|until)\b"
            r"|\b(?:a\s+regler|payable|a\s+payer)\s+(?:avant\s+le|au\s+plus\s+tard\s+le)\b"
            r"|\bpagadera?\s+antes\s+del?\b|\bte\s+betalen\s+voor\b|\bda\s+pagare\s+entro\s+il\b",
            0.8,
        ),
    ],
    "gross_total": [
        (
            r"\b(?:invoice|grand|document)\s+total\b|\btotal\s+(?:amount|invoice)\b"
            r"|\btotal\s+(?:incl\.?|including|inc\.?|with)\s*(?:vat|tax|gst)\b"
            r"|\btotal for this invoice\b",
            1.0,
        ),
        (
            r"\bgesamtbetrag\b(?!\s+der\s+(?:zu|ab))|\bbruttobetrag\b|\bbruttosumme\b|\brechnungsbetrag\b"
            r"|\bgesamtsumme\b|\bendbetrag\b|\bsumme\s+brutto\b|\bgesamt\s+brutto\b|\brechnungssumme\b(?!\s+ohne)"
            r"|\bbrutto\b|\bgutschriftsbetrag\b|\bgesamt\s*(?:\(?eur\)?)?$",
            1.0,
        ),
        (r"\btotal\s+ttc\b|\bmontant\s+ttc\b|\bttc\b|\bmontant\s+total\b|\btotal\s+facture\b", 1.0),
        (
            r"\bimporte\s+total\b|\btotal\s+factura\b|\btotal\s+(?:con\s+)?iva\s+incluido\b|\btotal\s+con\s+iva\b",
            1.0,
        ),
        (r"\bfactuur\s*totaal\b|\btotaal\s*(?:bedrag|incl\.?(?:\s+btw)?)\b|\btotaalbedrag\b", 1.0),
        (r"\btotale\s+(?:fattura|documento|ivato|complessivo)\b|\bimporto\s+totale\b", 1.0),
        (r"\btotal\b|\btotaal\b|\btotale\b|\bsumme\b|\bgesamt\b", 0.5),
    ],
    "net_total": [
        (
            r"\bsub[\s-]?total\b|\bnet\s+(?:total|amount)\b|\btotal\s+net\b"
            r"|\btotal\s+(?:excl\.?|excluding|ex\.?|before|without|w/o)\s*(?:vat|tax|gst)\b\.?|\bamount\s+before\s+tax\b",
            1.0,
        ),
        (
            r"\bnettobetrag\b|\bnettosumme\b|\bsumme\s+netto\b|\bgesamt\s+netto\b|\bnetto\s*gesamt\b"
            r"|\brechnungssumme\s+ohne\s+(?:ust|mwst|umsatzsteuer|steuer)\b\.?|\brechnungssumme\s+ohne\b|\bgesamtbetrag\s+netto\b|\bsumme\s+ohne\s+(?:ust|mwst)\b|\bnetto\b"
            r"|\bsteuerbasis\b|\bsteuerpflichtiger\s+betrag\b|\bgesamtsumme\s+netto\b",
            1.0,
        ),
        (
            r"\btotal\s+h\.?t\.?\b|\bmontant\s+h\.?t\.?\b|\bsous[\s-]total\b|\btotal\s+hors\s+taxes?\b",
            1.0,
        ),
        (r"\bbase\s+imponible\b|\btotal\s+sin\s+iva\b|\bimporte\s+neto\b", 1.0),
        (
            r"\bsubtotaal\b|\btotaal\s+excl\.?(?:\s+btw)?\b|\bnetto\s*bedrag\b|\bbedrag\s+excl\.?"
            r"|\bexclusief\s+btw\b|\bexcl\.?\s+btw\b",
            1.0,
        ),
        (r"\bgrondslag\b|\bbasisbetrag\b|\bbase\s+h\.?t\.?\b|\btaxable\s+amount\b", 0.8),
        (r"\btotale\s+imponibile\b|\bimponibile\b|\btotale\s+netto\b", 1.0),
    ],
    "tax_total": [
        (
            r"\b(?:vat|tax|gst|sales\s+tax)\s+(?:amount|total)\b|\btotal\s+(?:vat|tax(?:es)?|gst)\b",
            1.0,
        ),
        (r"\b(?:ust|mwst|vat|tva|btw|iva|tax)\.?\s*(?:gesamt|total|totaal|totale)\b", 1.0),
        (
            r"\b(?:ust|mwst|umsatzsteuer|mehrwertsteuer)[\s.-]*betrag\b|\bsteuerbetrag\b|\bsumme\s+(?:ust|mwst)\b"
            r"|\bgesamt\s+(?:ust|mwst)\b",
            1.0,
        ),
        (r"\b(?:montant|total)\s+(?:de\s+la\s+)?tva\b|\btotal\s+taxes?\b", 1.0),
        (r"\bcuota\s+(?:de\s+)?iva\b|\btotal\s+iva\b|\bimporte\s+(?:del\s+)?iva\b", 1.0),
        (r"\btotaal\s+btw\b|\bbtw[\s-]*bedrag\b", 1.0),
        (r"\btotale\s+iva\b|\bimposta\b|\btotale\s+imposte\b|\bimporto\s+iva\b", 1.0),
        (
            r"\b(?:vat|sales\s+tax|gst|tax)\b|\b(?:ust|mwst|umsatzsteuer|mehrwertsteuer)\b\.?"
            r"|\btva\b|\b(?:iva|impuestos?)\b|\bbtw\b",
            0.7,
        ),
    ],
    "amount_due": [
        (
            r"\bamount\s+(?:due|payable|to\s+pay)\b|\bbalance\s+due\b|\btotal\s+(?:amount\s+)?due\b"
            r"|\bpayable\s+amount\b|\bplease\s+pay\b|\bbalance\b",
            1.0,
        ),
        (
            r"\bzahlbetrag\b|\bzu\s+zahlen(?:der\s+betrag)?\b|\bfalliger\s+betrag\b|\boffener\s+betrag\b"
            r"|\bzahlungsbetrag\b|\brestbetrag\b",
            1.0,
        ),
        (
            r"\bnet\s+a\s+payer\b|\bsolde\s+a\s+payer\b|\breste\s+a\s+payer\b|\bmontant\s+du\b|\btotal\s+a\s+payer\b"
            r"|\bmontant\s+a\s+payer\b",
            1.0,
        ),
        (r"\bimporte\s+a\s+pagar\b|\btotal\s+a\s+pagar\b|\bsaldo\s+pendiente\b", 1.0),
        (r"\bte\s+betalen(?:\s+bedrag)?\b|\bopenstaand\s+bedrag\b|\bnog\s+te\s+betalen\b", 1.0),
        (
            r"\bimporto\s+da\s+pagare\b|\btotale\s+da\s+pagare\b|\bnetto\s+a\s+pagare\b|\bsaldo\b",
            1.0,
        ),
    ],
    "currency": [
        (
            r"\bcurrency\b|\bwahrung\b|\brechnungswahrung\b|\bdevise\b|\bmonnaie\b|\bmoneda\b|\bdivisa\b"
            r"|\bvaluta\b",
            1.0,
        ),
    ],
    "purchase_order": [
        (
            r"\b(?:purchase\s+order|p\.?o\.?)\s*(?:no|number|nr|#|ref(?:erence)?)?\b\.?|\border\s+(?:no|number|ref)\b\.?"
            r"|\byour\s+order\b|\border\s+#",
            1.0,
        ),
        (
            r"\bbestell(?:ung|nummer|nr)\b\.?|\bihre\s+bestellung\b|\bauftrags?(?:nummer|nr)\b\.?|\bbestellnr\b\.?",
            1.0,
        ),
        (
            r"\bbon\s+de\s+commande\b|\b(?:n[o°]\s+de\s+)?commande\b|\bvotre\s+(?:commande|reference)\b",
            1.0,
        ),
        (r"\b(?:numero\s+de\s+)?pedido\b|\borden\s+de\s+compra\b", 1.0),
        (r"\bbestel(?:nummer|ling|nr)\b\.?|\border(?:nummer|nr)\b\.?|\buw\s+referentie\b", 1.0),
        (r"\bordine(?:\s+(?:n\.?|numero))?\b|\bnumero\s+ordine\b", 1.0),
    ],
    "seller_vat_id": [
        (
            r"\b(?:vat|tva|btw|iva|ust|mwst|gst)[\s.-]*(?:reg(?:istration)?\.?\s*)?(?:id|no|nr|number|nummer|num|n°|numero|nummer)?\b\.?"
            r"|\bust[\s.-]*id[\s.-]*nr\b\.?|\bust-?idnr\b\.?|\buid(?:-nr)?\b|\bpartita\s+iva\b|\bp\.?\s?iva\b"
            r"|\bnif\b|\bcif\b|\bvat\s+id\b|\bintra[\s-]?(?:communautaire)?\b|\bumsatzsteuer-?id\b"
            r"|\bsteuer-?id\b|\bbtw-?(?:nummer|nr)\b|\bn[°o]\s+(?:de\s+)?tva\b",
            1.0,
        ),
    ],
    "iban": [(r"\biban\b", 1.0)],
}

CREDIT_NOTE_TITLES = re.compile(
    r"\bcredit\s*note\b|\bcredit\s+memo\b|\bgutschrift\b"
    r"|\bavoir\b|\bfacture\s+d.avoir\b|\bnota\s+de\s+credito\b|\bfactura\s+rectificativa\b"
    r"|\bcreditnota\b|\bcreditfactuur\b|\bnota\s+di\s+credito\b"
)
BUYER_CONTEXT = re.compile(
    r"\b(?:bill(?:ed)?\s+to|invoice\s+to|sold\s+to|ship\s+to|customer|client|buyer|recipient|your|uw|votre"
    r"|kunde|kunden|kaufer|leistungsempfanger|rechnungsempfanger|empfanger|rechnungsadresse|lieferadresse"
    r"|factuuradres|afleveradres|klant|afnemer|destinataire|facture\s+a|adresse\s+de\s+(?:facturation|livraison)"
    r"|cliente|destinatario|acquirente|comprador|facturar\s+a|ihre?)\b"
)
SELLER_CONTEXT = re.compile(
    r"\b(?:seller|vendor|supplier|from|sold\s+by|service\s+provider|issued\s+by|verkaufer|lieferant|leverancier"
    r"|verkoper|fournisseur|vendeur|emetteur|proveedor|vendedor|emisor|fornitore|venditore|cedente"
    r"|rechnungssteller|absender)\b"
)
SELLER_LABEL = re.compile(
    r"^(?:seller|vendor|supplier|from|sold\s+by|service\s+provider|issued\s+by|verkaufer|lieferant|"
    r"rechnungs(?:er|aus)steller|leverancier|verkoper|fournisseur|vendeur|emetteur|proveedor|vendedor|"
    r"emisor|fornitore|venditore|cedente(?:\s+prestatore)?|absender)\b\s*(?::\s*|$)"
)
BUYER_LABEL = re.compile(
    r"^(?:bill(?:ed)?\s+to|invoice\s+to|sold\s+to|customer|client|buyer|recipient|kunde|kaufer"
    r"(?:\s*/\s*leistungsempfanger)?|leistungsempfanger|rechnungsempfanger|rechnungsadresse|"
    r"factuuradres|klant|afnemer|destinataire|facture\s+a|facturer\s+a|adresse\s+de\s+facturation|"
    r"cliente|destinatario|acquirente|cessionario(?:\s+committente)?|comprador|facturar\s+a)\b\s*(?::\s*|$)"
)
STOP_ITEMS = re.compile(
    r"^(?:sub[\s-]?total|total|summe|gesamt|zwischensumme|nettobetrag|rechnungssumme|positionssumme|"
    r"montant\s+h\.?t|total\s+ht|sous[\s-]total|subtotaal|totaal|totale|imponibile|base\s+imponible|"
    r"steueraufschlusselung|belegsummen|tax\s+summary|vat\s+summary|net\s+total|warenwert)\b"
)
COLUMN_HEADERS = {
    "description": re.compile(
        r"\b(?:description|item|product|service|article|artikel|bezeichnung|beschreibung|leistung|"
        r"designation|libelle|produit|descripcion|concepto|articulo|omschrijving|product|"
        r"descrizione|articolo|prodotto|details?)\b"
    ),
    "quantity": re.compile(
        r"\b(?:qty|quantity|menge|anzahl|anz\.?|quantite|qte|nombre|cantidad|cant\.?|aantal|hoeveelheid|"
        r"quantita|qta|units?|hours|stunden|std\.?)\b"
    ),
    "unit_price": re.compile(
        r"\b(?:unit\s+price|price|rate|preis|einzelpreis|e-?preis|nettopreis|prix(?:\s+unitaire)?|p\.?\s?u\.?|"
        r"precio(?:\s+unitario)?|prijs|stukprijs|prezzo(?:\s+unitario)?|unitaire|unit\s+cost)\b"
    ),
    "net_amount": re.compile(
        r"\b(?:amount|total|line\s+total|net|betrag|gesamt(?:preis)?|summe|montant|total\s+ht|importe|"
        r"bedrag|totaal|importo|totale|subtotal|positionsbetrag|gesamtpreis|prix\s+ht|wert)\b"
    ),
    "vat_rate": re.compile(r"\b(?:vat|tax|ust|mwst|tva|iva|btw|steuer|taxe)\b|%"),
}


def _compile(entry: tuple) -> tuple:
    rx, w = entry[0], entry[1]
    cond = entry[2] if len(entry) > 2 else {}
    return (
        re.compile(rx),
        w,
        _CONTEXT.get(cond.get("before")),
        _CONTEXT.get(cond.get("not_before")),
    )


LABELS: dict[str, list[tuple]] = {
    name: [_compile(e) for e in entries] for name, entries in _RAW.items()
}


class LabelHit:
    __slots__ = ("field", "start", "end", "weight")

    def __init__(self, field: str, start: int, end: int, weight: float):
        self.field, self.start, self.end, self.weight = field, start, end, weight

    def __repr__(self) -> str:
        return f"LabelHit({self.field!r}, {self.start}, {self.end}, {self.weight})"


@lru_cache(maxsize=64)
def _any_label(fields: tuple) -> re.Pattern:
    """One pattern that finds whether any label of these fields could be on a line."""
    return re.compile("|".join(f"(?:{e[0].pattern})" for name in fields for e in LABELS[name]))


def match_labels(folded: str, fields, prev=None) -> list[LabelHit]:
    """Label hits of the given fields in a folded line (all matches, overlaps included).

    ``prev`` gives the text before the line (the cell to its left or the line above), as a string
    or a callable; context conditions of a hit at the start of a line read it.
    """
    if not _any_label(tuple(fields)).search(folded):
        return []
    hits = []
    prev_text = None
    for name in fields:
        for rx, w, before, not_before in LABELS[name]:
            for m in rx.finditer(folded):
                if m.end() <= m.start():
                    continue
                head = folded[: m.start()]
                if (
                    not head.strip()
                    and prev is not None
                    and (before is not None or not_before is not None)
                ):
                    if prev_text is None:
                        prev_text = prev() if callable(prev) else prev
                    head = prev_text + " "
                if before is not None and not before.search(head):
                    continue
                if not_before is not None and not_before.search(head):
                    continue
                hits.append(LabelHit(name, m.start(), m.end(), w))
    return hits
