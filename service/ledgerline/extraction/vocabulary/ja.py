"""Japanese vocabulary (data only; see the package docstring for what each name means).

Every phrase is a regular-expression fragment matched against *folded* text: folding takes the
voicing marks off kana ("ご請求" reads "こ請求"), so kana are written here without them. Japanese
puts no space between words, and OCR's words are joined without one (``ocr/lines.py``); a Han
character or kana is a word character, so phrases carry no ``\\b`` where a value may follow
unspaced ("請求日2017年…"). Dates are year first with 年月日 (``values/dates.py``), amounts
may close with 円 (``values/amounts.py``). Era dates (令和5年) are not read.
"""

MONTH_LOCALES = ()
MONTH_NAMES = ()

LABELS = {
    "invoice_number": [
        (r"請求書?(?:番号|no\.?|#)|インホイス番号|伝票番号", 1.0),
    ],
    "issue_date": [
        (r"請求(?:年月)?日|発行(?:年月)?日|請求書発行日|取引(?:年月)?日", 1.0),
    ],
    "due_date": [
        (r"(?:お)?支払(?:い)?期(?:日|限)|(?:お)?振込期(?:日|限)|振替日|支払予定日", 1.0),
    ],
    "gross_total": [
        (r"(?:こ)?請求金額|税込(?:合計|金額)|合計金額|総合計|合計\s*\(税込\)", 1.0),
        (r"合計", 0.6),
    ],
    "net_total": [
        (r"小計|税抜(?:合計|金額)|合計\s*\(税抜\)|本体(?:価格|金額)", 1.0),
    ],
    "tax_total": [
        (r"消費税(?:等)?(?:相当)?額|消費税(?:合計)?|税額", 1.0),
    ],
    "amount_due": [
        (r"(?:お)?支払(?:い)?金額|振替金額|(?:こ)?請求額", 1.0),
    ],
    "currency": [(r"通貨", 1.0)],
}

DOCUMENT_TITLES = (r"請求書", r"納品書兼請求書")
NUMBERED_TITLES = (r"請求書",)
DATE_WORDS = (r"日付",)
TAX_ABBREVIATIONS = (r"消費税",)
TOTAL_WORDS = (r"合計",)
CREDIT_NOTE_TITLES = (r"返金伝票", r"赤伝票")
BUYER_CONTEXT = (r"御中", r"(?:こ)?請求先", r"お客様")
SELLER_CONTEXT = (r"発行元", r"請求元")
SELLER_LABELS = (r"発行元", r"請求元")
BUYER_LABELS = (r"(?:こ)?請求先", r"宛先")
TOTALS_ROWS = (r"小計", r"合計", r"総合計")
COLUMN_HEADERS = {
    "vat_rate": (r"^税率",),
    "quantity": (r"数量",),
    "unit_price": (r"単価",),
    "net_amount": (r"^金額",),
    "description": (r"品名|品目|摘要|内容|商品名",),
    "vat_amount": (r"消費税額|税額",),
    "unit": (r"^単位$",),
}
LEGAL_FORMS = (r"株式会社", r"有限会社", r"合同会社", r"\(株\)", r"\(有\)")
# "株式会社ACME" as well as "ACME株式会社"
LEADING_LEGAL_FORMS = LEGAL_FORMS
NAME_LABELS = (r"会社名",)
PAGE_TITLES = (r"請求書", r"領収書")
# "1,616,650円", "日本円"
CURRENCY_WORDS = {
    "JPY": (r"(?<=\d)\s?円", r"日本円"),
}
