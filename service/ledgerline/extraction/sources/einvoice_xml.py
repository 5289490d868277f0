"""Exact reading of e-invoice XML, on its own or embedded in a PDF: UN/CEFACT CII, OASIS UBL
and Poland's KSeF FA structure (``ksef_xml``).

Supported: Factur-X / ZUGFeRD 2.x / XRechnung CII (``CrossIndustryInvoice``), ZUGFeRD 1.0
(``CrossIndustryDocument``, and the pre-release ``CBFBUY`` variant with the same element names),
UBL 2.x ``Invoice`` and ``CreditNote`` (Peppol BIS Billing 3.0, XRechnung UBL), KSeF FA(1)-(3).
Elements are addressed by local name so namespace prefixes and minor namespace drift do not
matter.  Values are copied, never recomputed.  Parsing is ``xml_parsing``'s: nothing resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from lxml import etree

from ..errors import ExtractionError
from .xml_parsing import parse_xml

__all__ = ["XmlInvoice", "parse_invoice_xml", "read_invoice_xml", "pick_invoice_attachment"]


@dataclass
class XmlInvoice:
    syntax: str  # "CII", "CII-ZUGFeRD1", "UBL", "KSeF"
    profile: str | None = None  # customisation / guideline id; KSeF: "FA (3)"
    type_code: str | None = None
    credit_note_root: bool = False  # a UBL CreditNote (its type code may say nothing more)
    fields: dict = field(default_factory=dict)  # name -> str | Decimal | None (raw XML text kept)
    raw: dict = field(default_factory=dict)  # name -> text as in the XML
    line_items: list = field(default_factory=list)
    tax_breakdown: list = field(default_factory=list)  # {basis, amount, rate, category}
    totals: dict = field(default_factory=dict)  # line_total, charge_total, allowance_total, prepaid
    warnings: list = field(default_factory=list)  # what was read leniently
    # the country of a VAT id the XML gives without its prefix (KSeF: a Polish NIP)
    vat_countries: dict = field(default_factory=dict)
    root: object = field(default=None, repr=False)  # the parsed document, for the official rules


def _ln(el) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


def _kids(el, name: str):
    if el is None:
        return []
    return [c for c in el if _ln(c) == name]


def _all(el, path: str) -> list:
    """All elements along a '/'-separated path of local names."""
    nodes = [el] if el is not None else []
    for part in path.split("/"):
        nodes = [c for n in nodes for c in _kids(n, part)]
    return nodes


def _one(el, path: str):
    found = _all(el, path)
    return found[0] if found else None


def _text(el, path: str | None = None) -> str | None:
    node = _one(el, path) if path else el
    if node is None or node.text is None:
        return None
    t = " ".join(node.text.split())
    return t or None


# xs:decimal, the type of every amount, quantity and rate in UBL, CII and KSeF: ASCII digits,
# an optional sign and point, nothing else. Decimal() alone also reads "1e3", "1_000" and other
# scripts' digits ("١٢٠"), which the official rules refuse; such a value is not a number here.
XS_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _dec(text: str | None) -> Decimal | None:
    text = text.strip(" \t\r\n") if text is not None else ""
    if not XS_DECIMAL.fullmatch(text):
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite() or (value != 0 and not -12 <= value.adjusted() <= 18):
        return None  # NaN, infinities and absurd magnitudes are not amounts
    return value


def _cii_date(el, warnings: list | None = None) -> str | None:
    """CII date: a DateTimeString child (or the element itself), format 102 (CCYYMMDD)."""
    if el is None:
        return None
    node = _one(el, "DateTimeString")
    if node is None:
        node = el
    t = (node.text or "").strip()
    fmt = node.get("format", "102")
    if re.fullmatch(r"[0-9]{8}", t):
        if fmt != "102" and warnings is not None:
            warnings.append(f"{_ln(el)}: date format code {fmt!r} is not 102; read as CCYYMMDD")
        return f"{t[:4]}-{t[4:6]}-{t[6:8]}"
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", t[:10]):
        return t[:10]
    return None


def _first(el, *paths: str):
    for path in paths:
        node = _one(el, path)
        if node is not None:
            return node
    return None


def _amount_in(els, currency: str | None) -> tuple[Decimal | None, str | None]:
    """The amount among repeated elements whose currencyID is the invoice currency."""
    if not els:
        return None, None
    chosen = els[0]
    if currency and len(els) > 1:
        for e in els:
            if e.get("currencyID") == currency:
                chosen = e
                break
    t = _text(chosen)
    return _dec(t), t


def _tax_id(party, scheme: str) -> str | None:
    for reg in _all(party, "SpecifiedTaxRegistration/ID"):
        if (reg.get("schemeID") or "").upper() == scheme and _text(reg):
            return _text(reg)
    return None


def _read_cii(root, syntax: str) -> XmlInvoice:
    v1 = syntax != "CII"
    inv = XmlInvoice(syntax=syntax)
    ctx = _first(root, "ExchangedDocumentContext", "SpecifiedExchangedDocumentContext")
    inv.profile = _text(ctx, "GuidelineSpecifiedDocumentContextParameter/ID")
    doc = _first(root, "ExchangedDocument", "HeaderExchangedDocument")
    tx = _first(root, "SupplyChainTradeTransaction", "SpecifiedSupplyChainTradeTransaction")
    if v1:
        agreement = _one(tx, "ApplicableSupplyChainTradeAgreement")
        settlement = _one(tx, "ApplicableSupplyChainTradeSettlement")
        summation = _one(settlement, "SpecifiedTradeSettlementMonetarySummation")
        po = _text(agreement, "BuyerOrderReferencedDocument/ID")
    else:
        agreement = _one(tx, "ApplicableHeaderTradeAgreement")
        settlement = _one(tx, "ApplicableHeaderTradeSettlement")
        summation = _one(settlement, "SpecifiedTradeSettlementHeaderMonetarySummation")
        po = _text(agreement, "BuyerOrderReferencedDocument/IssuerAssignedID")
    inv.type_code = _text(doc, "TypeCode")
    seller = _one(agreement, "SellerTradeParty")
    buyer = _one(agreement, "BuyerTradeParty")
    currency = _text(settlement, "InvoiceCurrencyCode")
    iban = None
    for means in _all(settlement, "SpecifiedTradeSettlementPaymentMeans"):
        iban = _text(means, "PayeePartyCreditorFinancialAccount/IBANID")
        if iban:
            break
    due = None
    for terms in _all(settlement, "SpecifiedTradePaymentTerms"):
        due = _cii_date(_one(terms, "DueDateDateTime"), inv.warnings)
        if due:
            break
    raw = {
        "invoice_number": _text(doc, "ID"),
        "issue_date": _cii_date(_one(doc, "IssueDateTime"), inv.warnings),
        "due_date": due,
        "currency": currency,
        "seller_name": _text(seller, "Name"),
        "seller_vat_id": _tax_id(seller, "VA"),
        "buyer_name": _text(buyer, "Name"),
        "buyer_vat_id": _tax_id(buyer, "VA"),
        "purchase_order": po,
        "iban": iban,
        "preceding_invoice_number": _text(settlement, "InvoiceReferencedDocument/IssuerAssignedID")
        or _text(settlement, "InvoiceReferencedDocument/ID"),
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
        money[name] = _amount_in(_kids(summation, tag), currency)
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
    rate_tag = "ApplicablePercent" if v1 else "RateApplicablePercent"
    for tax in _kids(settlement, "ApplicableTradeTax"):
        inv.tax_breakdown.append(
            {
                "amount": _dec(_text(tax, "CalculatedAmount")),
                "basis": _dec(_text(tax, "BasisAmount")),
                "rate": _dec(_text(tax, rate_tag) or _text(tax, "ApplicablePercent")),
                "category": _text(tax, "CategoryCode"),
            }
        )
    for item in _kids(tx, "IncludedSupplyChainTradeLineItem"):
        if v1:
            agr = _one(item, "SpecifiedSupplyChainTradeAgreement")
            dlv = _one(item, "SpecifiedSupplyChainTradeDelivery")
            stl = _one(item, "SpecifiedSupplyChainTradeSettlement")
        else:
            agr = _one(item, "SpecifiedLineTradeAgreement")
            dlv = _one(item, "SpecifiedLineTradeDelivery")
            stl = _one(item, "SpecifiedLineTradeSettlement")
        rate = _text(stl, f"ApplicableTradeTax/{rate_tag}") or _text(
            stl, "ApplicableTradeTax/ApplicablePercent"
        )
        inv.line_items.append(
            {
                "line_id": _text(item, "AssociatedDocumentLineDocument/LineID"),
                "description": _text(item, "SpecifiedTradeProduct/Name"),
                "quantity": _dec(_text(dlv, "BilledQuantity")),
                "unit_price": _dec(_text(agr, "NetPriceProductTradePrice/ChargeAmount")),
                "net_amount": _dec(
                    _text(stl, "SpecifiedTradeSettlementMonetarySummation/LineTotalAmount")
                    or _text(stl, "SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount")
                ),
                "vat_rate": _dec(rate),
            }
        )
    return inv


def _ubl_party(root, role: str):
    return _one(root, f"{role}/Party")


def _ubl_party_name(party) -> str | None:
    return _text(party, "PartyLegalEntity/RegistrationName") or _text(party, "PartyName/Name")


def _ubl_vat(party) -> str | None:
    for scheme in _all(party, "PartyTaxScheme"):
        tax_scheme = (_text(scheme, "TaxScheme/ID") or "VAT").upper()
        if tax_scheme == "VAT" and _text(scheme, "CompanyID"):
            return _text(scheme, "CompanyID")
    return None


def _read_ubl(root) -> XmlInvoice:
    credit = _ln(root) == "CreditNote"
    inv = XmlInvoice(syntax="UBL", credit_note_root=credit)
    inv.profile = _text(root, "CustomizationID")
    inv.type_code = _text(root, "CreditNoteTypeCode" if credit else "InvoiceTypeCode")
    currency = _text(root, "DocumentCurrencyCode")
    seller = _ubl_party(root, "AccountingSupplierParty")
    buyer = _ubl_party(root, "AccountingCustomerParty")
    due = _text(root, "DueDate")
    if not due:
        for means in _all(root, "PaymentMeans"):
            due = _text(means, "PaymentDueDate")
            if due:
                break
    iban = None
    for means in _all(root, "PaymentMeans"):
        iban = _text(means, "PayeeFinancialAccount/ID")
        if iban:
            break
    monetary = _one(root, "LegalMonetaryTotal")
    tax_amounts = [t for t in _all(root, "TaxTotal/TaxAmount")]
    raw = {
        "invoice_number": _text(root, "ID"),
        "issue_date": (_text(root, "IssueDate") or "")[:10] or None,
        "due_date": due[:10] if due else None,
        "currency": currency,
        "seller_name": _ubl_party_name(seller),
        "seller_vat_id": _ubl_vat(seller),
        "buyer_name": _ubl_party_name(buyer),
        "buyer_vat_id": _ubl_vat(buyer),
        "purchase_order": _text(root, "OrderReference/ID"),
        "iban": iban,
        "preceding_invoice_number": _text(root, "BillingReference/InvoiceDocumentReference/ID"),
    }
    money = {
        "net_total": _amount_in(_kids(monetary, "TaxExclusiveAmount"), currency),
        "tax_total": _amount_in(tax_amounts, currency),
        "gross_total": _amount_in(_kids(monetary, "TaxInclusiveAmount"), currency),
        "amount_due": _amount_in(_kids(monetary, "PayableAmount"), currency),
    }
    for k in money:
        raw[k] = money[k][1]
    inv.raw = raw
    inv.fields = dict(raw)
    for k in money:
        inv.fields[k] = money[k][0]
    inv.totals = {
        "line_total": _dec(_text(monetary, "LineExtensionAmount")),
        "charge_total": _dec(_text(monetary, "ChargeTotalAmount")),
        "allowance_total": _dec(_text(monetary, "AllowanceTotalAmount")),
        "prepaid": _dec(_text(monetary, "PrepaidAmount")),
        "rounding": _dec(_text(monetary, "PayableRoundingAmount")),
    }
    for total in _all(root, "TaxTotal"):
        subs = _kids(total, "TaxSubtotal")
        if not subs:
            continue
        if (
            currency
            and _one(total, "TaxAmount") is not None
            and (_one(total, "TaxAmount").get("currencyID") not in (None, currency))
        ):
            continue
        for sub in subs:
            inv.tax_breakdown.append(
                {
                    "amount": _dec(_text(sub, "TaxAmount")),
                    "basis": _dec(_text(sub, "TaxableAmount")),
                    "rate": _dec(_text(sub, "TaxCategory/Percent") or _text(sub, "Percent")),
                    "category": _text(sub, "TaxCategory/ID"),
                }
            )
    for line in _kids(root, "CreditNoteLine" if credit else "InvoiceLine"):
        qty = _text(line, "CreditedQuantity" if credit else "InvoicedQuantity")
        inv.line_items.append(
            {
                "line_id": _text(line, "ID"),
                "description": _text(line, "Item/Name") or _text(line, "Item/Description"),
                "quantity": _dec(qty),
                "unit_price": _dec(_text(line, "Price/PriceAmount")),
                "net_amount": _dec(_text(line, "LineExtensionAmount")),
                "vat_rate": _dec(_text(line, "Item/ClassifiedTaxCategory/Percent")),
            }
        )
    return inv


KSEF_NAMESPACE_PREFIX = "http://crd.gov.pl/wzor/"


def _read_root(root) -> XmlInvoice | None:
    name = _ln(root)
    ns = etree.QName(root).namespace or ""
    if name == "CrossIndustryInvoice":
        return _read_cii(root, "CII")
    if name == "CrossIndustryDocument":
        return _read_cii(root, "CII-ZUGFeRD1")
    if name == "Invoice" and "CBFBUY" in ns:
        return _read_cii(root, "CII-ZUGFeRD1")
    if name in ("Invoice", "CreditNote") and "ubl" in ns.lower():
        return _read_ubl(root)
    if name == "Faktura" and ns.startswith(KSEF_NAMESPACE_PREFIX):
        from .ksef_xml import read_ksef

        return read_ksef(root)
    return None


def parse_invoice_xml(data: bytes) -> XmlInvoice:
    """Read a CII, UBL or KSeF invoice; raises ExtractionError for hostile or broken XML and
    ``xml_not_an_invoice`` for well-formed XML of another kind."""
    # KSeF comes from Polish systems: bytes that are not the declared UTF-8 are Windows-1250
    fallback = "cp1250" if KSEF_NAMESPACE_PREFIX.encode() in data[:4096] else "cp1252"
    root, warnings = parse_xml(data, fallback_encoding=fallback)
    inv = _read_root(root)
    if inv is None:
        raise ExtractionError(
            "xml_not_an_invoice",
            f"the XML is a {_ln(root)!r} document, not a UBL, CII or KSeF invoice",
        )
    inv.warnings[:0] = warnings
    inv.root = root
    return inv


def read_invoice_xml(data: bytes) -> XmlInvoice | None:
    """The invoice in an attachment; None when the bytes are not a readable invoice XML."""
    try:
        return parse_invoice_xml(data)
    except ExtractionError:
        return None


_PREFERRED_NAMES = ("factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml", "zugferd.xml")


def pick_invoice_attachment(attachments) -> tuple[object, XmlInvoice] | None:
    """The attachment that holds the invoice XML (well-known names first), read."""
    ordered = sorted(
        attachments,
        key=lambda a: (
            (a.name or "").lower() not in _PREFERRED_NAMES,
            (a.relationship or "") not in ("Alternative", "Data", "Source"),
            not (a.name or "").lower().endswith(".xml"),
        ),
    )
    for att in ordered:
        head = att.data[:4096].lstrip()
        if not head.startswith((b"<", b"\xef\xbb\xbf")):
            continue
        inv = read_invoice_xml(att.data)
        if inv is not None:
            return att, inv
    return None
