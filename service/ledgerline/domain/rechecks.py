"""The checks of an invoice run again on its corrected values.

A correction changes values the extraction's checks were run on. Every check whose inputs a
person changed runs again on the values the invoice now shows: the EN 16931 arithmetic rules
(BR-CO-10, -13, -14, -15, -16), the VAT identifiers' and the IBAN's checksums and the dates.
A check none of whose inputs changed keeps the extraction's result: running it again on the
same values gives the same answer, and only the extraction had the context some checks need
(an e-invoice's VAT breakdown and document totals, the country of an unprefixed VAT id, which
totals were computed rather than read). Possible duplicates depend on the other invoices of the
account, so they are judged when the invoice is read (adapters/db/duplicates.py).

The review then describes the current values: the extraction's reasons about what was
re-checked or corrected go, the re-checked rules' reasons come in, and a key field a person
cleared asks for review. Whether the change sends the invoice back to review is
`breaks_a_rule`: a reason the invoice did not have before.
"""
from __future__ import annotations

from ..extraction.document import KEY_FIELDS
from ..extraction.validation import apply_to_confidence, arithmetic_rules, identifier_checks

LINE_ITEMS = "line_items"
# What each check reads; a check runs again when one of these differs from the model's.
RULE_INPUTS = {
    "BR-CO-10": (LINE_ITEMS,),
    "BR-CO-13": ("net_total", LINE_ITEMS),
    "BR-CO-14": ("tax_total",),
    "BR-CO-15": ("net_total", "tax_total", "gross_total"),
    "BR-CO-16": ("gross_total", "amount_due"),
    "LL-SELLER-VATID": ("seller_vat_id",),
    "LL-BUYER-VATID": ("buyer_vat_id",),
    "LL-IBAN": ("iban",),
    "LL-DATES": ("issue_date", "due_date"),
}
OFFICIAL = "EN16931"  # the summary of the official rules run on an e-invoice's XML


def changed_inputs(model: dict, shown: dict) -> set[str]:
    """The field names (and `line_items`) whose shown value is not the model's."""
    changed = {name for name, entry in shown["fields"].items()
               if entry.get("value") != (model["fields"].get(name) or {}).get("value")}
    if shown.get(LINE_ITEMS) != model.get(LINE_ITEMS):
        changed.add(LINE_ITEMS)
    return changed


def recheck(model: dict, shown: dict) -> tuple[list[dict], list[str]]:
    """(validations, review reasons) of the invoice as `shown` (the model's document with the
    invoice's corrections on top)."""
    changed = changed_inputs(model, shown)
    rerun = {rule for rule, inputs in RULE_INPUTS.items() if changed.intersection(inputs)}
    fresh = {v["rule"]: v for v in _fresh_checks(shown) if v["rule"] in rerun}
    validations = []
    for check in model.get("validations", []):
        if check["rule"] in fresh:
            validations.append(fresh.pop(check["rule"]))
        else:
            validations.append(dict(check))
    validations.extend(fresh.values())  # a rule the extraction reported nothing of
    _official_summary(validations, rerun)
    rechecked = [v for v in validations if v["rule"] in rerun]
    return validations, _reasons(model, shown, changed, rerun, rechecked)


def _fresh_checks(shown: dict) -> list[dict]:
    values = {name: entry.get("value") for name, entry in shown["fields"].items()}
    return (arithmetic_rules(values, line_items=shown.get(LINE_ITEMS) or None, totals=None,
                             tax_breakdown=None)
            + identifier_checks(values))


def _official_summary(validations: list[dict], rerun: set[str]) -> None:
    """The official rules' summary follows the rules it counts that were checked again."""
    summary = next((v for v in validations if v["rule"] == OFFICIAL), None)
    if summary is None or summary["status"] == "skipped" or not rerun:
        return
    failing = [v for v in validations if v["rule"].startswith("BR-") and v["status"] == "fail"]
    summary["status"] = "fail" if failing else "pass"
    summary["detail"] = (f"{summary['detail']}; after corrections {len(failing)} failing, "
                         "the rules about corrected values checked again on them")


def _reasons(model: dict, shown: dict, changed: set[str], rerun: set[str],
             rechecked: list[dict]) -> list[str]:
    kept = [r for r in (model.get("review") or {}).get("reasons", [])
            if not _about(r, changed, rerun)]
    confidence: dict = {}  # a correction's values are certain: no confidence is lowered
    new = apply_to_confidence(rechecked, confidence)
    cleared = [f"{name}: cleared by a correction" for name in KEY_FIELDS
               if name in changed and shown["fields"][name].get("value") is None]
    out: list[str] = []
    for reason in kept + new + cleared:
        if reason not in out:
            out.append(reason)
    return out


def _about(reason: str, changed: set[str], rerun: set[str]) -> bool:
    """Whether an extraction's reason speaks of a changed field or a re-checked rule.

    A reason names its fields before the colon (``net_total, gross_total: BR-CO-15 failed:
    …``); a rule's reason without fields starts with the rule (``BR-CO-10 failed: …``)."""
    head, _, rest = reason.partition(":")
    names = {name.strip() for name in head.split(",")}
    rules = {head.split(" ", 1)[0], (rest.split() or [""])[0]}
    return bool(names & changed) or bool(rules & rerun)


def breaks_a_rule(before: list[str], after: list[str]) -> list[str]:
    """The reasons `after` has that `before` had not: what a correction broke."""
    return [r for r in after if r not in before]
