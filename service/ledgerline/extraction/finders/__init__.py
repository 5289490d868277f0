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
from ..document_type import credit_titled
from ..geometry import DocText
from ..vocabulary import VOCABULARY as V
from .currency import currency_mentions
from .header_fields import first_date_candidates, label_candidates
from .page_values import page_value_candidates, tax_sum_candidates
from .parties import party_candidates
from .tax_ids import iban_candidates, vat_candidates


@dataclass
class DocumentFacts:
    # the first page titles the document a credit note or a correction: its amounts are read as
    # magnitudes, their sign is the document type's (..document_type)
    credit_note: bool
    paid_words: bool  # the document says something was paid already (deposit, prepaid, ...)
    declared_form: str | None = None  # "SARL au capital de …": the legal form stated apart
    # the figures of rows labelled as an earlier balance ("Offene Zahlungen 80,00"), which the
    # amount due adds to this invoice's gross total
    earlier_balances: tuple[Decimal, ...] = ()


@dataclass
class FoundCandidates:
    fields: dict[str, list[Candidate]]  # every field of FIELD_NAMES, in reading order per kind
    facts: DocumentFacts


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


EXAMPLE_BLOCK_LINES = 6  # lines under a lone "Example" heading that its block may hold


def example_lines(dt: DocText) -> set[int]:
    """The lines the page marks as an example: those that start with "Example:" ("z. B.:",
    "Exemple :", every vocabulary language), and the block under a lone "Sample" heading."""
    out = set()
    for i, folded in enumerate(dt.folded):
        m = V.example.match(folded)
        if not m:
            continue
        out.add(i)
        if not folded[m.end() :].strip():  # a heading: the lines of its block under it
            cur = i
            for _ in range(EXAMPLE_BLOCK_LINES):
                below = dt.below(cur)[:1]
                if not below:
                    break
                cur = below[0]
                out.add(cur)
    return out


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
    shown = example_lines(dt)
    if shown:  # nothing is taken from what the page shows as an example
        fields = {f: [c for c in cands if c.line not in shown] for f, cands in fields.items()}
    facts = DocumentFacts(
        credit_note=credit_titled(dt),
        paid_words=bool(V.paid_words.search(dt.full_folded)),
        declared_form=declared_form(dt),
        earlier_balances=earlier_balances(dt),
    )
    return FoundCandidates(fields, facts)
