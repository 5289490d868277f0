"""Totals add up the way EN 16931 orders them, on every generated invoice."""

from __future__ import annotations

import copy

from decimal import ROUND_HALF_UP, Decimal

import pytest

from ledgerline_tools.samples import LANGUAGE_CODES, TEMPLATE_NAMES
from ledgerline_tools.samples.model import Line, compute_totals

from .conftest import sample

CENT = Decimal("0.01")
SEEDS = range(60)


def dec(x) -> Decimal:
    return Decimal(str(x))


def cents(x: Decimal) -> Decimal:
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


def generated(seed: int):
    """The truth with its amounts as printed: a credit note's truth gives its totals and line
    net amounts negative (owed to the buyer), its page and breakdown print them positive."""
    lang = LANGUAGE_CODES[seed % len(LANGUAGE_CODES)]
    template = TEMPLATE_NAMES[seed % len(TEMPLATE_NAMES)]
    t = copy.deepcopy(sample(300 + seed, lang, template)[1])  # sample() caches its result
    if t["document_type"] == "credit_note":
        for name in ("net_total", "tax_total", "gross_total", "amount_due"):
            t[name] = -dec(t[name])
        for item in t["line_items"]:
            if item["net_amount"] is not None:
                item["net_amount"] = -dec(item["net_amount"])
    return t


@pytest.mark.parametrize("seed", SEEDS)
def test_net_plus_tax_is_gross_and_due_follows_the_deductions(seed):
    t = generated(seed)
    adj = t["_adjustments"]
    assert dec(t["net_total"]) + dec(t["tax_total"]) == dec(t["gross_total"])
    assert dec(t["amount_due"]) == (dec(t["gross_total"]) - dec(adj["prepaid"])
                                    - dec(adj["voucher"]) + dec(adj["rounding"]))
    rows = t["_tax_breakdown"]
    assert sum(dec(r["base"]) for r in rows) == dec(t["net_total"])
    assert sum(dec(r["tax"]) for r in rows) == dec(t["tax_total"])


@pytest.mark.parametrize("seed", SEEDS)
def test_lines_sum_to_the_net_or_gross_and_each_rate_rounds_once(seed):
    t = generated(seed)
    inclusive = t["_generator"]["prices_include_vat"]
    discount = dec(t["_adjustments"]["discount"])
    for item in t["line_items"]:
        price = dec(item["_unit_price_gross"] if inclusive else item["unit_price_net"])
        off = dec(item.get("_discount_pct", 0))
        amount = dec(item["_gross_amount"] if inclusive else item["net_amount"])
        assert cents(dec(item["quantity"]) * price * (100 - off) / 100) == amount
    amounts = sum(dec(i["_gross_amount"] if inclusive else i["net_amount"])
                  for i in t["line_items"])
    assert amounts == dec(t["_adjustments"]["lines_total"])
    assert amounts - discount == dec(t["gross_total"] if inclusive else t["net_total"])
    for row in t["_tax_breakdown"]:
        rate, base, tax = dec(row["rate"]), dec(row["base"]), dec(row["tax"])
        if inclusive:
            assert tax == cents((base + tax) * rate / (100 + rate))
        else:
            assert tax == cents(base * rate / 100)


def test_cash_rounding_lands_on_the_countrys_step():
    from ledgerline_tools.samples.languages import LANGUAGES

    checked = 0
    for seed in range(120):
        t = sample(seed, "cs", "letterhead")[1]
        if t["_adjustments"]["rounding"]:
            step = LANGUAGES["cs"].country("CZ").cash_step
            assert dec(t["amount_due"]) % step == 0
            checked += 1
    assert checked, "no rounded Czech invoice in 120 seeds"


def test_compute_totals_by_hand():
    lines = [Line("a", Decimal(3), "pc", Decimal("19.99"), Decimal(19)),
             Line("b", Decimal("2.5"), "h", Decimal(80), Decimal(7), Decimal(10))]
    t = compute_totals(lines, prices_include_vat=False, discount_pct=Decimal(5),
                       prepaid=Decimal(50), cash_step=Decimal("0.05"))
    # 59.97 and 180.00; 5 % off each rate: 3.00 and 9.00; tax 19 % of 56.97 and 7 % of 171.00
    assert [r.base for r in t.tax_rows] == [Decimal("56.97"), Decimal("171.00")]
    assert [r.tax for r in t.tax_rows] == [Decimal("10.82"), Decimal("11.97")]
    assert t.net == Decimal("227.97") and t.tax == Decimal("22.79")
    assert t.gross == Decimal("250.76")
    assert t.rounding == Decimal("-0.01") and t.due == Decimal("200.75")


def test_vat_inclusive_totals_by_hand():
    lines = [Line("a", Decimal(2), "pc", Decimal("11.90"), Decimal(19))]
    t = compute_totals(lines, prices_include_vat=True)
    assert t.gross == Decimal("23.80") and t.tax == Decimal("3.80") and t.net == Decimal("20.00")
