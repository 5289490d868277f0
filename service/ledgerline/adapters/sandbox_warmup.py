"""Importing this module warms the extraction code paths of the sandbox's fork server.

Every sandboxed document runs in a child forked from that server, so whatever the server has
already loaded (pdfminer's font metrics and encodings, compiled patterns, lazily imported modules)
each child inherits for free. The fork server can only preload modules by name, hence an import
with a side effect: one extraction of a small generated invoice with embedded CII XML, the
official EN 16931 rules compiled, and Tesseract loaded with the configured OCR languages (a second
for a dozen languages, once per server instead of once per document). Each step stands alone: one
that fails (no Tesseract data, say) costs only what it would have saved, and the others still run.

A child inherits all that, but its first extraction still writes to thousands of pages it shares
with the server (reference counts, caches), each write a copy-on-write fault, and builds what each
process builds once: 30-40 ms more than the same extraction in a warm process. A spare child, forked
before its document is known, pays that ahead with one extraction of the same sample (`rehearse`).
"""
from __future__ import annotations

import gc
import logging
import os
import tempfile
import zlib

log = logging.getLogger(__name__)
# What the warm-up loaded, for readiness (SandboxedExtractor.health): every child inherits
# it from the fork server. "ocr": ("ok", "eng+deu+…") or ("unavailable", why); in a spare
# child also "rehearsal": ("ok", "") or ("failed", why).
STATE: dict[str, tuple[str, str]] = {}

# A small ZUGFeRD-style invoice: a printed page whose fields, line items and totals the text
# finders read, and the same invoice as embedded CII XML, which the XML reader, the official rules
# and the cross-check read. Extracting it walks the code and data a typical PDF invoice needs.
_LINES = ["ACME Supplies GmbH", "Hauptstrasse 1, 10115 Berlin", "USt-IdNr.: DE136695976",
          "Invoice", "Invoice number: WARM-1", "Invoice date: 05.03.2024",
          "Due date: 04.04.2024", "Bill to: Buyer AG, Marktplatz 2, 80331 Muenchen",
          "Order: PO-77",
          "Pos   Description   Quantity   Unit price   VAT   Amount",
          "1   Widget   20   9.90   19%   198.00",
          "Net total   198.00 EUR", "VAT 19%   37.62 EUR", "Total due   235.62 EUR",
          "IBAN: DE02120300000000202051"]
_CII = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
 xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
 xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>
<ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
</rsm:ExchangedDocumentContext>
<rsm:ExchangedDocument><ram:ID>WARM-1</ram:ID><ram:TypeCode>380</ram:TypeCode>
<ram:IssueDateTime><udt:DateTimeString format="102">20240305</udt:DateTimeString>
</ram:IssueDateTime></rsm:ExchangedDocument>
<rsm:SupplyChainTradeTransaction>
<ram:IncludedSupplyChainTradeLineItem>
<ram:AssociatedDocumentLineDocument><ram:LineID>1</ram:LineID></ram:AssociatedDocumentLineDocument>
<ram:SpecifiedTradeProduct><ram:Name>Widget</ram:Name></ram:SpecifiedTradeProduct>
<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice>
<ram:ChargeAmount>9.90</ram:ChargeAmount></ram:NetPriceProductTradePrice>
</ram:SpecifiedLineTradeAgreement>
<ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="H87">20</ram:BilledQuantity>
</ram:SpecifiedLineTradeDelivery>
<ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode>
<ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19</ram:RateApplicablePercent>
</ram:ApplicableTradeTax><ram:SpecifiedTradeSettlementLineMonetarySummation>
<ram:LineTotalAmount>198.00</ram:LineTotalAmount>
</ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>
</ram:IncludedSupplyChainTradeLineItem>
<ram:ApplicableHeaderTradeAgreement>
<ram:SellerTradeParty><ram:Name>ACME Supplies GmbH</ram:Name><ram:SpecifiedTaxRegistration>
<ram:ID schemeID="VA">DE136695976</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>
<ram:BuyerTradeParty><ram:Name>Buyer AG</ram:Name></ram:BuyerTradeParty>
<ram:BuyerOrderReferencedDocument><ram:IssuerAssignedID>PO-77</ram:IssuerAssignedID>
</ram:BuyerOrderReferencedDocument></ram:ApplicableHeaderTradeAgreement>
<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode>
<ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE02120300000000202051</ram:IBANID>
</ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>
<ram:ApplicableTradeTax><ram:CalculatedAmount>37.62</ram:CalculatedAmount>
<ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>198.00</ram:BasisAmount>
<ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19</ram:RateApplicablePercent>
</ram:ApplicableTradeTax>
<ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime>
<udt:DateTimeString format="102">20240404</udt:DateTimeString></ram:DueDateDateTime>
</ram:SpecifiedTradePaymentTerms>
<ram:SpecifiedTradeSettlementHeaderMonetarySummation>
<ram:LineTotalAmount>198.00</ram:LineTotalAmount><ram:TaxBasisTotalAmount>198.00</ram:TaxBasisTotalAmount>
<ram:TaxTotalAmount currencyID="EUR">37.62</ram:TaxTotalAmount>
<ram:GrandTotalAmount>235.62</ram:GrandTotalAmount><ram:DuePayableAmount>235.62</ram:DuePayableAmount>
</ram:SpecifiedTradeSettlementHeaderMonetarySummation></ram:ApplicableHeaderTradeSettlement>
</rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
"""


def sample_invoice() -> bytes:
    text = "BT /F1 10 Tf 14 TL 50 780 Td " + " ".join(f"({s}) Tj T*" for s in _LINES) + " ET"
    body, xml = zlib.compress(text.encode()), zlib.compress(_CII)
    objects = [
        (b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names "
         b"[(factur-x.xml) 7 0 R] >> >> /AF [7 0 R] >>"),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
         b"/Resources << /Font << /F1 4 0 R >> >> >>"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream",
        (b"<< /Type /EmbeddedFile /Subtype /text#2Fxml /Length %d /Filter /FlateDecode >>"
         b"\nstream\n" % len(xml)) + xml + b"\nendstream",
        (b"<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /AFRelationship "
         b"/Alternative /EF << /F 6 0 R >> >>"),
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for num, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % num + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1,
                                                                              xref)
    return bytes(out)


def warm() -> None:
    for step in (_extract_sample_invoice, _compile_label_patterns, _import_vat_checkers,
                 _compile_schematron, _load_ocr):
        try:
            step()
        except Exception:  # warming is an optimisation; the children still work cold
            log.debug("sandbox warm-up step %s failed", step.__name__, exc_info=True)


def rehearse() -> None:
    """In a spare child, before its document arrives: the sample extracted once more."""
    try:
        _extract_sample_invoice()
    except Exception as exc:  # noqa: BLE001 - an optimisation; the document reads the same
        STATE["rehearsal"] = ("failed", f"{type(exc).__name__}: {exc}")
    else:
        STATE["rehearsal"] = ("ok", "")


def _compile_label_patterns() -> None:
    """Every field's label pattern, which the sample does not all need."""
    from ..extraction.finders import labels

    labels.warm()


def _extract_sample_invoice() -> None:
    """pdfminer's fonts and encodings, the vocabulary patterns, the XML reader and the official
    rules' first run, every lazily imported module of the path a PDF invoice takes."""
    from .extractor import PdfExtractor
    from .preflight import PreflightLimits, checked_pdf

    fd, path = tempfile.mkstemp(prefix="warmup-", suffix=".pdf")
    # Unlinked at once and read through this process's descriptor: a spare killed while it
    # rehearses (discarded, or the process group stopped) leaves no file behind.
    os.unlink(path)
    with os.fdopen(fd, "wb") as f:
        f.write(sample_invoice())
        f.flush()
        opened = f"/proc/self/fd/{fd}"
        # As a document goes in the child (sandbox._child_main): the pre-flight's parse read.
        with checked_pdf(opened, PreflightLimits(max_pages=1,
                                                 max_decompressed_bytes=1 << 20)) as (pdf, _):
            PdfExtractor().extract(opened, "blake3:" + "0" * 64, pdf_document=pdf)


def _compile_schematron() -> None:
    """The official EN 16931 rules, compiled once here instead of once per XML invoice; Saxon
    also has to start before the children's memory limit, which its reservation exceeds."""
    from ..extraction.checks import schematron

    schematron.warm()


def _load_ocr() -> None:
    """Tesseract's models for the configured languages, and the image and PDF renderers."""
    import pillow_heif  # noqa: F401 - imported here so that children need not
    import pypdfium2  # noqa: F401

    from ..config import Settings
    from ..extraction import ocr
    from ..extraction.errors import ExtractionError

    options = ocr.OcrOptions.from_settings(Settings.from_env())
    try:
        ocr.warm(options)
    except ExtractionError as exc:
        STATE["ocr"] = ("unavailable", exc.message)
        raise
    except Exception as exc:
        STATE["ocr"] = ("unavailable", f"Tesseract did not load: {type(exc).__name__}: {exc}")
        raise
    STATE["ocr"] = ("ok", options.tesseract_languages)


def _import_vat_checkers() -> None:
    """python-stdnum imports one module per country on first use: import them all now."""
    from stdnum.eu import vat

    for country in vat.MEMBER_STATES:
        vat.is_valid(country.upper() + "000000000")


warm()
# Children's garbage collections then skip the server's objects instead of writing to (and so
# copying) every page that holds them.
gc.freeze()
