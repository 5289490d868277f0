"""Poland's KSeF structured invoice (``Faktura``, logical structures FA(1), FA(2) and FA(3)).

The mapping follows the Ministry of Finance's schemas (``schemat_FA(2)_v1-0E.xsd``, namespace
``http://crd.gov.pl/wzor/2023/06/29/12648/``; ``schemat_FA(3)_v1-0E.xsd``, namespace
``http://crd.gov.pl/wzor/2025/06/25/13775/``); the three share the elements read here:

- ``Fa/P_2`` number, ``Fa/P_1`` issue date, ``Fa/KodWaluty`` currency, ``Fa/RodzajFaktury`` kind
  (VAT, KOR correction, ZAL advance, ...), ``Platnosc/TerminPlatnosci/Termin`` due date,
  ``Platnosc/RachunekBankowy/NrRB`` account, ``WarunkiTransakcji/Zamowienia/NrZamowienia`` order;
- ``Podmiot1`` seller and ``Podmiot2`` buyer: ``DaneIdentyfikacyjne/Nazwa`` and ``NIP`` (a
  Polish tax number, given without its ``PL`` prefix), or for a buyer ``KodUE`` + ``NrVatUE``;
- totals by VAT group: ``P_13_k`` net and ``P_14_k`` VAT of each rate group (1: 23 or 22 %,
  2: 8 or 7 %, 3: 5 %, 4: the taxi flat rate, 5: the OSS procedure; 6_1-6_3: 0 %, 7 exempt,
  8-9 outside Poland, 10 reverse charge, 11 margin scheme), ``P_15`` the amount owed in total;
- ``Rozliczenie/DoZaplaty`` what is still to pay after charges and deductions, and
  ``Platnosc/Zaplacono`` = 1 / ``ZaplataCzesciowa`` for what was paid already;
- lines ``FaWiersz``: ``P_7`` name, ``P_8B`` quantity, ``P_9A`` net unit price, ``P_11`` net
  value, ``P_12`` rate ("23", "8", "0 KR", "zw", "oo", "np I", ...).

The structure has no net or VAT total of its own: they are the sums of the groups' amounts, as
the tax office adds them up; everything else is copied as written.
"""

from __future__ import annotations

import re
from decimal import Decimal

from stdnum import iban as _iban

from .xml_model import XmlInvoice, find_all, find_one, text_at, xs_decimal

# (net element, VAT element, allowed rates, EN 16931 category) of each rate group
VAT_GROUPS = (
    ("P_13_1", "P_14_1", (23, 22), "S"),
    ("P_13_2", "P_14_2", (8, 7), "S"),
    ("P_13_3", "P_14_3", (5,), "S"),
    ("P_13_4", "P_14_4", (4,), "S"),
    ("P_13_5", "P_14_5", None, "S"),  # OSS: the rate of the buyer's member state
    ("P_13_6_1", None, (0,), "Z"),
    ("P_13_6_2", None, (0,), "K"),
    ("P_13_6_3", None, (0,), "G"),
    ("P_13_7", None, (0,), "E"),
    ("P_13_8", None, (0,), "O"),
    ("P_13_9", None, (0,), "O"),
    ("P_13_10", None, (0,), "AE"),
    ("P_13_11", None, (0,), "E"),
)
POLISH_ACCOUNT = re.compile(r"\d{26}")  # NRB: the IBAN without its "PL"
NO_POLISH_VAT = ("zw", "oo", "np")  # P_12 codes of a line without Polish VAT


def _sum(values) -> Decimal | None:
    present = [v for v in values if v is not None]
    return sum(present, Decimal("0")) if present else None


def _group_rate(net: Decimal | None, tax: Decimal | None, allowed) -> Decimal | None:
    """The group's rate: the one allowed rate, or the allowed one the amounts show."""
    if allowed and len(allowed) == 1:
        return Decimal(allowed[0])
    if net is None or tax is None or net == 0:
        return None
    shown = abs(tax) * 100 / abs(net)
    if not allowed:  # OSS: whatever the amounts say, to two decimals
        return shown.quantize(Decimal("0.01"))
    return Decimal(min(allowed, key=lambda r: abs(shown - r)))


def _tax_breakdown(fa) -> list[dict]:
    rows = []
    for net_tag, tax_tag, allowed, category in VAT_GROUPS:
        net = xs_decimal(text_at(fa, net_tag))
        if net is None:
            continue
        tax = xs_decimal(text_at(fa, tax_tag)) if tax_tag else Decimal("0")
        rows.append(
            {
                "basis": net,
                "amount": tax,
                "rate": _group_rate(net, tax, allowed),
                "category": category,
            }
        )
    return rows


def _account(fa) -> tuple[str | None, str | None]:
    """(IBAN, as written) of the first account; a Polish NRB becomes its IBAN."""
    for number in find_all(fa, "Platnosc/RachunekBankowy/NrRB"):
        raw = text_at(number)
        if not raw:
            continue
        compact = re.sub(r"\s", "", raw).upper()
        candidate = "PL" + compact if POLISH_ACCOUNT.fullmatch(compact) else compact
        return (candidate if _iban.is_valid(candidate) else None), raw
    return None, None


def _buyer_vat(ids) -> tuple[str | None, str | None]:
    """(VAT id, country of an unprefixed one) of Podmiot2/DaneIdentyfikacyjne."""
    nip = text_at(ids, "NIP")
    if nip:
        return nip, "PL"
    eu_number = text_at(ids, "NrVatUE")
    if eu_number:
        prefix = text_at(ids, "KodUE") or ""
        return (eu_number if eu_number[:2].isalpha() else prefix + eu_number), None
    return None, None


def _paid(fa, gross: Decimal | None) -> Decimal | None:
    """What the invoice says was paid already: all of it, or its partial payments."""
    if text_at(fa, "Platnosc/Zaplacono") == "1":
        return gross
    return _sum(xs_decimal(text_at(p, "KwotaZaplatyCzesciowej"))
                for p in find_all(fa, "Platnosc/ZaplataCzesciowa"))


def _line(row) -> dict:
    rate = text_at(row, "P_12") or ""
    number = re.match(r"[0-9]+(?:\.[0-9]+)?", rate)
    return {
        "line_id": text_at(row, "NrWierszaFa"),
        "description": text_at(row, "P_7"),
        "quantity": xs_decimal(text_at(row, "P_8B")),
        "unit_price": xs_decimal(text_at(row, "P_9A")),
        "net_amount": xs_decimal(text_at(row, "P_11")),
        # zw (exempt), oo (reverse charge), np (not taxable here): no Polish VAT on the line
        "vat_rate": (Decimal(number.group()) if number
                     else Decimal("0") if rate.lower().startswith(NO_POLISH_VAT) else None),
    }


def read_ksef(root) -> XmlInvoice:
    inv = XmlInvoice(syntax="KSeF")
    code = find_one(root, "Naglowek/KodFormularza")
    inv.profile = code.get("kodSystemowy") if code is not None else None
    fa = find_one(root, "Fa")
    seller_ids = find_one(root, "Podmiot1/DaneIdentyfikacyjne")
    buyer_ids = find_one(root, "Podmiot2/DaneIdentyfikacyjne")
    inv.type_code = text_at(fa, "RodzajFaktury")
    inv.tax_breakdown = _tax_breakdown(fa)
    net = _sum(r["basis"] for r in inv.tax_breakdown)
    tax = _sum(r["amount"] for r in inv.tax_breakdown)
    gross = xs_decimal(text_at(fa, "P_15"))
    paid = _paid(fa, gross)
    settled = xs_decimal(text_at(fa, "Rozliczenie/DoZaplaty"))
    due = settled if settled is not None else (
        None if gross is None else gross - (paid or Decimal("0")))
    iban, iban_raw = _account(fa)
    buyer_vat, buyer_country = _buyer_vat(buyer_ids)
    inv.raw = {
        "invoice_number": text_at(fa, "P_2"),
        "issue_date": (text_at(fa, "P_1") or "")[:10] or None,
        "due_date": (text_at(fa, "Platnosc/TerminPlatnosci/Termin") or "")[:10] or None,
        "currency": text_at(fa, "KodWaluty"),
        "seller_name": text_at(seller_ids, "Nazwa"),
        "seller_vat_id": text_at(seller_ids, "NIP"),
        "buyer_name": text_at(buyer_ids, "Nazwa"),
        "buyer_vat_id": buyer_vat,
        "purchase_order": text_at(fa, "WarunkiTransakcji/Zamowienia/NrZamowienia"),
        "preceding_invoice_number": text_at(fa, "DaneFaKorygowanej/NrFaKorygowanej")
        or text_at(fa, "DaneFaKorygowanej/NrKSeFFaKorygowanej"),
        "iban": iban_raw,
        "net_total": None if net is None else str(net),
        "tax_total": None if tax is None else str(tax),
        "gross_total": text_at(fa, "P_15"),
        "amount_due": text_at(fa, "Rozliczenie/DoZaplaty") or (None if due is None else str(due)),
    }
    inv.fields = dict(inv.raw)
    inv.fields.update(iban=iban, net_total=net, tax_total=tax, gross_total=gross, amount_due=due)
    # DoZaplaty = P_15 + charges - deductions: for EN 16931's amount due (gross - paid +
    # rounding) the deductions net of charges count as paid, beside what was paid already
    charges = xs_decimal(text_at(fa, "Rozliczenie/SumaObciazen"))
    deductions = xs_decimal(text_at(fa, "Rozliczenie/SumaOdliczen"))
    settled_before = _sum((paid, deductions, None if charges is None else -charges))
    inv.totals = {"line_total": None, "charge_total": None, "allowance_total": None,
                  "prepaid": settled_before, "rounding": None}
    inv.vat_countries = {"seller_vat_id": "PL"}
    if buyer_country:
        inv.vat_countries["buyer_vat_id"] = buyer_country
    if iban_raw and iban is None:
        inv.warnings.append("the bank account number is not a valid IBAN or Polish NRB")
    inv.line_items = [_line(row) for row in find_all(fa, "FaWiersz")]
    return inv
