"""OASIS UBL 2.x ``Invoice`` and ``CreditNote`` (Peppol BIS Billing 3.0, XRechnung UBL). Values
are copied, never recomputed."""

from __future__ import annotations

from .xml_model import (
    XmlInvoice, amount_in, children, find_all, find_one, local_name,
    text_at, xs_decimal,
)


def _ubl_party(root, role: str):
    return find_one(root, f"{role}/Party")


def _ubl_party_name(party) -> str | None:
    return text_at(party, "PartyLegalEntity/RegistrationName") or text_at(party, "PartyName/Name")


def _ubl_vat(party) -> str | None:
    for scheme in find_all(party, "PartyTaxScheme"):
        tax_scheme = (text_at(scheme, "TaxScheme/ID") or "VAT").upper()
        if tax_scheme == "VAT" and text_at(scheme, "CompanyID"):
            return text_at(scheme, "CompanyID")
    return None


def read_ubl(root) -> XmlInvoice:
    credit = local_name(root) == "CreditNote"
    inv = XmlInvoice(syntax="UBL", credit_note_root=credit)
    inv.profile = text_at(root, "CustomizationID")
    inv.type_code = text_at(root, "CreditNoteTypeCode" if credit else "InvoiceTypeCode")
    currency = text_at(root, "DocumentCurrencyCode")
    seller = _ubl_party(root, "AccountingSupplierParty")
    buyer = _ubl_party(root, "AccountingCustomerParty")
    due = text_at(root, "DueDate")
    if not due:
        for means in find_all(root, "PaymentMeans"):
            due = text_at(means, "PaymentDueDate")
            if due:
                break
    iban = None
    for means in find_all(root, "PaymentMeans"):
        iban = text_at(means, "PayeeFinancialAccount/ID")
        if iban:
            break
    monetary = find_one(root, "LegalMonetaryTotal")
    tax_amounts = [t for t in find_all(root, "TaxTotal/TaxAmount")]
    raw = {
        "invoice_number": text_at(root, "ID"),
        "issue_date": (text_at(root, "IssueDate") or "")[:10] or None,
        "due_date": due[:10] if due else None,
        "currency": currency,
        "seller_name": _ubl_party_name(seller),
        "seller_vat_id": _ubl_vat(seller),
        "buyer_name": _ubl_party_name(buyer),
        "buyer_vat_id": _ubl_vat(buyer),
        "purchase_order": text_at(root, "OrderReference/ID"),
        "iban": iban,
        "preceding_invoice_number": text_at(root, "BillingReference/InvoiceDocumentReference/ID"),
    }
    money = {
        "net_total": amount_in(children(monetary, "TaxExclusiveAmount"), currency),
        "tax_total": amount_in(tax_amounts, currency),
        "gross_total": amount_in(children(monetary, "TaxInclusiveAmount"), currency),
        "amount_due": amount_in(children(monetary, "PayableAmount"), currency),
    }
    for k in money:
        raw[k] = money[k][1]
    inv.raw = raw
    inv.fields = dict(raw)
    for k in money:
        inv.fields[k] = money[k][0]
    inv.totals = {
        "line_total": xs_decimal(text_at(monetary, "LineExtensionAmount")),
        "charge_total": xs_decimal(text_at(monetary, "ChargeTotalAmount")),
        "allowance_total": xs_decimal(text_at(monetary, "AllowanceTotalAmount")),
        "prepaid": xs_decimal(text_at(monetary, "PrepaidAmount")),
        "rounding": xs_decimal(text_at(monetary, "PayableRoundingAmount")),
    }
    for total in find_all(root, "TaxTotal"):
        subs = children(total, "TaxSubtotal")
        if not subs:
            continue
        if (
            currency
            and find_one(total, "TaxAmount") is not None
            and (find_one(total, "TaxAmount").get("currencyID") not in (None, currency))
        ):
            continue
        for sub in subs:
            inv.tax_breakdown.append(
                {
                    "amount": xs_decimal(text_at(sub, "TaxAmount")),
                    "basis": xs_decimal(text_at(sub, "TaxableAmount")),
                    "rate": xs_decimal(text_at(sub, "TaxCategory/Percent") or text_at(sub, "Percent")),
                    "category": text_at(sub, "TaxCategory/ID"),
                }
            )
    for line in children(root, "CreditNoteLine" if credit else "InvoiceLine"):
        qty = text_at(line, "CreditedQuantity" if credit else "InvoicedQuantity")
        inv.line_items.append(
            {
                "line_id": text_at(line, "ID"),
                "description": text_at(line, "Item/Name") or text_at(line, "Item/Description"),
                "quantity": xs_decimal(qty),
                "unit_price": xs_decimal(text_at(line, "Price/PriceAmount")),
                "net_amount": xs_decimal(text_at(line, "LineExtensionAmount")),
                "vat_rate": xs_decimal(text_at(line, "Item/ClassifiedTaxCategory/Percent")),
            }
        )
    return inv
