"""Spanish vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("emision", never "emisión").
"""

# es_PE adds "setiembre" / "set.", written across Latin America.
MONTH_LOCALES = ("es", "es_PE")

_NOT_THIS_INVOICE = r"(?!\s+(?:associ|d.origine|origin|rectifi|preced))"

LABELS = {
    "invoice_number": [
        (
            r"\b(?:n[o°º]|numero|num\.?)\s*(?:de\s+)?(?:la\s+)?factura\b" + _NOT_THIS_INVOICE,
            1.0,
        ),
        (r"\bfactura\s*(?:n\s?[o°º.]?|numero|num\.?|nr\.?|no\.?|#)(?=[\s:.\d]|$)", 1.0),
    ],
    "issue_date": [(r"\bfecha\s+(?:de\s+)?(?:la\s+)?(?:factura|emision|expedicion)\b", 1.0)],
    "due_date": [
        (
            r"\bfecha\s+de\s+vencimiento\b|\bvencimiento\b|\bfecha\s+(?:limite\s+)?de\s+pago\b",
            1.0,
        ),
        (r"\bpagadera?\s+antes\s+del?\b", 0.8),
    ],
    "gross_total": [
        (
            r"\bimporte\s+total\b|\btotal\s+factura\b|\btotal\s+(?:con\s+)?iva\s+incluido\b"
            r"|\btotal\s+con\s+iva\b",
            1.0,
        ),
    ],
    "net_total": [(r"\bbase\s+imponible\b|\btotal\s+sin\s+iva\b|\bimporte\s+neto\b", 1.0)],
    "tax_total": [
        (r"\bcuota\s+(?:de\s+)?iva\b|\btotal\s+iva\b|\bimporte\s+(?:del\s+)?iva\b", 1.0),
        (r"\b(?:iva|impuestos?)\b|\bi\.v\.a(?!\w)", 0.7),  # "I.V.A. 16%:"
    ],
    "amount_due": [(r"\bimporte\s+a\s+pagar\b|\btotal\s+a\s+pagar\b|\bsaldo\s+pendiente\b", 1.0)],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bfactura\s+(?:rectificada|original|de\s+origen|de\s+referencia)(?:\s*{number})?\b\.?", 1.0),
        (r"\brectifica\s+(?:a\s+)?(?:la\s+)?factura(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bmoneda\b|\bdivisa\b", 1.0)],
    "purchase_order": [(r"\b(?:numero\s+de\s+)?pedido\b|\borden\s+de\s+compra\b", 1.0)],
    "seller_vat_id": [
        (
            r"\biva[\s.-]*(?:reg(?:istration)?\.?\s*)?"
            r"(?:id|no|nr|number|nummer|num|n°|numero|nummer)?\b\.?|\bnif\b|\bcif\b",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("factura",)
NUMBERED_TITLES = ("factura", "nota")
OTHER_DATE_CONTEXT = ("pedido", "entrega", "vencimiento")
DATE_WORDS = ("fecha",)
DATE_PREPOSITIONS = (r"de\s+",)
DATE_ARTICLES = ("la",)
OTHER_EVENTS = ("entrega", "vencimiento", "pedido")
DATE_CONNECTIVES = ("del",)
TAX_ABBREVIATIONS = ("iva",)
TOTAL_WORDS = ("total",)
EXCLUDING = ("sin",)
INCLUDING = ("con", "incluido")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("ejemplo", r"por\s+ejemplo")
CREDIT_NOTE_TITLES = (r"nota\s+de\s+credito",)
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("autofactura", "autofacturacion")
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = (r"factura\s+rectificativa", r"factura\s+correctiva")
BUYER_CONTEXT = ("cliente", "destinatario", "comprador", r"facturar\s+a")
SELLER_CONTEXT = ("nuestro",)
SELLER_LABELS = ("proveedor", "vendedor", "emisor")
BUYER_LABELS = ("cliente", "destinatario", "comprador", r"facturar\s+a")
TOTALS_ROWS = (r"base\s+imponible", "totales")
ITEM_SECTIONS = ("descuentos",)
CARRIED_FORWARD = (r"suma\s+y\s+sigue", r"suma\s+anterior")
GROSS_WORDS = ("pvp",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"recargos?",)
CASH_DISCOUNTS = (r"pronto\s+pago", r"pago\s+anticipado", r"descuento\s+financiero")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:iva|iva\s*%)\b",),
    "quantity": (r"\b(?:cantidad|cant|uds)\b",),
    "unit_price": (r"\bprecio\s+unit(?:ario|\.)|\bp\.\s*unit(?:ario|\.)?",),
    "net_amount": (r"\bimporte\b|\bbase\s+imponible\b",),
    "unit_price_weak": (r"\bprecio\b",),
    "description": (r"\b(?:descripcion|concepto|articulo|producto|servicio)\b",),
    "vat_amount": (r"\b(?:cuota\s+(?:de\s+)?iva|importe\s+(?:del\s+)?iva)\b",),
    "gross_amount": (r"\b(?:total|importe)\s+(?:con\s+)?iva(?:\s+incluido)?\b",),
    "discount": (r"\b(?:descuento|dto\.?)(?!\w)",),
    "unit": (r"^(?:unidad|ud\.?)$",),
}
PAID_WORDS = ("pagado", "anticipo")
EARLIER_BALANCES = (r"saldo\s+(?:anterior|pendiente)",)

LEGAL_FORMS = (r"s\.l\.", "sl", r"s\.a\.u\.", "sa", r"s\.a\.")
NOT_NAME = ("factura",)
NAME_LABELS = ("nombre",)
ACCOUNT_HOLDER_LABELS = (r"titular(?:\s+de\s+la\s+cuenta)?",)
PAGE_TITLES = ("factura",)
DELIVERY_LABELS = (r"direccion\s+de\s+entrega",)

CURRENCY_WORDS = {
    "EUR": (r"\beuros?\b",),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("articulo", "apartado", "ley", r"real\s+decreto", "directiva")
