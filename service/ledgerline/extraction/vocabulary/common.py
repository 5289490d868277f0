"""Language-neutral vocabulary: number signs, abbreviations every invoice language shares, and
the percent-sign column header (data only; see the package docstring)."""

# "No", "Nr", "N°", "#", "Nummer", "Number", "Num", "Id" after a label: the number sign of a label.
NUMBER_SIGN = r"(?:n(?:o|r|um|umber|ummer|°|º|\.)?\.?|#|nummer|number|num|id)"

LABELS = {
    "invoice_number": [
        # a bare "Nr. 4711" / "No: RE-12" at the start of a line
        (r"^(?:nr|no|n[°o])(?![a-z])\.?(?=\s*[:#]?\s*[a-z0-9])", 0.5),
        # "<word> Nr. 4711": weak, unless the word numbers something else ("Kunden Nr.")
        (
            r"(?<=[a-z)])\s+(?:nr|no)\.(?=\s*[a-z0-9])",
            0.35,
            {"not_before": "numbered_not_invoice"},
        ),
    ],
    "iban": [(r"\biban\b", 1.0)],
}

NUMBERED_NOT_INVOICE = ("tel", "fax", "iban", "pos")
COLUMN_HEADERS = {"vat_rate": (r"^%\b", r"^(?:\w+\s)?%$")}
# "§ 19", "Art. 21", "artt. 6 e 7": a citation in every language.
LEGAL_REFERENCES = ("§", "art", "artt")
