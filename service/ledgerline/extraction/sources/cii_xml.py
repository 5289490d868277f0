"""UN/CEFACT CII: Factur-X / ZUGFeRD 2.x / XRechnung (``CrossIndustryInvoice``) and ZUGFeRD 1.0
(``CrossIndustryDocument``, and the pre-release ``CBFBUY`` variant with the same element names).
Values are copied, never recomputed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .xml_model import (
    XmlInvoice, amount_in, children, find_all, find_one, local_name,
    text_at, xs_decimal,
)


def _cii_date(el, warnings: list | None = None) -> str | None:
    """CII date: a DateTimeString child (or the element itself), format 102 (CCYYMMDD)."""
    if el is None:
        return None
    node = find_one(el, "DateTimeString")
    if node is None:
        node = el
    t = (node.text or "").strip()
    fmt = node.get("format", "102")
    if re.fullmatch(r"[0-9]{8}", t):
        if fmt != "102" and warnings is not None:
            warnings.append(f"{local_name(el)}: date format code {fmt!r} is not 102; read as CCYYMMDD")
        return f"{t[:4]}-{t[4:6]}-{t[6:8]}"
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", t[:10]):
        return t[:10]
    return None


def _first(el, *paths: str):
    for path in paths:
        node = find_one(el, path)
        if node is not None:
            return node
    return None


def _tax_id(party, scheme: str) -> str | None:
    for reg in find_all(party, "SpecifiedTaxRegistration/ID"):
        if (reg.get("schemeID") or "").upper() == scheme and text_at(reg):
            return text_at(reg)
    return None


@dataclass(frozen=True)
class _Tags:
    """The element names that differ between CII versions; everything else is shared."""
    agreement: str
    settlement: str
    summation: str
    order_id: str
    rate: str
    line_agreement: str
    line_delivery: str
    line_settlement: str


# ZUGFeRD 1.0 (``CrossIndustryDocument``, ``CBFBUY``) and CII D16B as in Factur-X 1.0 / ZUGFeRD 2.x.
_V1 = _Tags("ApplicableSupplyChainTradeAgreement", "ApplicableSupplyChainTradeSettlement",
            "SpecifiedTradeSettlementMonetarySummation", "BuyerOrderReferencedDocument/ID",
            "ApplicablePercent", "SpecifiedSupplyChainTradeAgreement",
            "SpecifiedSupplyChainTradeDelivery", "SpecifiedSupplyChainTradeSettlement")
_V2 = _Tags("ApplicableHeaderTradeAgreement", "ApplicableHeaderTradeSettlement",
            "SpecifiedTradeSettlementHeaderMonetarySummation",
            "BuyerOrderReferencedDocument/IssuerAssignedID", "RateApplicablePercent",
            "SpecifiedLineTradeAgreement", "SpecifiedLineTradeDelivery",
            "SpecifiedLineTradeSettlement")


def read_cii(root, syntax: str) -> XmlInvoice:
    tags = _V2 if syntax == "CII" else _V1
    inv = XmlInvoice(syntax=syntax)
    ctx = _first(root, "ExchangedDocumentContext", "SpecifiedExchangedDocumentContext")
    inv.profile = text_at(ctx, "GuidelineSpecifiedDocumentContextParameter/ID")
    doc = _first(root, "ExchangedDocument", "HeaderExchangedDocument")
    tx = _first(root, "SupplyChainTradeTransaction", "SpecifiedSupplyChainTradeTransaction")
    agreement = find_one(tx, tags.agreement)
    settlement = find_one(tx, tags.settlement)
    summation = find_one(settlement, tags.summation)
    po = text_at(agreement, tags.order_id)
    inv.type_code = text_at(doc, "TypeCode")
    seller = find_one(agreement, "SellerTradeParty")
    buyer = find_one(agreement, "BuyerTradeParty")
    currency = text_at(settlement, "InvoiceCurrencyCode")
    iban = None
    for means in find_all(settlement, "SpecifiedTradeSettlementPaymentMeans"):
        iban = text_at(means, "PayeePartyCreditorFinancialAccount/IBANID")
        if iban:
            break
    due = None
    for terms in find_all(settlement, "SpecifiedTradePaymentTerms"):
        due = _cii_date(find_one(terms, "DueDateDateTime"), inv.warnings)
        if due:
            break
    raw = {
        "invoice_number": text_at(doc, "ID"),
        "issue_date": _cii_date(find_one(doc, "IssueDateTime"), inv.warnings),
        "due_date": due,
        "currency": currency,
        "seller_name": text_at(seller, "Name"),
        "seller_vat_id": _tax_id(seller, "VA"),
        "buyer_name": text_at(buyer, "Name"),
        "buyer_vat_id": _tax_id(buyer, "VA"),
        "purchase_order": po,
        "iban": iban,
        "preceding_invoice_number": text_at(settlement, "InvoiceReferencedDocument/IssuerAssignedID")
        or text_at(settlement, "InvoiceReferencedDocument/ID"),
    }
    money = {}
    for name, tag in (
        ("net_total", "TaxBasisTotalAmount"),
        ("tax_total", "TaxTotalAmount"),
        ("gross_total", "GrandTotalAmount"),
        ("amount_due", "DuePayableAmount"),
        ("line_total", "LineTotalAmount"),
        ("charge_total", "ChargeTotalAmount"),
        ("allowance_total", "AllowanceTotalAmount"),
        ("prepaid", "TotalPrepaidAmount"),
        ("rounding", "RoundingAmount"),
    ):
        money[name] = amount_in(children(summation, tag), currency)
    for name in ("net_total", "tax_total", "gross_total", "amount_due"):
        raw[name] = money[name][1]
    inv.totals = {
        k: money[k][0]
        for k in ("line_total", "charge_total", "allowance_total", "prepaid", "rounding")
    }
    inv.raw = raw
    inv.fields = {k: v for k, v in raw.items()}
    for name in ("net_total", "tax_total", "gross_total", "amount_due"):
        inv.fields[name] = money[name][0]
    for tax in children(settlement, "ApplicableTradeTax"):
        inv.tax_breakdown.append(
            {
                "amount": xs_decimal(text_at(tax, "CalculatedAmount")),
                "basis": xs_decimal(text_at(tax, "BasisAmount")),
                "rate": xs_decimal(text_at(tax, tags.rate) or text_at(tax, "ApplicablePercent")),
                "category": text_at(tax, "CategoryCode"),
            }
        )
    for item in children(tx, "IncludedSupplyChainTradeLineItem"):
        agr = find_one(item, tags.line_agreement)
        dlv = find_one(item, tags.line_delivery)
        stl = find_one(item, tags.line_settlement)
        rate = text_at(stl, f"ApplicableTradeTax/{tags.rate}") or text_at(
            stl, "ApplicableTradeTax/ApplicablePercent"
        )
        inv.line_items.append(
            {
                "line_id": text_at(item, "AssociatedDocumentLineDocument/LineID"),
                "description": text_at(item, "SpecifiedTradeProduct/Name"),
                "quantity": xs_decimal(text_at(dlv, "BilledQuantity")),
                "unit_price": xs_decimal(text_at(agr, "NetPriceProductTradePrice/ChargeAmount")),
                "net_amount": xs_decimal(
                    text_at(stl, "SpecifiedTradeSettlementMonetarySummation/LineTotalAmount")
                    or text_at(stl, "SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount")
                ),
                "vat_rate": xs_decimal(rate),
            }
        )
    return inv
