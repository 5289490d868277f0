"""Candidate generation: every value the page offers for every field, with its evidence.

:func:`find_candidates` is the one entry point: it reads only the geometry index (never the
source the lines came from) and scores nothing; the choice step (:mod:`..choice`) does that.
Line items (:mod:`.line_items`) are read apart, table by table.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..candidates import Candidate
from ..document import FIELD_NAMES
from ..geometry import DocText
from ..vocabulary import VOCABULARY as V
from .currency import currency_mentions
from .header_fields import first_date_candidates, label_candidates
from .page_values import page_value_candidates, tax_sum_candidates
from .parties import party_candidates
from .tax_ids import iban_candidates, vat_candidates


@dataclass
class DocumentFacts:
    credit_note: bool  # the first page titles the document a credit note
    paid_words: bool  # the document says something was paid already (deposit, prepaid, ...)
    declared_form: str | None = None  # "SARL au capital de …": the legal form stated apart
    # the figures of rows labelled as an earlier balance ("Offene Zahlungen 80,00"), which the
    # amount due adds to this invoice's gross total
    earlier_balances: tuple[Decimal, ...] = ()


@dataclass
class FoundCandidates:
    fields: dict[str, list[Candidate]]  # every field of FIELD_NAMES, in reading order per kind
    facts: DocumentFacts


CREDIT_NOTE_TITLE_LINES = 25  # the title is among the first lines of page 1


def is_credit_note(dt: DocText) -> bool:
    head = [dt.folded[i] for i in dt.by_page.get(1, [])[:CREDIT_NOTE_TITLE_LINES]]
    return any(V.credit_note_titles.search(t) for t in head)


def declared_form(dt: DocText) -> str | None:
    """French mentions state the legal form apart from the name ("SARL au capital de 120 000 €"):
    the company's name (dénomination) is then the printed name without that form."""
    m = next(filter(None, (rx.search(dt.full_folded) for rx in V.declared_capital)), None)
    return m.group(1) if m else None


def earlier_balances(dt: DocText) -> tuple[Decimal, ...]:
    """The last figure of every row whose label cell names an earlier balance."""
    out = []
    for i, folded in enumerate(dt.folded):
        if not V.earlier_balance.match(folded):
            continue
        figures = [a[0] for j in dt.row_of(i) for a in dt.amounts(j)]
        if figures:
            out.append(figures[-1])
    return tuple(out)


def find_candidates(dt: DocText) -> FoundCandidates:
    fields: dict[str, list[Candidate]] = {name: [] for name in FIELD_NAMES}
    for name, found in label_candidates(dt).items():
        fields[name].extend(found)
    fields["issue_date"].extend(first_date_candidates(dt))
    fields["currency"].extend(currency_mentions(dt))
    seller_vat, buyer_vat = vat_candidates(dt)
    fields["seller_vat_id"].extend(seller_vat)
    fields["buyer_vat_id"].extend(buyer_vat)
    fields["iban"].extend(iban_candidates(dt))
    parties = party_candidates(dt)
    fields["seller_name"].extend(parties.seller)
    fields["buyer_name"].extend(parties.buyer + parties.recipients)
    for name, found in page_value_candidates(dt).items():
        fields[name].extend(found)
    fields["tax_total"].extend(tax_sum_candidates(dt, fields["tax_total"]))
    facts = DocumentFacts(
        credit_note=is_credit_note(dt),
        paid_words=bool(V.paid_words.search(dt.full_folded)),
        declared_form=declared_form(dt),
        earlier_balances=earlier_balances(dt),
    )
    return FoundCandidates(fields, facts)
