"""E-invoice XML the suite makes itself, from a generated sample invoice's truth.

``make(kind, seed)`` returns ``(xml_bytes, expected)``: the invoice of ``ledgerline_tools.samples``
seed ``seed`` as a UBL 2.1 invoice (``ubl``: EN 16931; ``peppol``: Peppol BIS Billing 3.0;
``xrechnung-ubl``), a UBL credit note (``ubl-credit-note``), UN/CEFACT CII (``cii``: Factur-X
EN 16931; ``xrechnung-cii``) or a KSeF invoice (``ksef-fa2``, ``ksef-fa3``), and the field values
an exact reader must find in it. Parties, numbers, dates, lines and the paid amount come from the
sample; the totals are recomputed from the lines so that every document is valid under the
official EN 16931 rules (the suite checks that it is).
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from xml.sax.saxutils import escape

from ledgerline_tools.samples import generate

CENT = Decimal("0.01")
FALLBACK_SELLER_VAT = "DE136695976"  # a valid id for samples that print their seller's bare
BUSINESS_PROCESS = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"
KINDS = ("ubl", "peppol", "xrechnung-ubl", "ubl-credit-note", "cii", "xrechnung-cii",
         "ksef-fa2", "ksef-fa3")
CUSTOMISATION = {
    "ubl": "urn:cen.eu:en16931:2017",
    "ubl-credit-note": "urn:cen.eu:en16931:2017",
    "peppol": "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0",
    "xrechnung-ubl": "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0",
    "cii": "urn:cen.eu:en16931:2017",
    "xrechnung-cii": "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0",
}
KSEF = {"ksef-fa2": ("http://crd.gov.pl/wzor/2023/06/29/12648/", "FA (2)", "2"),
        "ksef-fa3": ("http://crd.gov.pl/wzor/2025/06/25/13775/", "FA (3)", "3")}


def _money(v) -> Decimal:
    return Decimal(str(v)).quantize(CENT, ROUND_HALF_UP)


def _x(v) -> str:
    return escape(str(v))


class Invoice:
    """The sample's values, with totals that add up exactly."""

    def __init__(self, seed: int, lang: str | None = None):
        _, truth = generate(seed, lang=lang)
        self.truth = truth
        self.number = truth["invoice_number"] or f"INV-{seed}"
        self.issue = truth["issue_date"]
        self.due = truth["due_date"]
        self.currency = truth["currency"] or "EUR"
        self.seller, self.buyer = truth["seller_name"], truth["buyer_name"] or "Buyer"
        self.seller_vat = _prefixed(truth["seller_vat_id"]) or FALLBACK_SELLER_VAT
        self.buyer_vat = _prefixed(truth["buyer_vat_id"])
        self.order = truth["purchase_order"]
        self.iban = truth["iban"]
        self.lines = []
        for item in truth["line_items"]:
            qty = Decimal(str(item["quantity"] or 1))
            price = _money(item["unit_price_net"] or item["net_amount"] or 0)
            self.lines.append((item["name"], qty, price, _money(qty * price),
                               Decimal(str(item["vat_rate"] or 0)).normalize()))
        self.groups: dict[Decimal, list] = {}
        for _, _, _, net, rate in self.lines:
            basis = self.groups.setdefault(rate, [Decimal("0"), Decimal("0")])
            basis[0] += net
        for rate, g in self.groups.items():
            g[1] = _money(g[0] * rate / 100)
        self.net = sum((g[0] for g in self.groups.values()), Decimal("0"))
        self.tax = sum((g[1] for g in self.groups.values()), Decimal("0"))
        self.gross = self.net + self.tax
        paid = _money(truth.get("_adjustments", {}).get("prepaid") or 0)
        self.prepaid = paid if Decimal("0") < paid < self.gross else Decimal("0")
        self.due_amount = self.gross - self.prepaid

    def expected(self, **overrides) -> dict:
        out = {
            "document_type": "invoice", "preceding_invoice_number": None,
            "invoice_number": self.number, "issue_date": self.issue, "due_date": self.due,
            "currency": self.currency, "seller_name": self.seller,
            "seller_vat_id": self.seller_vat, "buyer_name": self.buyer,
            "buyer_vat_id": self.buyer_vat, "purchase_order": self.order, "iban": self.iban,
            "net_total": str(self.net), "tax_total": str(self.tax),
            "gross_total": str(self.gross), "amount_due": str(self.due_amount),
        }
        out.update(overrides)
        return out

    def category(self, rate: Decimal) -> str:
        return "S" if rate > 0 else "Z"


AMOUNTS = ("net_total", "tax_total", "gross_total", "amount_due")


def preceding(inv: Invoice) -> str:
    """The number of the invoice a credit note credits."""
    return f"PREV-{inv.number}"


def _prefixed(vat: str | None) -> str | None:
    """EN 16931 wants VAT ids with their country prefix (BR-CO-9); the samples print some bare."""
    if not vat:
        return None
    return vat if vat[:2].isalpha() else None


# -- UBL ---------------------------------------------------------------------------------------

UBL_NS = ('xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
          'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"')


def _ubl_party(name: str, vat: str | None, country: str, electronic: str) -> str:
    tax = (f"<cac:PartyTaxScheme><cbc:CompanyID>{_x(vat)}</cbc:CompanyID>"
           f"<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>"
           if vat else "")
    return (f'<cac:Party><cbc:EndpointID schemeID="EM">{electronic}</cbc:EndpointID>'
            f"<cac:PostalAddress><cbc:StreetName>Hauptstrasse 1</cbc:StreetName>"
            f"<cbc:CityName>Berlin</cbc:CityName><cbc:PostalZone>10115</cbc:PostalZone>"
            f"<cac:Country><cbc:IdentificationCode>{country}</cbc:IdentificationCode>"
            f"</cac:Country></cac:PostalAddress>{tax}"
            f"<cac:PartyLegalEntity><cbc:RegistrationName>{_x(name)}</cbc:RegistrationName>"
            f"</cac:PartyLegalEntity>"
            f"<cac:Contact><cbc:Name>Accounts</cbc:Name><cbc:Telephone>+49 30 1234567"
            f"</cbc:Telephone><cbc:ElectronicMail>{electronic}</cbc:ElectronicMail>"
            f"</cac:Contact></cac:Party>")


def ubl(inv: Invoice, kind: str) -> bytes:
    credit = kind == "ubl-credit-note"
    root, line_tag, qty_tag = (("CreditNote", "CreditNoteLine", "CreditedQuantity") if credit
                               else ("Invoice", "InvoiceLine", "InvoicedQuantity"))
    c = inv.currency
    subtotals = "".join(
        f'<cac:TaxSubtotal><cbc:TaxableAmount currencyID="{c}">{basis}</cbc:TaxableAmount>'
        f'<cbc:TaxAmount currencyID="{c}">{tax}</cbc:TaxAmount><cac:TaxCategory>'
        f"<cbc:ID>{inv.category(rate)}</cbc:ID><cbc:Percent>{rate}</cbc:Percent>"
        f"<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>"
        for rate, (basis, tax) in inv.groups.items())
    lines = "".join(
        f"<cac:{line_tag}><cbc:ID>{i}</cbc:ID>"
        f'<cbc:{qty_tag} unitCode="C62">{qty}</cbc:{qty_tag}>'
        f'<cbc:LineExtensionAmount currencyID="{c}">{net}</cbc:LineExtensionAmount>'
        f"<cac:Item><cbc:Name>{_x(name)}</cbc:Name><cac:ClassifiedTaxCategory>"
        f"<cbc:ID>{inv.category(rate)}</cbc:ID><cbc:Percent>{rate}</cbc:Percent>"
        f"<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory>"
        f'</cac:Item><cac:Price><cbc:PriceAmount currencyID="{c}">{price}</cbc:PriceAmount>'
        f"</cac:Price></cac:{line_tag}>"
        for i, (name, qty, price, net, rate) in enumerate(inv.lines, start=1))
    order = f"<cac:OrderReference><cbc:ID>{_x(inv.order)}</cbc:ID></cac:OrderReference>" \
        if inv.order else ""
    if credit:  # the invoice it credits
        order += (f"<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>"
                  f"{_x(preceding(inv))}</cbc:ID></cac:InvoiceDocumentReference></cac:BillingReference>")
    iban = (f"<cac:PayeeFinancialAccount><cbc:ID>{inv.iban}</cbc:ID></cac:PayeeFinancialAccount>"
            if inv.iban else "")
    due = f"<cbc:DueDate>{inv.due}</cbc:DueDate>" if inv.due and not credit else ""
    terms = "" if inv.due and not credit else \
        "<cac:PaymentTerms><cbc:Note>30 days net</cbc:Note></cac:PaymentTerms>"
    profile = (f"<cbc:ProfileID>{BUSINESS_PROCESS}</cbc:ProfileID>"
               if kind in ("peppol", "xrechnung-ubl") else "")
    type_code = "<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>" if credit else \
        "<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>"
    prepaid = f'<cbc:PrepaidAmount currencyID="{c}">{inv.prepaid}</cbc:PrepaidAmount>' \
        if inv.prepaid else ""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} '
        f'xmlns="urn:oasis:names:specification:ubl:schema:xsd:{root}-2" {UBL_NS}>'
        f"<cbc:CustomizationID>{CUSTOMISATION[kind]}</cbc:CustomizationID>{profile}"
        f"<cbc:ID>{_x(inv.number)}</cbc:ID><cbc:IssueDate>{inv.issue}</cbc:IssueDate>{due}"
        f"{type_code}<cbc:DocumentCurrencyCode>{c}</cbc:DocumentCurrencyCode>"
        f"<cbc:BuyerReference>04011000-12345-34</cbc:BuyerReference>{order}"
        f"<cac:AccountingSupplierParty>"
        f"{_ubl_party(inv.seller, inv.seller_vat, 'DE', 'billing@seller.example')}"
        f"</cac:AccountingSupplierParty><cac:AccountingCustomerParty>"
        f"{_ubl_party(inv.buyer, inv.buyer_vat, 'DE', 'ap@buyer.example')}"
        f"</cac:AccountingCustomerParty>"
        f"<cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>{iban}"
        f"</cac:PaymentMeans>{terms}"
        f'<cac:TaxTotal><cbc:TaxAmount currencyID="{c}">{inv.tax}</cbc:TaxAmount>{subtotals}'
        f"</cac:TaxTotal><cac:LegalMonetaryTotal>"
        f'<cbc:LineExtensionAmount currencyID="{c}">{inv.net}</cbc:LineExtensionAmount>'
        f'<cbc:TaxExclusiveAmount currencyID="{c}">{inv.net}</cbc:TaxExclusiveAmount>'
        f'<cbc:TaxInclusiveAmount currencyID="{c}">{inv.gross}</cbc:TaxInclusiveAmount>'
        f"{prepaid}"
        f'<cbc:PayableAmount currencyID="{c}">{inv.due_amount}</cbc:PayableAmount>'
        f"</cac:LegalMonetaryTotal>{lines}</{root}>"
    ).encode()


# -- CII ---------------------------------------------------------------------------------------

def _cii_party(tag: str, name: str, vat: str | None, electronic: str) -> str:
    tax = (f'<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">{_x(vat)}</ram:ID>'
           f"</ram:SpecifiedTaxRegistration>" if vat else "")
    return (f"<ram:{tag}><ram:Name>{_x(name)}</ram:Name>"
            f"<ram:DefinedTradeContact><ram:PersonName>Accounts</ram:PersonName>"
            f"<ram:TelephoneUniversalCommunication><ram:CompleteNumber>+49 30 1234567"
            f"</ram:CompleteNumber></ram:TelephoneUniversalCommunication>"
            f"<ram:EmailURIUniversalCommunication><ram:URIID>{electronic}</ram:URIID>"
            f"</ram:EmailURIUniversalCommunication></ram:DefinedTradeContact>"
            f"<ram:PostalTradeAddress><ram:PostcodeCode>10115</ram:PostcodeCode>"
            f"<ram:LineOne>Hauptstrasse 1</ram:LineOne><ram:CityName>Berlin</ram:CityName>"
            f"<ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress>"
            f'<ram:URIUniversalCommunication><ram:URIID schemeID="EM">{electronic}</ram:URIID>'
            f"</ram:URIUniversalCommunication>{tax}</ram:{tag}>")


def _date(iso: str) -> str:
    return f'<udt:DateTimeString format="102">{iso.replace("-", "")}</udt:DateTimeString>'


def cii(inv: Invoice, kind: str) -> bytes:
    c = inv.currency
    lines = "".join(
        f"<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument>"
        f"<ram:LineID>{i}</ram:LineID></ram:AssociatedDocumentLineDocument>"
        f"<ram:SpecifiedTradeProduct><ram:Name>{_x(name)}</ram:Name></ram:SpecifiedTradeProduct>"
        f"<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>"
        f"{price}</ram:ChargeAmount></ram:NetPriceProductTradePrice>"
        f"</ram:SpecifiedLineTradeAgreement><ram:SpecifiedLineTradeDelivery>"
        f'<ram:BilledQuantity unitCode="C62">{qty}</ram:BilledQuantity>'
        f"</ram:SpecifiedLineTradeDelivery><ram:SpecifiedLineTradeSettlement>"
        f"<ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode>"
        f"<ram:CategoryCode>{inv.category(rate)}</ram:CategoryCode>"
        f"<ram:RateApplicablePercent>{rate}</ram:RateApplicablePercent></ram:ApplicableTradeTax>"
        f"<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>{net}"
        f"</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>"
        f"</ram:SpecifiedLineTradeSettlement></ram:IncludedSupplyChainTradeLineItem>"
        for i, (name, qty, price, net, rate) in enumerate(inv.lines, start=1))
    taxes = "".join(
        f"<ram:ApplicableTradeTax><ram:CalculatedAmount>{tax}</ram:CalculatedAmount>"
        f"<ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>{basis}</ram:BasisAmount>"
        f"<ram:CategoryCode>{inv.category(rate)}</ram:CategoryCode>"
        f"<ram:RateApplicablePercent>{rate}</ram:RateApplicablePercent></ram:ApplicableTradeTax>"
        for rate, (basis, tax) in inv.groups.items())
    order = (f"<ram:BuyerOrderReferencedDocument><ram:IssuerAssignedID>{_x(inv.order)}"
             f"</ram:IssuerAssignedID></ram:BuyerOrderReferencedDocument>" if inv.order else "")
    iban = (f"<ram:PayeePartyCreditorFinancialAccount><ram:IBANID>{inv.iban}</ram:IBANID>"
            f"</ram:PayeePartyCreditorFinancialAccount>" if inv.iban else "")
    terms = (f"<ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime>{_date(inv.due)}"
             f"</ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>" if inv.due else
             "<ram:SpecifiedTradePaymentTerms><ram:Description>30 days net</ram:Description>"
             "</ram:SpecifiedTradePaymentTerms>")
    prepaid = f"<ram:TotalPrepaidAmount>{inv.prepaid}</ram:TotalPrepaidAmount>" \
        if inv.prepaid else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rsm:CrossIndustryInvoice '
        'xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" '
        'xmlns:ram="urn:un:unece:uncefact:data:standard:'
        'ReusableAggregateBusinessInformationEntity:100" '
        'xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">'
        "<rsm:ExchangedDocumentContext>"
        + ("<ram:BusinessProcessSpecifiedDocumentContextParameter><ram:ID>"
           f"{BUSINESS_PROCESS}</ram:ID></ram:BusinessProcessSpecifiedDocumentContextParameter>"
           if kind == "xrechnung-cii" else "") +
        "<ram:GuidelineSpecifiedDocumentContextParameter>"
        f"<ram:ID>{CUSTOMISATION[kind]}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>"
        f"</rsm:ExchangedDocumentContext><rsm:ExchangedDocument><ram:ID>{_x(inv.number)}</ram:ID>"
        f"<ram:TypeCode>380</ram:TypeCode><ram:IssueDateTime>{_date(inv.issue)}"
        f"</ram:IssueDateTime></rsm:ExchangedDocument><rsm:SupplyChainTradeTransaction>{lines}"
        f"<ram:ApplicableHeaderTradeAgreement><ram:BuyerReference>04011000-12345-34"
        f"</ram:BuyerReference>"
        f"{_cii_party('SellerTradeParty', inv.seller, inv.seller_vat, 'billing@seller.example')}"
        f"{_cii_party('BuyerTradeParty', inv.buyer, inv.buyer_vat, 'ap@buyer.example')}{order}"
        f"</ram:ApplicableHeaderTradeAgreement><ram:ApplicableHeaderTradeDelivery/>"
        f"<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>{c}"
        f"</ram:InvoiceCurrencyCode><ram:SpecifiedTradeSettlementPaymentMeans>"
        f"<ram:TypeCode>58</ram:TypeCode>{iban}</ram:SpecifiedTradeSettlementPaymentMeans>"
        f"{taxes}{terms}<ram:SpecifiedTradeSettlementHeaderMonetarySummation>"
        f"<ram:LineTotalAmount>{inv.net}</ram:LineTotalAmount>"
        f"<ram:TaxBasisTotalAmount>{inv.net}</ram:TaxBasisTotalAmount>"
        f'<ram:TaxTotalAmount currencyID="{c}">{inv.tax}</ram:TaxTotalAmount>'
        f"<ram:GrandTotalAmount>{inv.gross}</ram:GrandTotalAmount>{prepaid}"
        f"<ram:DuePayableAmount>{inv.due_amount}</ram:DuePayableAmount>"
        f"</ram:SpecifiedTradeSettlementHeaderMonetarySummation>"
        f"</ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction>"
        f"</rsm:CrossIndustryInvoice>"
    ).encode("utf-8")


# -- KSeF --------------------------------------------------------------------------------------

KSEF_GROUP = {Decimal("23"): ("P_13_1", "P_14_1"), Decimal("8"): ("P_13_2", "P_14_2"),
              Decimal("5"): ("P_13_3", "P_14_3"), Decimal("0"): ("P_13_6_1", None)}
NIPS = ("5265877635", "6808208874")  # valid Polish tax numbers (checksums hold)


def ksef(inv: Invoice, kind: str) -> bytes:
    namespace, code, variant = KSEF[kind]
    zero = "0 KR" if kind == "ksef-fa3" else "0"
    totals = ""
    for rate, (basis, tax) in sorted(inv.groups.items(), reverse=True):
        net_tag, tax_tag = KSEF_GROUP.get(rate, ("P_13_1", "P_14_1"))
        totals += f"<{net_tag}>{basis}</{net_tag}>"
        if tax_tag:
            totals += f"<{tax_tag}>{tax}</{tax_tag}>"
    rows = "".join(
        f"<FaWiersz><NrWierszaFa>{i}</NrWierszaFa><P_7>{_x(name)}</P_7><P_8A>szt.</P_8A>"
        f"<P_8B>{qty}</P_8B><P_9A>{price}</P_9A><P_11>{net}</P_11>"
        f"<P_12>{rate if rate else zero}</P_12></FaWiersz>"
        for i, (name, qty, price, net, rate) in enumerate(inv.lines, start=1))
    due = (f"<TerminPlatnosci><Termin>{inv.due}</Termin></TerminPlatnosci>" if inv.due else "")
    account = f"<RachunekBankowy><NrRB>{inv.iban}</NrRB></RachunekBankowy>" if inv.iban else ""
    partial = (f"<ZnacznikZaplatyCzesciowej>1</ZnacznikZaplatyCzesciowej><ZaplataCzesciowa>"
               f"<KwotaZaplatyCzesciowej>{inv.prepaid}</KwotaZaplatyCzesciowej>"
               f"<DataZaplatyCzesciowej>{inv.issue}</DataZaplatyCzesciowej></ZaplataCzesciowa>"
               if inv.prepaid else "")
    order = (f"<WarunkiTransakcji><Zamowienia><DataZamowienia>{inv.issue}</DataZamowienia>"
             f"<NrZamowienia>{_x(inv.order)}</NrZamowienia></Zamowienia></WarunkiTransakcji>"
             if inv.order else "")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Faktura xmlns="{namespace}">'
        f'<Naglowek><KodFormularza kodSystemowy="{code}" wersjaSchemy="1-0E">FA</KodFormularza>'
        f"<WariantFormularza>{variant}</WariantFormularza>"
        f"<DataWytworzeniaFa>{inv.issue}T10:00:00Z</DataWytworzeniaFa></Naglowek>"
        f"<Podmiot1><DaneIdentyfikacyjne><NIP>{NIPS[0]}</NIP><Nazwa>{_x(inv.seller)}</Nazwa>"
        f"</DaneIdentyfikacyjne><Adres><KodKraju>PL</KodKraju><AdresL1>ul. Prosta 1, "
        f"00-001 Warszawa</AdresL1></Adres></Podmiot1>"
        f"<Podmiot2><DaneIdentyfikacyjne><NIP>{NIPS[1]}</NIP><Nazwa>{_x(inv.buyer)}</Nazwa>"
        f"</DaneIdentyfikacyjne><Adres><KodKraju>PL</KodKraju><AdresL1>ul. Długa 2, "
        f"30-001 Kraków</AdresL1></Adres>"
        + ("<JST>2</JST><GV>2</GV>" if kind == "ksef-fa3" else "") +
        f"</Podmiot2><Fa><KodWaluty>{inv.currency}</KodWaluty><P_1>{inv.issue}</P_1>"
        f"<P_2>{_x(inv.number)}</P_2><P_6>{inv.issue}</P_6>{totals}<P_15>{inv.gross}</P_15>"
        f"<Adnotacje><P_16>2</P_16><P_17>2</P_17><P_18>2</P_18><P_18A>2</P_18A><Zwolnienie>"
        f"<P_19N>1</P_19N></Zwolnienie><NoweSrodkiTransportu><P_22N>1</P_22N>"
        f"</NoweSrodkiTransportu><P_23>2</P_23><PMarzy><P_PMarzyN>1</P_PMarzyN></PMarzy>"
        f"</Adnotacje><RodzajFaktury>VAT</RodzajFaktury>{rows}"
        f"<Platnosc>{partial}{due}<FormaPlatnosci>6</FormaPlatnosci>{account}</Platnosc>"
        f"{order}</Fa></Faktura>"
    ).encode("utf-8")


def make(kind: str, seed: int = 1, lang: str | None = None) -> tuple[bytes, dict]:
    """(XML, expected field values); KSeF invoices are made from Polish samples (Polish rates)."""
    inv = Invoice(seed, lang or ("pl" if kind.startswith("ksef") else None))
    if kind.startswith("ksef"):
        iban = inv.iban if inv.iban and inv.iban.startswith("PL") else None
        inv.iban = iban
        return ksef(inv, kind), inv.expected(seller_vat_id=NIPS[0], buyer_vat_id=NIPS[1])
    if kind in ("cii", "xrechnung-cii"):
        return cii(inv, kind), inv.expected()
    if kind == "ubl-credit-note":  # invoice-v2: a credit note's amounts are owed to the buyer
        negative = {f: str(-Decimal(inv.expected()[f]) or Decimal(inv.expected()[f]))
                    for f in AMOUNTS}
        return ubl(inv, kind), inv.expected(due_date=None, document_type="credit_note",
                                            preceding_invoice_number=preceding(inv), **negative)
    return ubl(inv, kind), inv.expected()
