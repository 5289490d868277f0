"""From the ranker's probabilities to one value per field, the totals jointly.

Per field, the probability of a *value* is the highest probability of any place it is printed;
with a weight for "not printed" the values of a field form a distribution (:func:`distribution`).
The four totals are then chosen together (:func:`choose_totals`): every combination of the best
few values of each (or none) weighs the product of their probabilities times how well the
combination adds up — net + tax = gross, amount due at most the gross (or the gross plus an
earlier balance the page prints) — so that a consistent assignment wins where the page offers
one. The confidence of each chosen total is its marginal probability under that joint weighing.
A total the page does not print but the other two imply (VAT = gross − net) is derived.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from itertools import product

from ..document import AMOUNT_FIELDS
from ..validation import rounded_to_whole_units

# "Not printed" weighs this much times the chance that no candidate is right; the values' own
# weights are their probabilities. Small: on an invoice of an unseen layout every probability is
# low, yet the best of them is usually right, and a value whose truth is absent costs nothing.
NONE_WEIGHT = 0.02
# ... except for fields an invoice often lacks, where a guess is often a date of something else
NONE_WEIGHT_OF = {"due_date": 0.25}
# A field's best value is given only when at least this share of the field's weight is its own:
# a guess less likely than this costs more precision than it gains recall.
EMIT_SHARE = 0.15
TOP_K = {"net_total": 5, "tax_total": 6, "gross_total": 5, "amount_due": 4}
TOLERANCE = Decimal("0.02")  # net + tax may miss gross by this much (rounding per line)
# Cash rounding (to 0.05 CHF, half a crown, one koruna) may put the amount due this much above
# the gross total.
CASH_ROUNDING = Decimal("1.00")
# Likelihood ratios of a combination's arithmetic.
CONSISTENT = 8.0  # net + tax = gross
INCONSISTENT = 0.25  # all three chosen, and they do not add up
GROSS_BELOW_NET = 0.2
TAX_ABOVE_NET = 0.2
# Unless the page says something was paid already: then the amount due is as likely the gross
# as any other figure, and its own probability decides (a confident "Amount due" label equal to
# the gross total must not lose to a weaker net total for the mere mention of a payment).
DUE_EQUALS_GROSS = 2.0
DUE_ABOVE_GROSS = 0.2
DERIVED_FACTOR = 0.8  # a derived total is a little less sure than the two it comes from
# A gross total printed over a deduction and the figure after it in its column of totals is a
# subtotal: few sources print one, so the ranker has hardly learnt it, and this prior says it.
OVER_A_DEDUCTION = 0.1
_GROSS = AMOUNT_FIELDS.index("gross_total")


@dataclass
class Pick:
    value: object  # None: nothing chosen
    probability: float  # raw, before calibration
    derived: bool = False


def distribution(values: dict, none_weight: float = NONE_WEIGHT) -> dict:
    """{value: probability} of a field's values, plus None for "not printed", summing to 1."""
    top = max(values.values(), default=0.0)
    weights = dict(values)
    weights[None] = none_weight * (1.0 - top) + 1e-6
    total = sum(weights.values())
    return {v: w / total for v, w in weights.items()}


def choose_field(values: dict, field: str = "") -> Pick:
    dist = distribution(values, NONE_WEIGHT_OF.get(field, NONE_WEIGHT))
    ranked = sorted((v for v in dist if v is not None), key=lambda v: -dist[v])
    if not ranked or dist[ranked[0]] < EMIT_SHARE:
        return Pick(None, dist[None])
    return Pick(ranked[0], dist[ranked[0]])


def adds_up(n, t, g) -> bool:
    """net + tax = gross, to the cent, or to the unit where the gross is a whole number."""
    if g == 0:
        return False
    if abs(n + t - g) <= TOLERANCE:
        return True
    return rounded_to_whole_units(n + t, g)


def _arithmetic(n, t, g, d, paid: bool = False, balances: tuple = (),
                deducted: frozenset = frozenset()) -> float:
    w = 1.0
    if n is not None and t is not None and g is not None:
        w *= CONSISTENT if adds_up(n, t, g) else INCONSISTENT
    elif n is not None and g is not None and abs(g) < abs(n) and n not in deducted:
        w *= GROSS_BELOW_NET
    if n is not None and t is not None and abs(t) > abs(n):
        w *= TAX_ABOVE_NET
    if g is not None and d is not None:
        if d == g or any(abs(d - g - b) <= TOLERANCE for b in balances):
            w *= 1.0 if paid else DUE_EQUALS_GROSS
        elif abs(d) > abs(g) + CASH_ROUNDING:
            w *= DUE_ABOVE_GROSS
    return w


def choose_totals(
    values: dict[str, dict], *, paid: bool = False, balances: tuple = (),
    deducted: frozenset = frozenset(), subtotals: frozenset = frozenset(),
    after: dict | None = None,
) -> dict[str, Pick]:
    """Net, tax, gross and amount due chosen jointly from their per-value probabilities;
    ``paid``: the page says something was paid already (the amount due then gains nothing
    from being the gross total); ``balances``: earlier balances the page prints, which an
    amount due may add to the gross total as expectedly as it equals it; ``deducted``: net
    totals printed over a deduction in their column of totals (a subtotal, a discount under
    it, the total under that), which a gross total below them does not contradict;
    ``subtotals``: gross-total candidates printed over a deduction and the figure after it,
    which weigh :data:`OVER_A_DEDUCTION` of their probability; ``after``: {subtotal: (the
    figure its allowances leave, whether only allowances lie between, the allowances)} (see
    :func:`after_allowances`)."""
    values, subtotals = after_allowances(values, after or {}, subtotals)
    pools = {}
    for f in AMOUNT_FIELDS:
        dist = distribution(values.get(f, {}))
        ranked = sorted((v for v in dist if v is not None), key=lambda v: -dist[v])
        pools[f] = [(v, dist[v]) for v in ranked[: TOP_K[f]]] + [(None, dist[None])]
    combos = []
    for combo in product(*(pools[f] for f in AMOUNT_FIELDS)):
        w = 1.0
        for _v, p in combo:
            w *= p
        w *= _arithmetic(*(v for v, _p in combo), paid=paid, balances=balances,
                         deducted=deducted)
        if combo[_GROSS][0] in subtotals:
            w *= OVER_A_DEDUCTION
        combos.append((w, tuple(v for v, _p in combo)))
    total = sum(w for w, _ in combos) or 1.0
    _best_w, best = max(combos, key=lambda c: (c[0], sum(v is not None for v in c[1])))
    picks = {}
    for k, f in enumerate(AMOUNT_FIELDS):
        marginal = sum(w for w, c in combos if c[k] == best[k]) / total
        picks[f] = Pick(best[k], marginal)
    _derive(picks)
    return picks


def after_allowances(values: dict[str, dict], after: dict,
                     subtotals: frozenset) -> tuple[dict[str, dict], frozenset]:
    """The totals' values with each subtotal's weight handed to the figure its document-level
    allowances leave, which the page's arithmetic ties to it (``after``: subtotal -> (that
    figure, whether only allowances lie between, the allowances' magnitudes)). EN 16931 takes
    the invoice's total after its allowances (BT-109 = BT-106 − BT-107 + BT-108): "Gross Total
    1,485.00", "Agency Commission 222.75", "Net Amount Due 1,262.25" is an invoice of 1,262.25,
    due and, without VAT, net too. The net total moves only where nothing but allowances lies
    between (a VAT between: the figure after it includes VAT). Whatever the ranker thought of
    the subtotal as one of these totals, the figure after it is as likely, and the subtotal
    :data:`OVER_A_DEDUCTION` of it; subtotals handed on here are weighed once: they leave
    ``subtotals``. The allowances themselves are no VAT total (the figure after them and an
    allowance add up to the subtotal by the page's design, not as net and VAT: a commission
    read as VAT kept "Gross Total" the gross), and weigh :data:`OVER_A_DEDUCTION` as one. A
    deposit or a discount for paying early is no allowance
    (:meth:`.features.DocContext._page_amounts`): the total stays."""
    if not after:
        return values, subtotals
    out = {f: dict(v) for f, v in values.items()}
    for top, (rest, net_too, allowances) in after.items():
        # the allowance is no VAT: net + allowance = subtotal adds up by the page's own design
        tax = out.get("tax_total", {})
        for a in allowances:
            if a in tax:
                tax[a] *= OVER_A_DEDUCTION
        moved = ("net_total", "gross_total", "amount_due") if net_too else ("gross_total",
                                                                            "amount_due")
        for f in moved:
            got = out.get(f)
            if not got or top not in got:
                continue
            got[rest] = max(got.get(rest, 0.0), got[top])
            got[top] *= OVER_A_DEDUCTION
    return out, subtotals - frozenset(after)


def _derive(picks: dict[str, Pick]) -> None:
    """A missing total that the other two imply."""
    n, t, g = (picks[f] for f in ("net_total", "tax_total", "gross_total"))
    if t.value is None and n.value is not None and g.value is not None and _covers(g, n) \
            and g.value != n.value:  # net = gross: no VAT printed, none to invent
        p = min(n.probability, g.probability) * DERIVED_FACTOR
        picks["tax_total"] = Pick(g.value - n.value, p, derived=True)
    elif n.value is None and t.value is not None and g.value is not None:
        p = min(t.probability, g.probability) * DERIVED_FACTOR
        picks["net_total"] = Pick(g.value - t.value, p, derived=True)
    elif g.value is None and n.value is not None and t.value is not None:
        p = min(n.probability, t.probability) * DERIVED_FACTOR
        picks["gross_total"] = Pick(n.value + t.value, p, derived=True)


def _covers(gross: Pick, net: Pick) -> bool:
    """Can the gross be the net plus a tax of the same sign (a correction invoice's totals are
    all negative, credit note or not)?"""
    g, n = gross.value, net.value
    return (g >= 0) == (n >= 0) and abs(g) >= abs(n)
