"""Chinese vocabulary, simplified script (data only; see the package docstring for what each
name means).

Chinese puts no space between words, and OCR's words are joined without one
(``ocr/lines.py``); a Han character is a word character, so phrases carry no ``\\b`` where a
value may follow unspaced ("开票日期2018年…"). A VAT invoice (发票) prints its buyer (购买方)
and seller (销售方) as blocks of 名称 / 纳税人识别号 lines, its items' net sum and tax on the
合计 row and the total with tax on the 价税合计 row, in words (大写) and in figures (小写).
Dates are year first with 年月日 (``values/dates.py``), amounts may close with 元
(``values/amounts.py``).
"""

MONTH_LOCALES = ()
MONTH_NAMES = ()

LABELS = {
    "invoice_number": [
        (r"发票号码|发票号|票据号码|单据号", 1.0),
    ],
    "issue_date": [
        (r"开票日期|发票日期|开具日期|填开日期", 1.0),
    ],
    "due_date": [
        (r"付款期限|到期日|付款日期", 1.0),
    ],
    "gross_total": [
        (r"价税合计|含税金额|总金额|总计", 1.0),
        (r"\(?小写\)?", 0.8),
    ],
    "net_total": [
        (r"不含税金额|金额合计|税前金额|小计", 1.0),
    ],
    "tax_total": [
        (r"税额合计|税额|增值税额|税金", 1.0),
    ],
    "amount_due": [
        (r"应付金额|应付总额|应收金额", 1.0),
    ],
    "currency": [(r"币种|货币", 1.0)],
}

DOCUMENT_TITLES = (r"发票", r"增值税(?:电子)?(?:普通|专用)发票")
NUMBERED_TITLES = (r"发票",)
OTHER_DOCUMENT = (r"代码",)
DATE_WORDS = (r"日期",)
OTHER_DATE_CONTEXT = (r"通行", r"到期", r"付款")
TAX_ABBREVIATIONS = (r"税",)
TOTAL_WORDS = (r"合计",)
CREDIT_NOTE_TITLES = (r"红字发票",)
BUYER_CONTEXT = (r"购买方", r"购方", r"买方")
SELLER_CONTEXT = (r"销售方", r"销方", r"卖方")
SELLER_LABELS = (r"销售方", r"卖方")
BUYER_LABELS = (r"购买方", r"买方")
TOTALS_ROWS = (r"合计", r"价税合计", r"小计", r"总计")
COLUMN_HEADERS = {
    "vat_rate": (r"^税率",),
    "quantity": (r"数量",),
    "unit_price": (r"单价",),
    "net_amount": (r"^金额",),
    "description": (r"项目名称|货物或应税劳务(?:、服务)?名称|品名|商品名称",),
    "vat_amount": (r"税额",),
    "unit": (r"^单位$",),
}
LEGAL_FORMS = (r"股份有限公司", r"有限责任公司", r"有限公司", r"集团公司")
NOT_NAME = (r"识别号", r"开户行", r"账号", r"地址", r"电话", r"密码区")
# A form's two-character labels are printed letter-spaced ("名　　称"), and OCR may cut the
# first character off into a cell of its own: "称 :" opening a cell is the label's second half.
NAME_LABELS = (r"名\s*称", r"称(?=\s*:)")
PAGE_TITLES = (r"发票", r"收据")
# "¥286.23" with "元" or "人民币" on the page; "伍拾元整" in words
CURRENCY_WORDS = {
    "CNY": (r"人民币", r"(?<=\d)\s?元", r"元整", r"\brmb\b"),
}
