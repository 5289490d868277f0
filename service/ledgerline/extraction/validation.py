"""EN 16931 checks of an invoice's values, and identifier checks.

An e-invoice XML in UBL or CII that claims EN 16931 conformance is checked by the official rules
themselves (``checks.schematron``): every failed rule is reported by its id. Everything else
(the printed page, KSeF, profiles below EN 16931) gets the arithmetic rules here, whose rules
and tolerances follow the CEN schematron: BR-CO-10, -13, -14, -15 and -16 are exact equalities
on the amounts as written; BR-CO-17 accepts a difference of up to 1.00 between the VAT category
tax amount and taxable amount x rate / 100 rounded to two decimals (and requires a zero tax
amount at a zero rate).

On a printed page (:func:`run_all`) BR-CO-15 also accepts a gross total rounded to whole units
(:func:`rounded_to_whole_units`): an invoice that rounds its total to the rupee or the forint
without printing the rounding amount (BT-114) states net + VAT and the rounded total, and a
finance team pays the rounded total. An e-invoice states its rounding, and keeps the exact rule.

A total the extractor computed from the others (``derived``) can never confirm the rule it was
computed from: such a check says so instead of passing, and a net derived as a negative amount
from a positive gross fails. A check of the totals that cannot run asks for review, and so does
every failed rule, which also lowers the confidence of the fields it involves. Identifier checks
use python-stdnum.
"""

from __future__ import annotations

import datetime as _dt
from decimal import ROUND_HALF_UP, Decimal

from stdnum import iban as _iban

from .finders.tax_ids import vat_checksum

TOLERANCES = {
    "BR-CO-10": Decimal("0"),
    "BR-CO-13": Decimal("0"),
    "BR-CO-14": Decimal("0"),
    "BR-CO-15": Decimal("0"),
    "BR-CO-16": Decimal("0"),
    "BR-CO-17": Decimal("1"),
}
RULE_FIELDS = {
    "BR-CO-10": (),
    "BR-CO-13": ("net_total",),
    "BR-CO-14": ("tax_total",),
    "BR-CO-15": ("net_total", "tax_total", "gross_total"),
    "BR-CO-16": ("gross_total", "amount_due"),
    "BR-CO-17": ("tax_total",),
    "LL-SELLER-VATID": ("seller_vat_id",),
    "LL-BUYER-VATID": ("buyer_vat_id",),
    "LL-IBAN": ("iban",),
    "LL-DATES": ("issue_date", "due_date"),
}
PENALTY = 0.6
# Rules whose check must run: when they cannot (amounts unknown or derived), a person looks.
MUST_RUN = ("BR-CO-15",)
# A gross total rounded to whole units may miss net + VAT by less than half a unit, where that
# is a small share of it (two units are not a rounded 1.70).
WHOLE_UNIT_ROUNDING, ROUNDING_SHARE = Decimal("0.5"), Decimal("0.001")
# The printed line amounts may miss lines, discounts or charges, so a gap between them and the
# net total is no proof of a wrong total, up to this share of the net total.
UNEXPLAINED_LINE_GAP = Decimal("0.5")


def _d(v) -> Decimal | None:
    if v is None:
        return None
    try:
        return Decimal(str(v))
    except ArithmeticError:
        return None


def _sum(values) -> Decimal | None:
    vals = [_d(v) for v in values]
    if not vals or any(v is None for v in vals):
        return None
    return sum(vals, Decimal("0"))


def _result(rule: str, status: str, detail: str) -> dict:
    return {"rule": rule, "status": status, "detail": detail}


def _eq_rule(rule: str, lhs, rhs, text: str) -> dict:
    if lhs is None or rhs is None:
        return _result(rule, "skipped", f"{text}: not all amounts are known")
    diff = abs(lhs - rhs)
    if diff <= TOLERANCES[rule]:
        return _result(rule, "pass", f"{text}: {lhs} = {rhs}")
    return _result(rule, "fail", f"{text}: {lhs} != {rhs} (difference {diff})")


def br_co_17_row(basis, amount, rate) -> bool:
    basis, amount, rate = _d(basis), _d(amount), _d(rate)
    if rate is None or rate == 0:
        return amount is not None and amount.quantize(Decimal("1"), ROUND_HALF_UP) == 0
    expected = (abs(basis) * rate / 100).quantize(Decimal("0.01"), ROUND_HALF_UP)
    return abs(abs(amount) - expected) <= TOLERANCES["BR-CO-17"]


def rounded_to_whole_units(exact: Decimal, gross: Decimal) -> bool:
    """Is ``gross`` the amount ``exact`` rounded to whole units ("Round off", the rupee, the
    forint): a whole number less than half a unit away, and that a small share of it?"""
    miss = abs(exact - gross)
    return gross == gross.to_integral_value() and miss < WHOLE_UNIT_ROUNDING \
        and miss <= ROUNDING_SHARE * abs(gross)


def _br_co_15(net, tax, gross, derived, whole_units: bool = False, no_vat: bool = False) -> dict:
    text = "gross total (BT-112) = net total (BT-109) + VAT total (BT-110)"
    if tax is None and net is not None and net == gross and not derived:
        return _result("BR-CO-15", "pass", f"no VAT total printed: net total = gross total {gross}")
    if no_vat and net is None and tax is None and gross is not None and not derived:
        return _result("BR-CO-15", "pass", f"no VAT printed: the gross total {gross} is the only "
                       "total the invoice states")
    computed = [name for name in ("net_total", "tax_total", "gross_total") if name in derived]
    if not computed or None in (net, tax, gross):
        exact = None if net is None or tax is None else net + tax
        if whole_units and exact is not None and gross is not None and exact != gross \
                and rounded_to_whole_units(exact, gross):
            return _result("BR-CO-15", "pass", f"{text}: {exact} rounded to whole units is "
                           f"{gross}")
        return _eq_rule("BR-CO-15", gross, exact, text)
    if "net_total" in computed and net < 0 < gross:
        return _result("BR-CO-15", "fail", f"{text}: the net total {net} computed as gross - VAT "
                       f"is negative, so the VAT total {tax} cannot be right")
    return _result("BR-CO-15", "skipped", f"{text}: not checked, {' and '.join(computed)} "
                   "computed from the other totals, not read")


def arithmetic_rules(
    fields: dict,
    *,
    line_items: list | None,
    totals: dict | None,
    tax_breakdown: list | None,
    derived: frozenset = frozenset(),
    whole_units: bool = False,
    no_vat: bool = False,
) -> list[dict]:
    """BR-CO-10..17 over plain values (Decimal or None); totals/breakdown may be unknown (None);
    ``derived``: the totals that were computed from the others rather than read;
    ``whole_units``: a gross total rounded to whole units passes BR-CO-15 (a printed page);
    ``no_vat``: the page states one total and no VAT at all, so that a gross total without a
    net and a VAT total passes BR-CO-15 (``ranker.stated.states_no_vat``)."""
    net, tax, gross, due = (
        _d(fields.get(k)) for k in ("net_total", "tax_total", "gross_total", "amount_due")
    )
    totals = totals or {}
    line_sum = _sum(li.get("net_amount") for li in line_items) if line_items else None
    line_total = _d(totals.get("line_total"))
    out = []
    if totals and line_items:
        out.append(
            _eq_rule(
                "BR-CO-10",
                line_total,
                line_sum,
                "sum of line net amounts (BT-106) = sum of invoice line net amounts",
            )
        )
    else:
        out.append(_result("BR-CO-10", "skipped", "no declared sum of line net amounts"))
    if totals and (line_total is not None or line_sum is not None):
        base = line_total if line_total is not None else line_sum
        allowances = _d(totals.get("allowance_total")) or Decimal("0")
        charges = _d(totals.get("charge_total")) or Decimal("0")
        out.append(
            _eq_rule(
                "BR-CO-13",
                net,
                base - allowances + charges,
                "net total (BT-109) = lines (BT-106) - allowances + charges",
            )
        )
    elif line_sum is not None and net is not None:
        r = _eq_rule("BR-CO-13", net, line_sum, "net total (BT-109) = sum of printed line amounts")
        gap_explainable = abs(net - line_sum) <= abs(net) * UNEXPLAINED_LINE_GAP
        if r["status"] == "fail" and gap_explainable:
            # printed lines may simply be incomplete or carry discounts
            r["status"] = "skipped"
            r["detail"] += "; allowances, charges or unread lines may explain it"
        out.append(r)
    else:
        out.append(_result("BR-CO-13", "skipped", "line amounts unknown"))
    if tax_breakdown:
        out.append(
            _eq_rule(
                "BR-CO-14",
                tax,
                _sum(r.get("amount") for r in tax_breakdown),
                "VAT total (BT-110) = sum of VAT category amounts (BT-117)",
            )
        )
    else:
        out.append(_result("BR-CO-14", "skipped", "no VAT breakdown"))
    out.append(_br_co_15(net, tax, gross, derived, whole_units, no_vat))
    if totals:
        prepaid = _d(totals.get("prepaid")) or Decimal("0")
        rounding = _d(totals.get("rounding")) or Decimal("0")
        out.append(
            _eq_rule(
                "BR-CO-16",
                due,
                None if gross is None else gross - prepaid + rounding,
                "amount due (BT-115) = gross (BT-112) - paid (BT-113) + rounding (BT-114)",
            )
        )
    elif due is not None and gross is not None and due == gross:
        out.append(_result("BR-CO-16", "pass", f"amount due equals gross total {gross}"))
    else:
        out.append(_result("BR-CO-16", "skipped", "paid and rounding amounts unknown"))
    if tax_breakdown:
        bad = [
            r
            for r in tax_breakdown
            if r.get("basis") is not None
            and r.get("amount") is not None
            and not br_co_17_row(r.get("basis"), r.get("amount"), r.get("rate"))
        ]
        usable = [
            r for r in tax_breakdown if r.get("basis") is not None and r.get("amount") is not None
        ]
        if not usable:
            out.append(_result("BR-CO-17", "skipped", "VAT breakdown lacks amounts"))
        elif bad:
            rows = "; ".join(
                f"{r.get('basis')} x {r.get('rate')}% != {r.get('amount')}" for r in bad
            )
            out.append(
                _result("BR-CO-17", "fail", f"VAT category amount off by more than 1.00: {rows}")
            )
        else:
            out.append(_result("BR-CO-17", "pass", f"{len(usable)} VAT categories consistent"))
    else:
        out.append(_result("BR-CO-17", "skipped", "no VAT breakdown"))
    return out


def vat_id_check(rule: str, value, country: str | None = None) -> dict:
    """The VAT id's checksum, by its prefix's country (or ``country`` for an unprefixed one)."""
    if not value:
        return _result(rule, "skipped", "no VAT identifier")
    valid = vat_checksum(str(value), country)
    if valid is None:
        prefix = str(value).replace(" ", "").upper()[:2]
        return _result(rule, "skipped", f"no VAT number checksum known for {prefix!r}")
    if valid:
        return _result(rule, "pass", "VAT identifier checksum valid")
    return _result(rule, "fail", "VAT identifier fails its checksum")


def iban_check(value) -> dict:
    if not value:
        return _result("LL-IBAN", "skipped", "no IBAN")
    if _iban.is_valid(str(value)):
        return _result("LL-IBAN", "pass", "IBAN checksum valid")
    return _result("LL-IBAN", "fail", "IBAN fails its checksum")


def date_check(issue: str | None, due: str | None, today: _dt.date | None = None) -> dict:
    if not issue:
        return _result("LL-DATES", "skipped", "no issue date")
    try:
        d_issue = _dt.date.fromisoformat(issue)
        d_due = _dt.date.fromisoformat(due) if due else None
    except ValueError:
        return _result("LL-DATES", "fail", "unreadable date")
    today = today or _dt.date.today()
    problems = []
    if d_issue.year < 1990 or d_issue > today + _dt.timedelta(days=366):
        problems.append("issue date implausible")
    if d_due is not None and d_due < d_issue:
        problems.append("due date before issue date")
    if d_due is not None and d_due > d_issue + _dt.timedelta(days=3 * 366):
        problems.append("due date more than three years after issue")
    if problems:
        return _result("LL-DATES", "fail", "; ".join(problems))
    return _result("LL-DATES", "pass", "dates plausible")


def identifier_checks(fields: dict, vat_countries: dict | None = None) -> list[dict]:
    countries = vat_countries or {}
    return [
        vat_id_check("LL-SELLER-VATID", fields.get("seller_vat_id"),
                     countries.get("seller_vat_id")),
        vat_id_check("LL-BUYER-VATID", fields.get("buyer_vat_id"), countries.get("buyer_vat_id")),
        iban_check(fields.get("iban")),
        date_check(fields.get("issue_date"), fields.get("due_date")),
    ]


def run_all(
    fields: dict, *, line_items, totals, tax_breakdown, derived: frozenset = frozenset(),
    no_vat: bool = False,
) -> list[dict]:
    """Every check of values read from a printed page (its gross total may be rounded to whole
    units: :func:`rounded_to_whole_units`; ``no_vat``: see :func:`arithmetic_rules`)."""
    out = arithmetic_rules(
        fields, line_items=line_items, totals=totals, tax_breakdown=tax_breakdown, derived=derived,
        whole_units=True, no_vat=no_vat,
    )
    return out + identifier_checks(fields)


def official_results(outcome) -> list[dict]:
    """The official rules' outcome: a summary, then each failed rule once by its id."""
    if not outcome.ran:
        return [_result("EN16931", "skipped", outcome.why_not)]
    errors: dict[str, list] = {}
    for f in outcome.findings:
        if f.fatal:
            errors.setdefault(f.rule, []).append(f.text)
    warnings = sum(1 for f in outcome.findings if not f.fatal)
    names = ", ".join(n.removesuffix(".xsl") for n in outcome.rulesets)
    summary = _result("EN16931", "fail" if errors else "pass",
                      f"{names}: {sum(map(len, errors.values()))} errors, {warnings} warnings")
    failed = [
        _result(rule, "fail", texts[0] + (f" ({len(texts)} times)" if len(texts) > 1 else ""))
        for rule, texts in errors.items()
    ]
    return [summary, *failed]


def apply_to_confidence(validations: list[dict], field_conf: dict) -> list[str]:
    """Lower confidence of fields involved in failed rules; return review reasons."""
    reasons = []
    for v in validations:
        names = ", ".join(RULE_FIELDS.get(v["rule"], ()))
        about = f"{names}: " if names else ""
        if v["status"] == "skipped" and v["rule"] in MUST_RUN:
            reasons.append(f"{about}{v['rule']} not checked: {v['detail']}")
        if v["status"] != "fail" or v["rule"] == "EN16931":  # its failed rules speak for it
            continue
        for name in RULE_FIELDS.get(v["rule"], ()):
            if name in field_conf and field_conf[name] is not None:
                field_conf[name] = round(field_conf[name] * PENALTY, 3)
        reasons.append(f"{about}{v['rule']} failed: {v['detail']}")
    return reasons
