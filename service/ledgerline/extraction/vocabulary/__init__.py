"""The words invoices are read by: one data module per language, compiled here into patterns.

Each language module (``en.py``, ``de.py``, ``fr.py``, ``es.py``, ``nl.py``, ``it.py``, ``pl.py``,
``cs.py``, ``pt.py``, ``sv.py``, ``da.py``, ``no.py``, ``fi.py``, and the languages OCR reads by
script, ``ja.py`` and ``zh.py``, whose phrases carry no ``\b`` where a value follows unspaced) holds
data only: tuples of phrases, written as regular-expression fragments against *folded* text
(lower case, accents removed, see :func:`ledgerline.extraction.text.fold`). ``common.py`` holds
what every language shares (number signs, the percent column). :func:`load` joins the phrases of
all languages per purpose and compiles them once, at import, into :data:`VOCABULARY`; the finders
read only that. Month names come from CLDR (babel) for the locales a module names in
``MONTH_LOCALES``, plus the spellings CLDR lacks in ``MONTH_NAMES``.

What the names of a language module hold (every one optional; ``en.py`` defines them all):

- ``LABELS``: field -> list of ``(pattern, weight)`` or ``(pattern, weight, condition)``; the
  weight says how specific the label is (1.0: it names the field; lower: it only hints), the
  condition (``{"before": name}`` / ``{"not_before": name}``) asks the text read before a label
  at the start of a line to match, or not to match, a context pattern: ``numbered_title``,
  ``other_document``, ``numbered_not_invoice`` or ``other_date_context``.
- ``DOCUMENT_TITLES``, ``NUMBERED_TITLES``, ``OTHER_DOCUMENT``, ``NUMBERED_NOT_INVOICE``,
  ``OTHER_DATE_CONTEXT``: the document's title words and the context words of those conditions.
- ``DATE_WORDS``, ``DATE_PREPOSITIONS``, ``DATE_ARTICLES``, ``OTHER_EVENTS``,
  ``DATE_CONNECTIVES``: the weak date labels ("Date:", "Rechnung Nr. 5 vom …"), which combine
  across languages.
- ``TAX_ABBREVIATIONS``, ``TOTAL_WORDS``, ``SUM_WORDS``, ``EXCLUDING``, ``INCLUDING``: the words of
  totals labels that combine across languages ("MwSt. total", "Summe zzgl. USt.").
- ``CREDIT_NOTE_TITLES``, ``CORRECTION_TITLES`` (a corrective invoice: a credit note when its totals
  are negative), ``SELF_BILLING`` (a "Gutschrift" that is a self-billed invoice),
  ``EXAMPLE_MARKERS`` (a line or block the page marks as an example), ``PAID_WORDS``, ``EARLIER_BALANCES`` (a balance of earlier invoices the
  amount due adds to this one's total); ``BUYER_CONTEXT``, ``SELLER_CONTEXT``, ``SELLER_LABELS``,
  ``BUYER_LABELS``: party blocks; ``LEGAL_FORMS``, ``LEADING_LEGAL_FORMS`` (those of them that
  may be printed before the name too: "SARL Dupont"; every other follows it), ``NOT_NAME``,
  ``NAME_LABELS``, ``NOT_IN_BLOCK``, ``PERSON_PREFIXES``, ``TRADE_WORDS`` (the kind of business a
  name line says: "BISTRO & CAFE" completes the name over it), ``ACCOUNT_HOLDER_LABELS``,
  ``PAGE_TITLES``, ``DELIVERY_LABELS``,
  ``DECLARED_CAPITAL``: company names; ``SIGNED_FOR``, ``SIGNATORIES``: the signature block
  that names the issuer ("For Muster Ltd" over "Authorised Signatory").
- ``TOTALS_ROWS``, ``ITEM_SECTIONS``, ``CARRIED_FORWARD``, ``GROSS_WORDS``, ``COLUMN_HEADERS``,
  ``LINE_AMOUNT_LABELS``: line-item tables
  (a row starting with a totals word closes the table, a section heading after the items too; a
  row starting with a carried-forward word repeats the running sum at a page break; a line naming
  a description or quantity column is an item-table header; a column header with a gross word,
  or a tax word with an including word, prints figures that include VAT). ``COLUMN_HEADERS``
  maps each kind of :data:`COLUMN_KINDS` to the header words of that column; a line amount label
  names one line's net amount where the lines are printed as blocks of labelled values.
- ``ALLOWANCES``, ``CHARGES``: the first words of a row that prints a document-level allowance
  (besides the discount column's words) or charge, after a total or sum word or none ("Discount
  5 %", "Summe Zuschläge"): what takes the sum of the items to the net total;
  ``CASH_DISCOUNTS``: a discount for paying early ("Skonto", "escompte"), which is none of them.
- ``NOT_THE_ISSUE_DATE``; ``CURRENCY_WORDS``: ISO code -> phrases; ``LEGAL_REFERENCES``: the
  words a law or its paragraph is cited by ("DPR", "Art.", "§"), whose numbers are no
  document's.

Adding a language: copy ``en.py`` to ``<ISO 639-1 code>.py``, translate every tuple (leave out
what the language does not have), name its CLDR locales in ``MONTH_LOCALES``, add its row to
the language registry (``extraction/languages.py``, which says what else a language needs), add
its labels to the cases of ``test_label_vocabulary`` in
``tests/unit/extraction/test_extraction_labels.py`` and a generated invoice in that language to
``tests/unit/extraction/test_extraction_documents.py`` (``test_extraction_vocabulary.py`` then
checks that it loads and labels the key fields). Nothing else changes: the finders read only
the compiled :data:`VOCABULARY`. Adding a language changes ``MODEL_CONFIG["languages"]`` and so
the cache key, as it should: the same PDF may then read differently.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from types import ModuleType

from babel import Locale

from ..languages import VOCABULARY_ORDER
from ..text import CJK_CLASS, fold

LABEL_CONTEXTS = ("numbered_title", "other_document", "numbered_not_invoice", "other_date_context")
# The columns of a line-item table a header cell may name; "unit_price_weak" is a word that names
# the unit price only where nothing more specific does ("Preis", "prix").
COLUMN_KINDS = (
    "vat_rate",
    "unit_price",
    "quantity",
    "net_amount",
    "unit_price_weak",
    "description",
    "vat_amount",
    "gross_amount",
    "discount",
    "unit",
)
# Where a language's data module names something the loader does not know, it is a typo.
KNOWN_NAMES = frozenset(
    """MONTH_LOCALES MONTH_NAMES LABELS DOCUMENT_TITLES NUMBERED_TITLES OTHER_DOCUMENT
    NUMBERED_NOT_INVOICE OTHER_DATE_CONTEXT DATE_WORDS DATE_PREPOSITIONS DATE_ARTICLES
    OTHER_EVENTS DATE_CONNECTIVES TAX_ABBREVIATIONS TOTAL_WORDS SUM_WORDS EXCLUDING INCLUDING
    CREDIT_NOTE_TITLES CORRECTION_TITLES SELF_BILLING EXAMPLE_MARKERS BUYER_CONTEXT SELLER_CONTEXT SELLER_LABELS BUYER_LABELS TOTALS_ROWS
    ITEM_SECTIONS CARRIED_FORWARD GROSS_WORDS COLUMN_HEADERS LINE_AMOUNT_LABELS ALLOWANCES CHARGES
    CASH_DISCOUNTS
    NOT_THE_ISSUE_DATE PAID_WORDS
    EARLIER_BALANCES LEGAL_FORMS LEADING_LEGAL_FORMS NOT_NAME NAME_LABELS NOT_IN_BLOCK
    PERSON_PREFIXES TRADE_WORDS
    ACCOUNT_HOLDER_LABELS PAGE_TITLES DELIVERY_LABELS DECLARED_CAPITAL SIGNED_FOR SIGNATORIES
    CURRENCY_WORDS NUMBER_SIGN LEGAL_REFERENCES""".split()
)


@dataclass(frozen=True, slots=True)
class Label:
    """One compiled label pattern of a field."""

    pattern: re.Pattern
    weight: float
    language: str  # a language code, or "*" for labels built from every language's words
    before: re.Pattern | None = None  # the text before the label must match this ...
    not_before: re.Pattern | None = None  # ... and must not match this


@dataclass(frozen=True)
class Vocabulary:
    languages: tuple[str, ...]
    labels: dict[str, tuple[Label, ...]]
    contexts: dict[str, re.Pattern]
    excluding: re.Pattern
    including: re.Pattern
    tax_included: re.Pattern  # "inkl. MwSt.", "incl. VAT", "s DPH": a figure that includes VAT
    credit_note_titles: re.Pattern
    correction_titles: re.Pattern
    self_billing: re.Pattern
    example: re.Pattern  # a line that starts with it shows an example ("Example:", "z. B.:")
    invoice_titles: re.Pattern  # the document titles, an invoice's among them
    # a word a document title begins ("Factuurnummer", "Rechnungsdatum", "Kreditnotanummer")
    title_compounds: re.Pattern
    credit_note_compounds: re.Pattern
    paid_words: re.Pattern
    earlier_balance: re.Pattern  # a label cell that starts with it prints an earlier balance
    buyer_context: re.Pattern
    seller_context: re.Pattern
    seller_label: re.Pattern
    buyer_label: re.Pattern
    # a party label at the start of a line with the name glued to it ("REMIT TO Muster Inc")
    seller_label_lead: re.Pattern
    buyer_label_lead: re.Pattern
    totals_row: re.Pattern
    item_section: re.Pattern
    carried_forward: re.Pattern
    column_headers: dict[str, re.Pattern]
    line_amount_label: re.Pattern  # "Gesamtpreis (netto)": one line's net amount, labelled
    allowance_label: re.Pattern  # "Discount 5 %", "Nachlass": a row deducting from the items' sum
    charge_label: re.Pattern  # "Surcharge", "Summe Zuschläge": a row adding to it
    # "Skonto", "escompte", "cash discount": a discount for paying early, which leaves the
    # invoice's totals as they are (no allowance)
    cash_discount: re.Pattern
    item_table_header: re.Pattern
    not_the_issue_date: re.Pattern
    legal_form: re.Pattern
    leading_legal_form: re.Pattern  # a legal form that may be printed before the name
    not_name: re.Pattern
    name_label: re.Pattern
    not_in_block: re.Pattern
    person_prefix: re.Pattern
    trade_word: re.Pattern  # a word that says what kind of business a name is ("cafe", "firm")
    account_holder_label: re.Pattern
    page_title: re.Pattern
    delivery_label: re.Pattern
    declared_capital: tuple[re.Pattern, ...]
    signed_for: re.Pattern  # "For " before the issuer's name in the signature block
    signatory: re.Pattern  # "Authorised Signatory" under it
    currency_words: tuple[tuple[re.Pattern, str], ...]
    months: dict[str, int]
    # the text before a number ends with a law's citation: "del DPR", "art.", "§", "Abs."
    legal_reference: re.Pattern


def _alt(phrases) -> str:
    """One alternation of the phrases, in order; a pattern that never matches when empty."""
    phrases = list(dict.fromkeys(phrases))
    return "|".join(phrases) if phrases else "(?!)"


class _Languages:
    """The data modules of the chosen languages, read name by name in language order."""

    def __init__(self, languages: tuple[str, ...]):
        self.codes = languages
        self.modules: list[tuple[str, ModuleType]] = [
            (code, importlib.import_module(f"{__name__}.{code}")) for code in languages
        ]
        self.common = importlib.import_module(f"{__name__}.common")
        for code, module in [*self.modules, ("common", self.common)]:
            unknown = {
                n
                for n in vars(module)
                if n.isupper() and not n.startswith("_") and n not in KNOWN_NAMES
            }
            if unknown:
                raise ValueError(f"vocabulary {code}: unknown names {sorted(unknown)}")

    def phrases(self, name: str, *, common: bool = False) -> list[str]:
        mods = [m for _, m in self.modules] + ([self.common] if common else [])
        return [p for m in mods for p in getattr(m, name, ())]

    def alt(self, name: str, *, common: bool = False) -> str:
        return _alt(self.phrases(name, common=common))


def _contexts(lang: _Languages) -> dict[str, re.Pattern]:
    signs = r"(?:n[o°º]?|nr|#|no|nummer|number|numero)"
    return {
        # "Rechnung Nr. 4711 vom 05.03.2018", "Facture n° 12 du 13/11/2017": a numbered title
        "numbered_title": re.compile(
            rf"(?:{lang.alt('NUMBERED_TITLES')})[^\n]{{0,12}}?{signs}?[.:]?\s*[a-z0-9][\w/.-]*\s*$"
            r"|(?:^|\s)(?:nr|no|n[°o])\.?\s*[a-z0-9][\w/.-]*\s*$"
        ),
        # numbers of other documents: "original invoice no.", "Ursprungsrechnung Nr."
        "other_document": re.compile(rf"(?:{lang.alt('OTHER_DOCUMENT')})\s*$"),
        # "<word> Nr." that numbers something other than the invoice
        "numbered_not_invoice": re.compile(
            rf"(?:{lang.alt('NUMBERED_NOT_INVOICE', common=True)})\w*$"
        ),
        # dates that are not the issue date
        "other_date_context": re.compile(
            rf"(?:{lang.alt('OTHER_DATE_CONTEXT')})[\w.-]*\s*"
            r"(?:(?:nr|no|n[°o]|#)\.?\s*[\w/.-]*\d[\w/.-]*\s*)?[:]?\s*$"
        ),
    }


def _label(entry: tuple, language: str, contexts: dict, number_sign: str) -> Label:
    pattern, weight = entry[0], entry[1]
    condition = entry[2] if len(entry) > 2 else {}
    for key, name in condition.items():
        if key not in ("before", "not_before") or name not in LABEL_CONTEXTS:
            raise ValueError(f"vocabulary {language}: unknown label condition {key}={name}")
    return Label(
        re.compile(pattern.replace("{number}", number_sign)),
        weight,
        language,
        contexts.get(condition.get("before")),
        contexts.get(condition.get("not_before")),
    )


def _combined_labels(lang: _Languages, contexts: dict) -> dict[str, list[Label]]:
    """Labels whose words combine across languages, after every language's own labels."""
    events = (
        rf"(?!\s*(?:{lang.alt('DATE_PREPOSITIONS')})?(?:(?:{lang.alt('DATE_ARTICLES')})\s+)?"
        rf"(?:{lang.alt('OTHER_EVENTS')}))"
    )
    total_words = lang.phrases("TOTAL_WORDS")
    return {
        "invoice_number": [
            Label(re.compile(rf"\b(?:{lang.alt('DOCUMENT_TITLES')})\b"), 0.45, "*"),
        ],
        "issue_date": [
            # "Date: …" / "Datum …" unless it is the date of another event
            Label(
                re.compile(rf"(?<![-\w])(?:{lang.alt('DATE_WORDS')})\b{events}"),
                0.55,
                "*",
                not_before=contexts["other_date_context"],
            ),
            # "Rechnung Nr. 4711 vom 05.03.2018": a connective after a numbered title
            Label(
                re.compile(rf"\b(?:{lang.alt('DATE_CONNECTIVES')})\b"),
                0.6,
                "*",
                before=contexts["numbered_title"],
                not_before=contexts["other_date_context"],
            ),
        ],
        "tax_total": [
            Label(
                re.compile(
                    rf"\b(?:{lang.alt('TAX_ABBREVIATIONS')})\.?\s*(?:{_alt(total_words)})\b"
                ),
                1.0,
                "*",
            ),
        ],
        "gross_total": [
            Label(
                re.compile(rf"\b(?:{_alt(total_words + lang.phrases('SUM_WORDS'))})\b"), 0.5, "*"
            ),
        ],
    }


def _labels(lang: _Languages, contexts: dict) -> dict[str, tuple[Label, ...]]:
    number_sign = lang.common.NUMBER_SIGN
    out: dict[str, list[Label]] = {}
    for code, module in lang.modules:
        for field, entries in getattr(module, "LABELS", {}).items():
            out.setdefault(field, []).extend(
                _label(e, code, contexts, number_sign) for e in entries
            )
    for field, labels in _combined_labels(lang, contexts).items():
        out.setdefault(field, []).extend(labels)
    for field, entries in lang.common.LABELS.items():
        out.setdefault(field, []).extend(_label(e, "*", contexts, number_sign) for e in entries)
    return {field: tuple(labels) for field, labels in out.items()}


def _column_headers(lang: _Languages) -> dict[str, re.Pattern]:
    headers = {}
    for kind in COLUMN_KINDS:
        fragments = [
            f
            for m in [*(m for _, m in lang.modules), lang.common]
            for f in getattr(m, "COLUMN_HEADERS", {}).get(kind, ())
        ]
        headers[kind] = re.compile(_alt(fragments))
    return headers


def _adjustment_label(lang: _Languages, words: list[str]) -> re.Pattern:
    """A row's label that starts with one of ``words``, after a total or sum word or none."""
    lead = _alt(lang.phrases("TOTAL_WORDS") + lang.phrases("SUM_WORDS"))
    return re.compile(rf"^(?:(?:{lead})\s+)?(?:{_alt(words)})(?!\w)")


def _item_table_header(headers: dict[str, re.Pattern]) -> re.Pattern:
    """A description or a quantity column header: the header row of a line-item table."""
    return re.compile(f"{headers['description'].pattern}|{headers['quantity'].pattern}")


def _currency_words(lang: _Languages) -> tuple[tuple[re.Pattern, str], ...]:
    by_code: dict[str, list[str]] = {}
    for _, module in lang.modules:
        for code, phrases in getattr(module, "CURRENCY_WORDS", {}).items():
            by_code.setdefault(code, []).extend(phrases)
    return tuple((re.compile(_alt(p)), code) for code, p in by_code.items())


def _months(lang: _Languages) -> dict[str, int]:
    """Month names, wide and abbreviated, as CLDR writes them and without their accents."""
    months: dict[str, int] = {}
    for _, module in lang.modules:
        for locale in getattr(module, "MONTH_LOCALES", ()):
            names = Locale.parse(locale).months
            for context in ("format", "stand-alone"):
                for width in ("wide", "abbreviated"):
                    for number, name in names[context][width].items():
                        name = name.lower().rstrip(".")
                        months.setdefault(name, number)
                        months.setdefault(fold(name), number)
        for name, number in getattr(module, "MONTH_NAMES", ()):
            months.setdefault(name, number)
    return months


# A party label heading its block: "Seller", "Bill to:", and bilingual labels with the other
# language's word before a slash or the translation after it ("Szállító/Sold by",
# "Dodavatel (Supplier):", "Vevő/Client"); or the last word of a short heading of the block
# ("Informationen zum Verkäufer", "Details of the buyer"). Such a heading opens with a word of
# four letters or more: an article and a party word ("LE CLIENT" under "Adresse du Client") is
# the placeholder name a sample invoice prints where the party's name goes, not a heading. A
# label framed by a rule of signs ("=========== BILLED TO ===========") is the label.
_FRAME = r"[=*_~#-]{{3,}}"
_PARTY_LABEL = (
    r"^(?:" + _FRAME + r"\s*)?(?:[^\W\d_]{{2,20}}\s*/\s*"
    r"|[^\W\d_]{{4,20}}\s+(?:[^\W\d_]{{2,20}}\s+){{0,2}}(?=(?:{0})\s*:?\s*$))?"
    r"(?:{0})\b(?:\s*\([^)]{{1,30}}\)|\s*/\s*[^\W\d_][^:/]{{0,30}}?)?"
    r"(?:\s*" + _FRAME + r")?\s*(?::\s*|$)"
)


def load(languages: tuple[str, ...] = VOCABULARY_ORDER) -> Vocabulary:
    """Compile the vocabulary of these languages."""
    lang = _Languages(languages)
    contexts = _contexts(lang)
    headers = _column_headers(lang)

    def rx(frame: str, name: str) -> re.Pattern:
        return re.compile(frame.format(lang.alt(name)))

    return Vocabulary(
        languages=languages,
        labels=_labels(lang, contexts),
        contexts=contexts,
        excluding=rx(r"(?:{})\.?\s*\(?\s*$", "EXCLUDING"),
        including=rx(r"(?:{})\.?\s*\(?\s*$", "INCLUDING"),
        tax_included=re.compile(
            rf"(?:{lang.alt('INCLUDING')})\.?\s*(?:{lang.alt('TAX_ABBREVIATIONS')})\b"
            rf"|\b(?:{lang.alt('TAX_ABBREVIATIONS')})\.?\s*(?:{lang.alt('INCLUDING')})\b"
            rf"|\b(?:{lang.alt('GROSS_WORDS')})\b"
        ),
        credit_note_titles=rx(r"\b(?:{})\b", "CREDIT_NOTE_TITLES"),
        correction_titles=rx(r"\b(?:{})\b", "CORRECTION_TITLES"),
        self_billing=rx(r"\b(?:{})\b", "SELF_BILLING"),
        example=rx(r"^[\s(\[*]*(?:{})\s*(?::|\)|\]|$)", "EXAMPLE_MARKERS"),
        invoice_titles=rx(r"\b(?:{})\b", "DOCUMENT_TITLES"),
        title_compounds=rx(r"\b(?:{})(?=[^\W\d_])", "DOCUMENT_TITLES"),
        credit_note_compounds=rx(r"\b(?:{})(?=[^\W\d_])", "CREDIT_NOTE_TITLES"),
        paid_words=rx(r"\b(?:{})\b", "PAID_WORDS"),
        earlier_balance=rx(r"^(?:{})\b", "EARLIER_BALANCES"),
        buyer_context=rx(r"\b(?:{})\b", "BUYER_CONTEXT"),
        seller_context=rx(r"\b(?:{})\b", "SELLER_CONTEXT"),
        seller_label=rx(_PARTY_LABEL, "SELLER_LABELS"),
        buyer_label=rx(_PARTY_LABEL, "BUYER_LABELS"),
        seller_label_lead=rx(r"^(?:{})\b\s*:?\s*(?=\S)", "SELLER_LABELS"),
        buyer_label_lead=rx(r"^(?:{})\b\s*:?\s*(?=\S)", "BUYER_LABELS"),
        totals_row=rx(r"^(?:{})\b", "TOTALS_ROWS"),
        item_section=rx(r"^(?:{})", "ITEM_SECTIONS"),
        carried_forward=rx(r"^(?:{})(?!\w)", "CARRIED_FORWARD"),
        column_headers=headers,
        line_amount_label=rx(r"^(?:{})(?!\w)", "LINE_AMOUNT_LABELS"),
        allowance_label=_adjustment_label(
            lang, lang.phrases("ALLOWANCES") + [headers["discount"].pattern]
        ),
        charge_label=_adjustment_label(lang, lang.phrases("CHARGES")),
        cash_discount=rx(r"\b(?:{})", "CASH_DISCOUNTS"),
        item_table_header=_item_table_header(headers),
        not_the_issue_date=rx(r"(?:{})", "NOT_THE_ISSUE_DATE"),
        # a Chinese or Japanese legal form is written glued to the name ("…高速公路有限公司")
        legal_form=rx(r"(?:(?:\b|(?=[" + CJK_CLASS + r"]))(?:{})(?=$|[\s,.)]))", "LEGAL_FORMS"),
        leading_legal_form=rx(r"(?:{})", "LEADING_LEGAL_FORMS"),
        not_name=rx(r"\b(?:{})\b|@|\(c\)", "NOT_NAME"),
        # "Company: Muster Ltd", "Firma Muster GmbH", never the name "Company, LLC"
        # longest first and whole words: "nome:" is not "nom" and "e:", "firmanavn" not "firma"
        name_label=re.compile(
            rf"^(?:{_alt(sorted(lang.phrases('NAME_LABELS'), key=len, reverse=True))})\b"
            r"\s*:?\s*(?![\s,.&])"
        ),
        not_in_block=rx(r"^(?:{})", "NOT_IN_BLOCK"),
        person_prefix=rx(r"^(?:{})\b", "PERSON_PREFIXES"),
        trade_word=rx(r"(?:{})", "TRADE_WORDS"),
        account_holder_label=rx(r"\b(?:{})\s*:?\s*", "ACCOUNT_HOLDER_LABELS"),
        page_title=rx(r"^(?:{})\b", "PAGE_TITLES"),
        delivery_label=rx(r"\b(?:{})\b", "DELIVERY_LABELS"),
        declared_capital=tuple(re.compile(p) for p in lang.phrases("DECLARED_CAPITAL")),
        signed_for=rx(r"^(?:{})\s+(?=\S)", "SIGNED_FOR"),
        signatory=rx(r"\b(?:{})\b", "SIGNATORIES"),
        currency_words=_currency_words(lang),
        months=_months(lang),
        legal_reference=re.compile(
            rf"(?:^|[^\w.])(?:{lang.alt('LEGAL_REFERENCES', common=True)})\.?\s*"
            r"(?:n[°o.]?\s*)?$"
        ),
    )


def __getattr__(name: str):
    # VOCABULARY is compiled on first use, not on import (a subset's load() needs none of it):
    # CLDR month names take tens of milliseconds to load.
    if name == "VOCABULARY":
        globals()["VOCABULARY"] = vocab = load()
        return vocab
    raise AttributeError(name)
