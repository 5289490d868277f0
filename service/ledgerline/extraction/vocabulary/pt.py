"""Portuguese vocabulary, of Portugal and Brazil (data only; see the package docstring for what
each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("emissao", never "emissão"); the ordinal sign folds to "o" ("N.º" reads "n.o").
"""

MONTH_LOCALES = ("pt", "pt_PT")

_NUMBER = r"(?:n\.?\s?[o°]\.?|numero|num\.?|nr\.?|#)"
_DOCUMENT = (
    r"(?:fatura|factura|fatura-recibo|fatura\s+simplificada|nota\s+de\s+credito"
    r"|nota\s+fiscal(?:\s+eletronica)?(?:\s+de\s+servicos?)?|nfs?-?e|recibo)"
)

LABELS = {
    "invoice_number": [
        (rf"\b{_DOCUMENT}\s*{_NUMBER}(?=[\s:.\d]|$)", 1.0),
        (rf"\b{_NUMBER}\s*(?:da\s+|de\s+|do\s+)?{_DOCUMENT}\b", 1.0),
        (rf"\bdocumento\s*{_NUMBER}(?=[\s:.\d]|$)|\bn\.?\s?[o°]\.?\s+(?:do\s+)?documento\b", 0.6),
    ],
    "issue_date": [
        (
            r"\bdata\s+(?:de\s+|da\s+|do\s+)?(?:emissao|fatura|factura|documento)\b"
            r"|\bemitid[ao]\s+em\b",
            1.0,
        ),
    ],
    "due_date": [
        (
            r"\bdata\s+(?:de\s+)?vencimento\b|\bvencimento\b|\bvence\s+em\b"
            r"|\bdata\s+limite\s+(?:de\s+|para\s+)?pagamento\b",
            1.0,
        ),
        (r"\b(?:pagar|pagavel|pagamento)\s+ate\b", 0.8),
    ],
    "gross_total": [
        (
            r"\btotal\s+(?:do\s+documento|da\s+fatura|da\s+factura|da\s+nota|geral)\b"
            r"|\b(?:total|valor)\s+(?:c/|com)\s*iva\b|\bvalor\s+total\s+da\s+(?:nota|fatura)\b"
            r"|\bvalor\s+total\b(?!\s+(?:dos|de)\s+(?:produtos|servicos|itens))"
            r"|\bmontante\s+total\b",
            1.0,
        ),
    ],
    "net_total": [
        (
            r"\btotal\s+(?:s/|sem)\s*iva\b|\btotal\s+liquido\b|\bbase\s+tributavel\b"
            r"|\bincidencia\b|\bvalor\s+(?:total\s+)?(?:dos|de)\s+(?:produtos|servicos|itens)\b"
            r"|\btotal\s+(?:dos|de)\s+(?:produtos|servicos|itens)\b",
            1.0,
        ),
        (r"\btotal\s+iliquido\b|\bvalor\s+tributavel\b", 0.8),
    ],
    "tax_total": [
        (
            r"\b(?:total|valor|montante)\s+(?:do\s+|de\s+)?iva\b|\biva\s+total\b"
            r"|\btotal\s+(?:de\s+|dos\s+)?impostos\b",
            1.0,
        ),
        (r"\b(?:iva|impostos?|icms|issqn?)\b|\bi\.v\.a(?!\w)", 0.7),  # "I.V.A."
    ],
    "amount_due": [
        (
            r"\b(?:total|valor|montante)\s+a\s+pagar\b|\bvalor\s+em\s+divida\b"
            r"|\bsaldo\s+(?:a\s+pagar|em\s+divida|devedor)\b",
            1.0,
        ),
        (r"\bvalor\s+do\s+documento\b", 0.8),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\bfatura\s+(?:original|de\s+origem|de\s+referencia|retificada)(?:\s*{number})?\b\.?", 1.0),
        (r"\breferente\s+a\s+fatura(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bmoeda\b|\bdivisa\b", 1.0)],
    "purchase_order": [
        (
            r"\b(?:n\.?\s?[o°]\.?\s+(?:da\s+)?)?encomenda\b|\bnota\s+de\s+encomenda\b"
            r"|\brequisicao\b|\bpedido(?:\s+de\s+compra)?\b|\bordem\s+de\s+compra\b"
            r"|\bv/\s*ref\b\.?|\bsua\s+referencia\b",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (
            r"\bnif\b|\bnipc\b|\bcontribuinte(?:\s+n\.?\s?[o°]\.?)?\b"
            r"|\bn\.?\s?[o°]\.?\s+(?:de\s+)?contribuinte\b|\bcnpj\b",
            1.0,
        ),
    ],
}

DOCUMENT_TITLES = ("fatura", "factura", "fatura-recibo", r"nota\s+de\s+credito", r"nota\s+fiscal")
NUMBERED_TITLES = ("fatura", "factura", "nota", "recibo")
OTHER_DOCUMENT = (r"referente\s+a", r"anula\w*", r"retifica\w*")
NUMBERED_NOT_INVOICE = (
    "encomenda", "cliente", "contribuinte", "conta", "pagina", "guia", "requisicao", "contrato",
    "pedido", "serie",
)
OTHER_DATE_CONTEXT = (
    "vencimento", "entrega", "encomenda", "carga", "descarga", "pagamento", "periodo", "validade",
    "pedido", "saida",
)
DATE_WORDS = ("data",)
DATE_PREPOSITIONS = (r"de\s+", r"da\s+", r"do\s+")
OTHER_EVENTS = (
    "vencimento", "entrega", "carga", "descarga", "pagamento", "encomenda", "validade", "inicio",
    "fim", "servico", "saida",
)
# "Fatura n.º FT 2024/12 de 05-03-2024".
DATE_CONNECTIVES = ("de",)
TAX_ABBREVIATIONS = ("iva",)
TOTAL_WORDS = ("total", "totais")
SUM_WORDS = ("soma",)
EXCLUDING = ("sem", "s/")
INCLUDING = ("com", "c/", "incluido")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("exemplo", r"por\s+exemplo")
CREDIT_NOTE_TITLES = (r"nota\s+de\s+credito",)
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = ("autofaturacao", "autofacturacao")
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = (r"fatura\s+retificativa",)
BUYER_CONTEXT = (
    "cliente", "adquirente", "destinatario", r"faturar\s+a", r"exmos?", "tomador",
)
SELLER_CONTEXT = ("fornecedor", "emitente", "prestador", "vendedor")
SELLER_LABELS = ("fornecedor", "emitente", "vendedor", r"prestador(?:\s+de\s+servicos?)?")
BUYER_LABELS = (
    "cliente", "adquirente", "destinatario", r"faturar\s+a", r"tomador(?:\s+de\s+servicos?)?",
)
TOTALS_ROWS = (
    "total", "subtotal", "totais", "incidencia", r"base\s+tributavel", r"resumo\s+(?:do\s+)?iva",
    r"quadro\s+resumo", r"taxa\s+(?:de\s+)?iva", "arredondamento",
)
ITEM_SECTIONS = ("descontos", r"condicoes\s+de\s+pagamento", r"observac(?:ao|oes)", "notas")
CARRIED_FORWARD = (r"a\s+transportar", "transporte", "transportado")
GROSS_WORDS = ("pvp",)
# A document-level charge at the start of its row's label (see en.py).
CHARGES = (r"acrescimos?",)
CASH_DISCOUNTS = (r"pronto\s+pagamento", r"pagamento\s+antecipado", r"desconto\s+financeiro")
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:iva|taxa(?:\s+(?:de\s+)?iva)?|%\s*iva|iva\s*%)(?!\w)",),
    "vat_amount": (r"\b(?:valor|montante)\s+(?:do\s+)?iva\b",),
    "gross_amount": (r"\b(?:valor|total)\s+(?:c/|com)\s*iva\b",),
    "discount": (r"\b(?:desconto|desc\.?)(?!\w)",),
    "unit": (r"^(?:un\.?|unid\.?|unidade)$",),
    "quantity": (r"\b(?:qtd|qtde|quant|quantidade)\b",),
    "unit_price": (
        r"\b(?:preco|valor)\s+unit(?:ario|\.)?(?!\w)|\bp\.\s?unit\.?(?!\w)|\bpvp\b",
    ),
    "net_amount": (r"\b(?:valor|total|montante|importancia|incidencia)(?:\s+liquido)?\b",),
    "unit_price_weak": (r"\bpreco\b",),
    "description": (
        r"\b(?:descricao|designacao|artigo|produto|servico|discriminacao)\b",
    ),
}
NOT_THE_ISSUE_DATE = ("vencimento", "entrega", "carga", "validade")
# Not "pago" alone: in Spanish it is the payment ("forma de pago"), not what was paid.
PAID_WORDS = (
    r"(?:valor|montante|ja)\s+pago", "adiantamento", r"pagamento\s+por\s+conta", "sinal",
)
EARLIER_BALANCES = (r"saldo\s+(?:anterior|em\s+aberto)",)

LEGAL_FORMS = (r"lda\.?", r"ltda\.?", "unipessoal", "eireli", "s/a", r"s\.\s?a\.")
NOT_NAME = (
    r"fatura\w*", r"factura\w*", "nif", "nipc", "contribuinte", "cnpj", "cpf", "telefone",
    "telemovel",
    "morada", "pagina", "iva", "capital", "conservatoria", "matricula", "banco", "conta",
    "endereco", "data", "vencimento",
)
NAME_LABELS = ("nome", r"razao\s+social", "empresa", r"denominacao(?:\s+social)?")
NOT_IN_BLOCK = (
    "nif", "nipc", "contribuinte", "cnpj", "cpf", "telefone", "morada", "endereco", "inscricao",
    r"n\.?\s?[o°]\.?\s+cliente", r"cliente\s+n",
)
PERSON_PREFIXES = (r"a/c", r"ao\s+cuidado", r"a\s+atencao")
ACCOUNT_HOLDER_LABELS = (r"titular(?:\s+da\s+conta)?", "beneficiario", "favorecido")
PAGE_TITLES = (
    "fatura", "factura", "fatura-recibo", r"nota\s+fiscal", "danfe", "recibo", "original",
    "duplicado", "triplicado",
)
DELIVERY_LABELS = (
    r"morada\s+de\s+entrega", r"local\s+de\s+(?:entrega|descarga)", r"endereco\s+de\s+entrega",
    r"entregar\s+em",
)

CURRENCY_WORDS = {
    "EUR": (r"\beuros?\b",),
    "BRL": (r"\breais\b", r"\br\$"),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("artigo", "lei", r"decreto(?:-lei)?", "diretiva")
