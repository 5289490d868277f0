"""English vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: lower case, accents
removed ("due date", never "Due Date").
"""

# CLDR locales whose month names (wide and abbreviated) are read; en_GB adds "Sept".
MONTH_LOCALES = ("en", "en_GB")
MONTH_NAMES = ()

LABELS = {
    "invoice_number": [
        # "Inv # 4711": a "#" ends no word, so it needs its own alternative; "E-Way Bill No."
        # numbers the transport document, not the invoice
        (
            r"\b(?:invoice|inv|bill|tax invoice)\s*{number}\b:?|\b(?:invoice|inv)\s*#",
            1.0,
            {"not_before": "other_document"},
        ),
        (r"\binvoice number\b|\binvoice no\b", 1.0),
        (
            r"\bcredit\s*(?:note|memo)\s*{number}\b\.?|\bcredit\s*(?:note|memo)\s+number\b"
            r"|\bcredit\s*(?:note|memo)\s*#",
            1.0,
        ),
        # a receipt numbers itself as an invoice does
        (r"\breceipt\s*(?:number|no|nr)\b\.?|\breceipt\s*#", 0.9),
        (r"\bdocument\s*(?:no|number|nr)\b\.?", 0.6),
    ],
    "issue_date": [
        (
            r"\b(?:invoice|inv\.?|billing|issue|bill|tax invoice)\s*date\b"
            r"|\bdate\s+(?:of\s+)?(?:invoice|issue)\b"
            r"|\bdate issued\b|\binvoice dated\b",
            1.0,
        ),
    ],
    "due_date": [
        (
            r"\bdue\s*date\b|\bpayment\s+due\b|\bdue\s+(?:on|by)\b"
            r"|\bpay(?:able)?\s+by\b|\bdate due\b|^due\s*:",
            1.0,
        ),
        (
            r"\bpayable\s+(?:on\s+or\s+)?(?:before|by|until)\b|\b(?:pay|remit)\s+(?:by|before|until)\b",
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
    ],
    "net_total": [
        (
            r"\bsub[\s-]?total\b|\bnet\s+(?:total|amount)\b|\btotal\s+net\b"
            r"|\btotal\s+(?:excl\.?|excluding|ex\.?|before|without|w/o)\s*(?:vat|tax|gst)\b\.?"
            r"|\bamount\s+before\s+tax\b",
            1.0,
        ),
        (r"\btaxable\s+amount\b", 0.8),
    ],
    "tax_total": [
        (
            r"\b(?:vat|tax|gst|sales\s+tax)\s+(?:amount|total)\b|\btotal\s+(?:vat|tax(?:es)?|gst)\b",
            1.0,
        ),
        (r"\b(?:vat|sales\s+tax|gst|tax)\b", 0.7),
    ],
    "amount_due": [
        (
            r"\bamount\s+(?:due|payable|to\s+pay)\b|\bbalance\s+due\b|\btotal\s+(?:amount\s+)?due\b"
            r"|\bpayable\s+amount\b|\bplease\s+pay\b|\bbalance\b",
            1.0,
        ),
    ],
    # the number of the invoice a credit note or correction refers to
    "preceding_invoice_number": [
        (r"\b(?:original|referenced|corrected|related|previous|credited)\s+invoice(?:\s*{number})?\b\.?", 1.0),
        (r"\binvoice\s+reference\b", 1.0),
        (r"\b(?:credit|refund)\s+(?:for|against|of)\s+invoice(?:\s*{number})?\b\.?", 1.0),
        (r"\b(?:against|relates?\s+to|corrects|cancels)\s+invoice(?:\s*{number})?\b\.?", 1.0),
    ],
    "currency": [(r"\bcurrency\b", 1.0)],
    "purchase_order": [
        (
            r"\b(?:purchase\s+order|p\.?o\.?)\s*(?:no|number|nr|#|ref(?:erence)?)?\b\.?"
            r"|\border\s+(?:no|number|ref)\b\.?|\byour\s+order\b|\border\s+#",
            1.0,
        ),
    ],
    "seller_vat_id": [
        (
            r"\b(?:vat|gst)[\s.-]*(?:reg(?:istration)?\.?\s*)?"
            r"(?:id|no|nr|number|nummer|num|n°|numero|nummer)?\b\.?|\bvat\s+id\b",
            1.0,
        ),
    ],
}

# Words that title the document; a weak invoice-number label ("Invoice  4711").
DOCUMENT_TITLES = (r"invoice", r"credit note")
# A title followed by a number: what "dated …" / "of …" after it refers to.
NUMBERED_TITLES = ("invoice", "credit note")
# Words before "No." that make the number another document's.
OTHER_DOCUMENT = ("original", "referenced", "corrected", "previous", r"e-?way")
# "<word> No." that numbers something other than the invoice.
NUMBERED_NOT_INVOICE = ("order", "customer", "client", "tax", "vat", "account", "page", "contract")
# Context before a date label that makes the date another event's.
OTHER_DATE_CONTEXT = (
    "order", "deliver", "due", "payable", "period", "contract", "check", "start", "end", "version",
    "print", "birth", "expir", "valid",
)
# The weak date word ("Date: …") and what, following it, makes it another event's date.
DATE_WORDS = ("date", "dated")
DATE_PREPOSITIONS = (r"of\s+",)
DATE_ARTICLES = ()
OTHER_EVENTS = ("delivery", "payment", "order", "due", "expiry", "service")
# "Invoice No. 4711 dated 05.03.2024": the word linking a numbered title to its date.
DATE_CONNECTIVES = ("dated", "of")
# Tax words and total words, which combine across languages ("MwSt. total", "VAT gesamt").
TAX_ABBREVIATIONS = ("vat", "tax")
TOTAL_WORDS = ("total",)
SUM_WORDS = ()
# Qualifiers before a tax word that make a total net or gross ("total excl. VAT").
EXCLUDING = ("excl", "excluding", "exclusive", "plus", "before", "without", "ex", "w/o")
INCLUDING = ("incl", "including", "inclusive", "with")
# A line that starts with these words and a colon shows an example, not this invoice's values.
EXAMPLE_MARKERS = ("example", "sample", r"e\.g\.", r"for\s+example", r"for\s+instance")
CREDIT_NOTE_TITLES = (r"credit\s*note", r"credit\s+memo")
# A credit note's title over these words is a self-billed invoice (EN 16931's 389): an invoice.
SELF_BILLING = (r"self[\s-]*bill(?:ed|ing)",)
# Corrections: credit notes when they reduce what is owed (their totals say which).
CORRECTION_TITLES = (r"corrective\s+invoice", r"correction\s+invoice", r"corrected\s+invoice", r"invoice\s+correction")
# Context that puts a VAT id or a name in the buyer's or the seller's block.
BUYER_CONTEXT = (
    r"bill(?:ed)?\s+to", r"invoice\s+to", r"sold\s+to", r"ship\s+to", "customer", "client", "buyer",
    "recipient", "your",
)
SELLER_CONTEXT = ("seller", "supplier", "vendor", "our")
# Labels that head a party block at the start of a line ("Bill to:", "Seller").
SELLER_LABELS = (
    "seller", "vendor", "supplier", "from", r"sold\s+by", r"service\s+provider", r"issued\s+by",
    r"remit\s+to", r"invoice(?:d)?\s+by", r"billed\s+by", r"bill\s+from", r"invoice\s+from",
    "contractor",
)
BUYER_LABELS = (
    r"bill(?:ed)?\s+to", r"invoice\s+to", r"sold\s+to", "customer", "client", "buyer", "recipient",
)
# A row that starts with one of these closes the line-item table.
TOTALS_ROWS = (r"sub[\s-]?total", "total", r"tax\s+summary", r"vat\s+summary", r"net\s+total")
# A section heading after the items.
ITEM_SECTIONS = (r"allowances?", "charges", r"charge\s*:", r"payment\s+terms", r"notes?\b")
# The label of one line's net amount where an invoice prints its lines as blocks of labelled
# values rather than a table (an EN 16931 invoice rendered term by term: BT-131).
LINE_AMOUNT_LABELS = (r"(?:invoice\s+)?line\s+net\s+amount",)
# A row starting with these repeats the running sum of the items at a page break.
CARRIED_FORWARD = (
    r"carried\s+forward", r"brought\s+forward", r"carry\s+forward", "c/f", "b/f",
    r"balance\s+(?:carried|brought)\s+forward", r"transfer(?:red)?\s+from\s+previous\s+page",
)
# Words that mark a column's figures as including VAT.
GROSS_WORDS = ("gross",)
# A document-level allowance or charge, at the start of its row's label ("Discount 5 %",
# "Summe Zuschläge"): what takes the items' sum to the net total. The discount column's words
# name allowances too, and so does an agency's commission, which a broadcaster's invoice
# deducts from the gross billing of the spots to give what it is owed.
ALLOWANCES = (r"allowances?", r"rebates?", r"(?:agency\s+)?commission")
CHARGES = (r"surcharges?", r"charges?")
# A cash discount for early payment (EN 16931 leaves it out of the invoice's totals: the
# gross total stays, only what is paid in time is less): no document-level allowance.
CASH_DISCOUNTS = (
    r"cash\s+discount\w*", r"early[\s-]+payment", r"prompt\s+payment", r"settlement\s+discount\w*",
    r"(?:if|when)\s+paid\s+(?:within|by|before)",
)
# Line-item column headers, by the column they name.
COLUMN_HEADERS = {
    "vat_rate": (r"^(?:vat|tax|tax\s+rate|vat\s+rate|vat\s*%|tax\s*%)\b",),
    "quantity": (r"\b(?:qty|quantity|units?|hours)\b",),
    "unit_price": (r"\b(?:unit\s+price|unit\s+cost|rate|prices?)\b",),
    "net_amount": (
        r"\b(?:amount|line\s+total|total|subtotal|net|value|taxable(?:\s+(?:value|amount))?)\b",
    ),
    "unit_price_weak": (),
    "description": (r"\b(?:description|items?|products?|services?|materials?|article|details?)\b",),
    "vat_amount": (r"\b(?:vat|tax|gst)\s+amount\b|\bamount\s+of\s+(?:vat|tax)\b",),
    "gross_amount": (
        r"\b(?:amount|total|price)\s+(?:incl\.?|including|inc\.?|with)\s*(?:vat|tax|gst)\b"
        r"|\bgross(?:\s+amount)?\b",
    ),
    "discount": (r"\b(?:discount|disc\.?)(?!\w)",),
    "unit": (r"^(?:uom|u/m|unit\s+of\s+measure)$",),
}
# A first-page date on a line with these words is not taken as the issue date.
NOT_THE_ISSUE_DATE = ("deliver", "order", "due")
# Already paid: a gross total is then not the amount due.
PAID_WORDS = (
    "prepaid", r"already\s+paid", r"amount\s+paid", r"paid\s+amount", r"payment\s+received",
    "deposit", r"advance\s+payment",
)
# An earlier balance the amount due adds to this invoice's total ("Previous balance 80.00").
EARLIER_BALANCES = (
    r"previous\s+balance", r"prior\s+balance", r"outstanding\s+balance", r"balance\s+forward",
    r"past\s+due\s+(?:balance|amount)", "arrears",
)

# Company names: legal forms, what a name line never holds, sub-labels inside a party block.
LEGAL_FORMS = (
    r"inc\.?", "llc", r"ltd\.?", "limited", "plc", "llp", r"corp\.?", "corporation", r"co\.",
    r"pvt\.?\s+ltd\.?",
)
NOT_NAME = (
    "invoice", r"credit note", "page", "date", "tel", "telephone", "fax", "phone", r"e-?mail",
    "www", "http", "iban", "bic", "swift", "vat", "tax", "managing", "directors?", "capital",
    "bank", "account", "total", "amount", "stylesheet", "number", "gln", "gtin", "duns", "customer",
    r"client\s+id", "order", "reference", r"not\s+to\s+be", "contact", "address",
)
NAME_LABELS = ("name", "company")
# Words that say what kind of business a name is ("BISTRO & CAFE", "Law Firm", "Trading"), not
# which one: a line of only these completes the name printed over it.
TRADE_WORDS = (
    "bistro", "cafe", "coffee", "restaurant", "bar", "grill", "bakery", "kitchen", "catering",
    "hotel", "inn", "pharmacy", "store", "shop", "mart", "market", "supermarket", "trading",
    "traders", "enterprises?", "services?", "solutions", "consulting", "studio", "garage",
    "motors", "firm", "group", "company", "industries", "holdings", "international",
)
NOT_IN_BLOCK = (
    "number", r"nr\b", r"no\.", r"gln\b", r"gtin\b", r"id\b", r"customer\s+(?:no|number|id)",
    r"client\s+(?:no|id)", "account", r"tel\b", r"fax\b", r"e-?mail", "www", r"vat\b", r"tax\b",
    "address", "contact", "phone", r"ref\b",
)
PERSON_PREFIXES = ("attn", "c/o", "department", "dept")
ACCOUNT_HOLDER_LABELS = (r"account\s+(?:holder|name)", "beneficiary")
PAGE_TITLES = (
    "invoice", r"tax\s+invoice", r"credit\s+note", "receipt", r"payment\s+receipt", "copy",
    "duplicate", "original", r"retail\s+invoices?",
)
DELIVERY_LABELS = (r"ship(?:ping)?\s+to", r"deliver(?:y|ed)\s+(?:to|address)")
DECLARED_CAPITAL = ()
# The signature block: "For Muster Ltd" over "Authorised Signatory" names the issuer.
SIGNED_FOR = ("for",)
SIGNATORIES = (r"authori[sz]ed\s+signator(?:y|ies)", r"authori[sz]ed\s+signature")

# An amount in words opens with one of these ("Rs. Thirty Thousand one Hundred Eighty only").
_NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen"
                r"|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|lakh"
                r"|crore)\b")
# Words that name a currency, by ISO 4217 code.
CURRENCY_WORDS = {
    "EUR": (r"\beuros?\b",),
    "USD": (r"\bus\s*dollars?\b", r"\bu\.s\.\s*dollars?\b", r"\bus\$"),
    "INR": (r"\brupees?\b", r"\brs\.?[ ]?\d", r"\binr\b", rf"\brs\.?[ ]?{_NUMBER_WORD}"),
    "GBP": (r"\bpounds?\s+sterling\b",),
    # Malaysia's ringgit: "Total RM Including GST", "Amount (RM)", with the figure in its own cell
    "MYR": (r"\bringgit\b", r"\b(?:total|amount|jumlah)\s*\(?rm\)?(?=\s|$)"),
}
# Words a law or a paragraph is cited by: the number after one is the law's, never a document's.
LEGAL_REFERENCES = ("article", "section", "directive", "regulation")
