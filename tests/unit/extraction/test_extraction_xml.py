"""Embedded e-invoice XML readers: CII (Factur-X / ZUGFeRD 2 / XRechnung), ZUGFeRD 1.0, UBL."""

from decimal import Decimal

from ledgerline.extraction.sources.einvoice_xml import pick_invoice_attachment, read_invoice_xml
from ledgerline.extraction.sources.pdf_attachments import Attachment

CII = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
 <rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>
  <ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
 </rsm:ExchangedDocumentContext>
 <rsm:ExchangedDocument><ram:ID>INV-2024-001</ram:ID><ram:TypeCode>380</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20240305</udt:DateTimeString>
   </ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:IncludedSupplyChainTradeLineItem>
   <ram:AssociatedDocumentLineDocument><ram:LineID>1</ram:LineID>
    </ram:AssociatedDocumentLineDocument>
   <ram:SpecifiedTradeProduct><ram:Name>Widget</ram:Name></ram:SpecifiedTradeProduct>
   <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice>
    <ram:ChargeAmount>9.90</ram:ChargeAmount>
   </ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>
   <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="H87">20.0000</ram:BilledQuantity>
   </ram:SpecifiedLineTradeDelivery>
   <ram:SpecifiedLineTradeSettlement>
    <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode>
     <ram:RateApplicablePercent>19</ram:RateApplicablePercent></ram:ApplicableTradeTax>
    <ram:SpecifiedTradeSettlementLineMonetarySummation>
     <ram:LineTotalAmount>198.00</ram:LineTotalAmount>
    </ram:SpecifiedTradeSettlementLineMonetarySummation>
   </ram:SpecifiedLineTradeSettlement>
  </ram:IncludedSupplyChainTradeLineItem>
  <ram:ApplicableHeaderTradeAgreement>
   <ram:SellerTradeParty><ram:Name>Seller GmbH</ram:Name>
    <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID>
     </ram:SpecifiedTaxRegistration>
    <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE136695976</ram:ID>
     </ram:SpecifiedTaxRegistration>
   </ram:SellerTradeParty>
   <ram:BuyerTradeParty><ram:Name>Buyer AG</ram:Name></ram:BuyerTradeParty>
   <ram:BuyerOrderReferencedDocument><ram:IssuerAssignedID>PO-77</ram:IssuerAssignedID>
   </ram:BuyerOrderReferencedDocument>
  </ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement>
   <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode>
    <ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE02120300000000202051</ram:IBANID>
    </ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>
   <ram:ApplicableTradeTax><ram:CalculatedAmount>37.62</ram:CalculatedAmount>
    <ram:TypeCode>VAT</ram:TypeCode>
    <ram:BasisAmount>198.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode>
    <ram:RateApplicablePercent>19</ram:RateApplicablePercent></ram:ApplicableTradeTax>
   <ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime>
    <udt:DateTimeString format="102">20240404</udt:DateTimeString></ram:DueDateDateTime>
   </ram:SpecifiedTradePaymentTerms>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    <ram:LineTotalAmount>198.00</ram:LineTotalAmount>
    <ram:TaxBasisTotalAmount>198.00</ram:TaxBasisTotalAmount>
    <ram:TaxTotalAmount currencyID="USD">40.00</ram:TaxTotalAmount>
    <ram:TaxTotalAmount currencyID="EUR">37.62</ram:TaxTotalAmount>
    <ram:GrandTotalAmount>235.62</ram:GrandTotalAmount>
    <ram:DuePayableAmount>235.62</ram:DuePayableAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"""

ZF1 = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
 <rsm:HeaderExchangedDocument><ram:ID>RE-1</ram:ID><ram:TypeCode>380</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20131006</udt:DateTimeString>
   </ram:IssueDateTime>
 </rsm:HeaderExchangedDocument>
 <rsm:SpecifiedSupplyChainTradeTransaction>
  <ram:ApplicableSupplyChainTradeAgreement>
   <ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name></ram:SellerTradeParty>
   <ram:BuyerTradeParty><ram:Name>Kunde AG</ram:Name>
    <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE999999999</ram:ID>
     </ram:SpecifiedTaxRegistration>
   </ram:BuyerTradeParty>
  </ram:ApplicableSupplyChainTradeAgreement>
  <ram:ApplicableSupplyChainTradeSettlement>
   <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementMonetarySummation>
    <ram:LineTotalAmount currencyID="EUR">100.00</ram:LineTotalAmount>
    <ram:TaxBasisTotalAmount currencyID="EUR">100.00</ram:TaxBasisTotalAmount>
    <ram:TaxTotalAmount currencyID="EUR">7.00</ram:TaxTotalAmount>
    <ram:GrandTotalAmount currencyID="EUR">107.00</ram:GrandTotalAmount>
    <ram:DuePayableAmount currencyID="EUR">107.00</ram:DuePayableAmount>
   </ram:SpecifiedTradeSettlementMonetarySummation>
  </ram:ApplicableSupplyChainTradeSettlement>
  <ram:IncludedSupplyChainTradeLineItem>
   <ram:SpecifiedSupplyChainTradeDelivery><ram:BilledQuantity unitCode="C62">2</ram:BilledQuantity>
   </ram:SpecifiedSupplyChainTradeDelivery>
   <ram:SpecifiedSupplyChainTradeSettlement>
    <ram:ApplicableTradeTax><ram:ApplicablePercent>7.00</ram:ApplicablePercent>
     </ram:ApplicableTradeTax>
    <ram:SpecifiedTradeSettlementMonetarySummation><ram:LineTotalAmount>100.00</ram:LineTotalAmount>
    </ram:SpecifiedTradeSettlementMonetarySummation>
   </ram:SpecifiedSupplyChainTradeSettlement>
   <ram:SpecifiedTradeProduct><ram:Name>Ware</ram:Name></ram:SpecifiedTradeProduct>
  </ram:IncludedSupplyChainTradeLineItem>
 </rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>"""


def _ubl(root: str, line: str, qty: str) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<{root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:{root}-2"
 xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
 xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
 <cbc:ID>CN-9</cbc:ID><cbc:IssueDate>2024-01-31</cbc:IssueDate><cbc:DueDate>2024-02-29</cbc:DueDate>
 <cbc:DocumentCurrencyCode>GBP</cbc:DocumentCurrencyCode>
 <cac:OrderReference><cbc:ID>PO-1</cbc:ID></cac:OrderReference>
 <cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Trading Name</cbc:Name>
  </cac:PartyName>
  <cac:PartyTaxScheme><cbc:CompanyID>GB123456789</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID>
   </cac:TaxScheme>
  </cac:PartyTaxScheme>
  <cac:PartyLegalEntity><cbc:RegistrationName>Legal Name Ltd</cbc:RegistrationName>
   </cac:PartyLegalEntity>
 </cac:Party></cac:AccountingSupplierParty>
 <cac:AccountingCustomerParty><cac:Party><cac:PartyName><cbc:Name>Customer Ltd</cbc:Name>
  </cac:PartyName>
 </cac:Party></cac:AccountingCustomerParty>
 <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>
  <cac:PayeeFinancialAccount><cbc:ID>GB29NWBK60161331926819</cbc:ID></cac:PayeeFinancialAccount>
   </cac:PaymentMeans>
 <cac:TaxTotal><cbc:TaxAmount currencyID="GBP">20.00</cbc:TaxAmount>
  <cac:TaxSubtotal><cbc:TaxableAmount currencyID="GBP">100.00</cbc:TaxableAmount>
   <cbc:TaxAmount currencyID="GBP">20.00</cbc:TaxAmount>
   <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent></cac:TaxCategory>
    </cac:TaxSubtotal>
 </cac:TaxTotal>
 <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="GBP">100.00</cbc:LineExtensionAmount>
  <cbc:TaxExclusiveAmount currencyID="GBP">100.00</cbc:TaxExclusiveAmount>
  <cbc:TaxInclusiveAmount currencyID="GBP">120.00</cbc:TaxInclusiveAmount>
  <cbc:PrepaidAmount currencyID="GBP">20.00</cbc:PrepaidAmount>
  <cbc:PayableAmount currencyID="GBP">100.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
 <cac:{line}><cbc:ID>1</cbc:ID><cbc:{qty} unitCode="EA">4</cbc:{qty}>
  <cbc:LineExtensionAmount currencyID="GBP">100.00</cbc:LineExtensionAmount>
  <cac:Item><cbc:Name>Service</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID>
   <cbc:Percent>20</cbc:Percent>
  </cac:ClassifiedTaxCategory></cac:Item><cac:Price>
   <cbc:PriceAmount currencyID="GBP">25.00</cbc:PriceAmount></cac:Price>
 </cac:{line}>
</{root}>""".encode()


def test_cii_header_fields_and_totals():
    inv = read_invoice_xml(CII)
    assert inv.syntax == "CII" and inv.type_code == "380"
    f = inv.fields
    assert f["invoice_number"] == "INV-2024-001"
    assert f["issue_date"] == "2024-03-05" and f["due_date"] == "2024-04-04"
    assert f["currency"] == "EUR"
    assert f["seller_name"] == "Seller GmbH" and f["seller_vat_id"] == "DE136695976"
    assert f["buyer_name"] == "Buyer AG" and f["buyer_vat_id"] is None
    assert f["purchase_order"] == "PO-77" and f["iban"] == "DE02120300000000202051"
    # the VAT total in the invoice currency, not the accounting currency
    assert f["tax_total"] == Decimal("37.62")
    assert (f["net_total"], f["gross_total"], f["amount_due"]) == (
        Decimal("198.00"),
        Decimal("235.62"),
        Decimal("235.62"),
    )
    assert inv.tax_breakdown == [
        {
            "amount": Decimal("37.62"),
            "basis": Decimal("198.00"),
            "rate": Decimal("19"),
            "category": "S",
        }
    ]


def test_cii_line_items():
    (item,) = read_invoice_xml(CII).line_items
    assert item["description"] == "Widget"
    assert item["quantity"] == Decimal("20.0000") and item["unit_price"] == Decimal("9.90")
    assert item["net_amount"] == Decimal("198.00") and item["vat_rate"] == Decimal("19")


def test_zugferd1_reader():
    inv = read_invoice_xml(ZF1)
    assert inv.syntax == "CII-ZUGFeRD1"
    assert inv.fields["invoice_number"] == "RE-1" and inv.fields["issue_date"] == "2013-10-06"
    assert inv.fields["buyer_vat_id"] == "DE999999999"
    assert inv.fields["gross_total"] == Decimal("107.00")
    assert inv.line_items[0]["vat_rate"] == Decimal("7.00")
    assert inv.line_items[0]["quantity"] == Decimal("2")


def test_ubl_invoice_and_credit_note():
    for root, line, qty in (
        ("Invoice", "InvoiceLine", "InvoicedQuantity"),
        ("CreditNote", "CreditNoteLine", "CreditedQuantity"),
    ):
        inv = read_invoice_xml(_ubl(root, line, qty))
        assert inv.syntax == "UBL"
        f = inv.fields
        assert f["invoice_number"] == "CN-9" and f["currency"] == "GBP"
        assert f["seller_name"] == "Legal Name Ltd"  # BT-27 is the registration name
        assert f["seller_vat_id"] == "GB123456789" and f["buyer_name"] == "Customer Ltd"
        assert f["due_date"] == "2024-02-29" and f["purchase_order"] == "PO-1"
        assert (f["net_total"], f["tax_total"], f["gross_total"], f["amount_due"]) == (
            Decimal("100.00"),
            Decimal("20.00"),
            Decimal("120.00"),
            Decimal("100.00"),
        )
        assert inv.totals["prepaid"] == Decimal("20.00")
        assert inv.line_items[0]["quantity"] == Decimal("4")
        assert inv.line_items[0]["unit_price"] == Decimal("25.00")


def test_lenient_reading_is_reported():
    broken = CII.replace(b'format="102">20240305', b'format="1020">20240305')
    inv = read_invoice_xml(broken)
    assert inv.fields["issue_date"] == "2024-03-05"
    assert inv.warnings and "1020" in inv.warnings[0]


def test_bad_xml_declaration_still_reads():
    data = CII.replace(b'encoding="UTF-8"', b'encoding="UTF-8-W/O-BOM"')
    assert read_invoice_xml(data).fields["invoice_number"] == "INV-2024-001"


def test_not_an_invoice():
    assert read_invoice_xml(b"<root><a/></root>") is None
    assert read_invoice_xml(b"not xml at all") is None
    assert (
        read_invoice_xml(b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>')
        is None
    )


def test_pick_prefers_the_invoice_attachment():
    atts = [
        Attachment("logo.png", b"\x89PNG...."),
        Attachment("other.xml", b"<x/>"),
        Attachment("factur-x.xml", CII, relationship="Alternative"),
    ]
    att, inv = pick_invoice_attachment(atts)
    assert att.name == "factur-x.xml" and inv.fields["invoice_number"] == "INV-2024-001"
    assert pick_invoice_attachment([Attachment("a.xml", b"<x/>")]) is None
