"""Whether a document read from its printed page can be taken without a person looking.

A document is taken as it is (``review.required`` false: straight-through processing) only when
every key field has a value whose confidence reaches that field's acceptance threshold — chosen
per field on out-of-source predictions so that no value that sure was wrong on a page whose
truth was read from it (stored with the ranker's model, :mod:`.ranker.confidence`) — every check of its values passes, and what the
document is (an invoice, a credit note) is sure. Otherwise every reason names the field and
what speaks against it, so that a person knows where to look. A credit note whose amounts are
not sure always asks for review: its amounts are money to pay back.

Documents read from e-invoice XML keep their own rules (exact values, the official checks).
"""

from __future__ import annotations

from decimal import Decimal

# The fields a finance team pays from: the key fields of the accuracy goals.
ACCEPT_FIELDS = (
    "invoice_number", "issue_date", "currency", "seller_name", "net_total", "tax_total",
    "gross_total",
)
CREDIT_NOTE_AMOUNTS = ("net_total", "tax_total", "gross_total", "amount_due")
# What the document is must be this sure (a credit note's or an invoice's title printed).
DOCUMENT_TYPE_SURE = 0.9
NO_THRESHOLD = 1.01  # a field the model has no threshold for is never taken unseen
# What an invoice that states one total and no VAT does not state.
NO_VAT_ABSENT = ("net_total", "tax_total")


def reasons_to_look(fields: dict, thresholds: dict, notes: dict | None = None, *,
                    no_vat: bool = False) -> list[str]:
    """The reasons a person must look at a document read from its page, beyond its failed
    checks (:func:`..validation.apply_to_confidence` says those): none, and it is taken.
    ``no_vat``: the page states one total and no VAT at all, so its net and VAT totals are
    rightly absent (``ranker.stated.states_no_vat``)."""
    notes = notes or {}
    out = []
    for name in ACCEPT_FIELDS:
        entry = fields[name]
        if entry["value"] is None:
            if not (no_vat and name in NO_VAT_ABSENT) and not _may_be_absent(name, fields):
                # a value found but withheld says what was found and why it is not given
                out.append(f"{name}: {notes.get(name) or 'not found on the invoice'}")
            continue
        needed = thresholds.get(name, NO_THRESHOLD)
        if entry["confidence"] < needed:
            why = f"; {notes[name]}" if notes.get(name) else ""
            got, bar = _apart(entry["confidence"], min(needed, 1.0))
            out.append(f"{name}: confidence {got} is below the {bar} it needs to be taken "
                       f"without review{why}")
    kind = fields["document_type"]
    if kind["value"] is None or kind["confidence"] < DOCUMENT_TYPE_SURE:
        raw = f" ({kind['raw']!r})" if kind["raw"] else ""
        out.append(f"document_type: {kind['value'] or 'unknown'}{raw} is not sure "
                   f"(confidence {kind['confidence']:.2f})")
    if kind["value"] == "credit_note":
        unsure = [f"{n} {fields[n]['confidence']:.2f}" for n in CREDIT_NOTE_AMOUNTS
                  if fields[n]["value"] is not None
                  and fields[n]["confidence"] < thresholds.get(n, NO_THRESHOLD)]
        if unsure:
            out.append("credit note: its amounts, owed to the recipient, cannot be read with "
                       f"confidence ({', '.join(unsure)})")
    return out


def _may_be_absent(name: str, fields: dict) -> bool:
    """No VAT printed on an invoice whose net and gross totals are the same: no tax at all."""
    if name != "tax_total":
        return False
    net, gross = fields["net_total"]["value"], fields["gross_total"]["value"]
    return net is not None and gross is not None and Decimal(net) == Decimal(gross)


# A printed amount with no decimals and this many digits is more likely an identifier (a tax or
# bank number, a postbox, the invoice number) than a total.
IDENTIFIER_DIGITS = 7
CONTRADICTION_PENALTY = 0.5  # what a contradiction leaves of the confidences it involves


def contradictions(fields: dict) -> list[str]:
    """Values that contradict the rest of the page: each lowers its field's confidence and
    names the field and what speaks against it."""
    out = []
    seller, buyer = fields["seller_vat_id"], fields["buyer_vat_id"]
    if seller["value"] is not None and seller["value"] == buyer["value"]:
        for entry in (seller, buyer):
            entry["confidence"] = round(entry["confidence"] * CONTRADICTION_PENALTY, 3)
        out.append(f"seller_vat_id: equals the buyer's VAT id ({seller['value']}): one of them "
                   "belongs to the other party")
    numbers = {fields[n]["value"] for n in ("invoice_number", "purchase_order", "seller_vat_id",
                                           "buyer_vat_id", "iban") if fields[n]["value"]}
    for name in ("net_total", "tax_total", "gross_total", "amount_due"):
        entry = fields[name]
        raw = (entry["raw"] or "").strip()
        digits = sum(c.isdigit() for c in raw)
        if entry["value"] is None or not raw:
            continue
        if (raw.lstrip("-").isdigit() and digits >= IDENTIFIER_DIGITS) or raw in numbers:
            entry["confidence"] = round(entry["confidence"] * CONTRADICTION_PENALTY, 3)
            out.append(f"{name}: {raw!r} looks like an identifier, not an amount (no decimals, "
                       f"{digits} digits)" if raw not in numbers else
                       f"{name}: {raw!r} is printed as an identifier of the invoice")
    return out


def _apart(confidence: float, needed: float) -> tuple[str, str]:
    """Both figures with two decimals, or as many more as it takes to tell them apart (0.990
    against 0.9901 read "0.99 is below the 0.99")."""
    for digits in (2, 3, 4):
        got, bar = f"{confidence:.{digits}f}", f"{needed:.{digits}f}"
        if got != bar:
            return got, bar
    return got, bar
