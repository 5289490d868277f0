"""The choice step: one value per field from the candidates the finders generated.

:func:`choose` is the seam a learned ranker replaces: it takes the generated candidates
(:class:`~..finders.FoundCandidates`) and the geometry index, scores the candidates (today by the
hand-tuned rules of :mod:`.rules`, :mod:`.currency` and :mod:`.parties`), and picks each field's
value, the totals jointly (:mod:`.amounts`: net + tax = gross where the page allows it). The
score of a chosen candidate is the field's confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..candidates import Candidate
from ..document import AMOUNT_FIELDS, DATE_FIELDS, ID_FIELDS
from ..finders import FoundCandidates
from ..geometry import DocText
from . import rules
from .amounts import add_tax_sum, choose_amounts, choose_first
from .currency import choose_currency
from .parties import choose_parties

PAGE_KIND_PREFIX = "page_"  # and the sums of VAT rows: the rules add their own
RANKER_KINDS = ("sum_of_tax_rows",)
DERIVED_DUE_CEILING = 0.6  # an amount due taken to be the gross total


@dataclass
class Choice:
    fields: dict[str, Candidate | None]
    reasons: list[str]  # review reasons
    credit_note: bool
    vat_checksum_failed: tuple[str, ...]  # the chosen VAT ids whose checksum fails


def _by_kind(cands: list[Candidate], kind: str) -> list[Candidate]:
    return [c for c in cands if c.evidence.kind == kind]


def _dates_and_ids(cands: dict, first_dates: list[Candidate]) -> dict[str, Candidate | None]:
    for f in ("invoice_number", "issue_date"):
        rules.header_bonus(cands[f])
    fields = {f: choose_first(cands[f]) for f in ID_FIELDS + DATE_FIELDS}
    if fields["issue_date"] is None and first_dates:
        fields["issue_date"] = first_dates[0]
        first_dates[0].score = rules.FIRST_DATE_SCORE
    due, issue = fields["due_date"], fields["issue_date"]
    if (
        due is not None
        and issue is not None
        and due.value == issue.value
        and due.line == issue.line
    ):
        fields["due_date"] = None  # one date, labelled both ways: it is the issue date
    return fields


def _amounts(dt: DocText, cands: dict, found: FoundCandidates) -> dict:
    add_tax_sum(dt, cands)
    if found.facts.credit_note:  # a credit note states its sign in its title; EN 16931: positive
        for f in AMOUNT_FIELDS:
            for c in cands[f]:
                c.value = abs(c.value)
    amounts, _consistent = choose_amounts(dt, cands)
    gross = amounts["gross_total"]
    if amounts["amount_due"] is None and gross is not None and not found.facts.paid_words:
        amounts["amount_due"] = Candidate(
            "amount_due",
            gross.value,
            None,
            None,
            None,
            score=min(DERIVED_DUE_CEILING, gross.score),
            derived=True,
        )
    return amounts


def _labelled_view(found: FoundCandidates) -> FoundCandidates:
    """The candidates the rules were written for: the page-wide ones (every amount, date,
    identifier and name-like line, :mod:`..finders.page_values`) are for the ranker."""
    fields = {
        f: [
            c
            for c in cands
            if not c.evidence.kind.startswith(PAGE_KIND_PREFIX)
            and c.evidence.kind not in RANKER_KINDS
        ]
        for f, cands in found.fields.items()
    }
    return FoundCandidates(fields, found.facts)


def choose(dt: DocText, found: FoundCandidates) -> Choice:
    found = _labelled_view(found)
    reasons: list[str] = []
    cands = {f: rules.scored_labels(found.fields[f]) for f in ID_FIELDS + DATE_FIELDS}
    cands.update({f: rules.scored_labels(found.fields[f]) for f in AMOUNT_FIELDS})
    fields = _dates_and_ids(cands, _by_kind(found.fields["issue_date"], "first_date"))
    amounts = _amounts(dt, cands, found)
    fields.update(amounts)
    currency = found.fields["currency"]
    fields["currency"], reason = choose_currency(
        rules.scored_labels(currency), [c for c in currency if c.evidence.kind != "label"]
    )
    if reason:
        reasons.append(reason)
    for f in ("seller_vat_id", "buyer_vat_id"):
        for c in found.fields[f]:
            c.score = rules.vat_id_score(c)
        fields[f] = choose_first(found.fields[f])
    ibans = found.fields["iban"]
    for c in ibans:
        c.score = rules.IBAN_SCORE
    fields["iban"] = ibans[0] if ibans else None
    fields.update(choose_parties(dt, found.fields["seller_name"], found.fields["buyer_name"]))
    failed = tuple(
        f
        for f in ("seller_vat_id", "buyer_vat_id")
        if fields[f] is not None and not fields[f].evidence.facts["checksum_valid"]
    )
    return Choice(fields, reasons, found.facts.credit_note, failed)
