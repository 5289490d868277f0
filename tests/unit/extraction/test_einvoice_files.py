"""Standalone e-invoice XML: every accepted syntax read exactly, checked by the official rules,
and hostile XML refused with its own error code."""

from __future__ import annotations

import pytest

from ledgerline.extraction import ExtractionError, extract_pdf
from ledgerline.extraction.checks import schematron
from ledgerline.extraction.sources.xml_parsing import MAX_XML_BYTES
from tests import einvoices

HASH = "blake3:" + "0" * 64
OFFICIAL = {"ubl", "peppol", "xrechnung-ubl", "ubl-credit-note", "cii", "xrechnung-cii"}


def extract(tmp_path, data: bytes, name="invoice.bin") -> dict:
    path = tmp_path / name  # no .xml suffix: the content says what it is
    path.write_bytes(data)
    return extract_pdf(path, content_hash=HASH)


def by_rule(document) -> dict:
    return {v["rule"]: v for v in document["validations"]}


@pytest.mark.parametrize("seed", [1, 2, 5])
@pytest.mark.parametrize("kind", einvoices.KINDS)
def test_each_syntax_is_read_exactly_and_passes_the_rules(tmp_path, kind, seed):
    data, expected = einvoices.make(kind, seed)
    document = extract(tmp_path, data)
    assert document["source"] == "xml" and document["document"]["pages"] == 0
    assert {k: v["value"] for k, v in document["fields"].items()} == expected
    rules = by_rule(document)
    if kind in OFFICIAL:
        assert rules["EN16931"]["status"] == "pass", rules["EN16931"]["detail"]
        assert ("XRechnung" in rules["EN16931"]["detail"]) == kind.startswith("xrechnung")
        assert "BR-CO-15" not in rules  # the official rules replace the arithmetic ones
    else:
        assert rules["EN16931"]["status"] == "skipped"
        assert rules["BR-CO-15"]["status"] == "pass" and rules["BR-CO-17"]["status"] == "pass"
    assert rules["LL-SELLER-VATID"]["status"] == "pass"
    assert document["review"] == {"required": False, "reasons": []}
    assert len(document["line_items"]) == len(einvoices.Invoice(seed, None).lines) or \
        kind.startswith("ksef")


def test_a_wrong_total_fails_the_official_rule_by_its_id(tmp_path):
    data, expected = einvoices.make("ubl", 1)
    gross = expected["gross_total"]
    broken = data.replace(f">{gross}</cbc:TaxInclusiveAmount>".encode(),
                          f">{gross}1</cbc:TaxInclusiveAmount>".encode())
    document = extract(tmp_path, broken)
    assert by_rule(document)["BR-CO-15"]["status"] == "fail"
    assert any(r.startswith("net_total, tax_total, gross_total: BR-CO-15 failed: [BR-CO-15]")
               for r in document["review"]["reasons"])
    assert document["fields"]["gross_total"]["confidence"] < 0.99


def test_xrechnung_rules_apply_where_the_customisation_id_says_so(tmp_path):
    data, _ = einvoices.make("xrechnung-cii", 2)
    no_leitweg = data.replace(b"<ram:BuyerReference>04011000-12345-34</ram:BuyerReference>", b"")
    document = extract(tmp_path, no_leitweg)
    assert by_rule(document)["BR-DE-15"]["status"] == "fail"
    assert any(r.startswith("BR-DE-15 failed") for r in document["review"]["reasons"])
    plain = extract(tmp_path, einvoices.make("cii", 2)[0].replace(
        b"<ram:BuyerReference>04011000-12345-34</ram:BuyerReference>", b""))
    assert "BR-DE-15" not in by_rule(plain)  # not an XRechnung: its rules do not apply


def test_ksef_totals_are_the_sums_of_the_rate_groups(tmp_path):
    data, expected = einvoices.make("ksef-fa3", 3)
    document = extract(tmp_path, data)
    assert document["fields"]["net_total"]["value"] == expected["net_total"]
    wrong = data.replace(f"<P_15>{expected['gross_total']}</P_15>".encode(), b"<P_15>1.00</P_15>")
    assert by_rule(extract(tmp_path, wrong))["BR-CO-15"]["status"] == "fail"


def test_rules_do_not_claim_to_run_where_they_do_not_apply():
    assert schematron.rulesets_for("CII", "urn:factur-x.eu:1p0:minimum") == []
    assert schematron.rulesets_for("KSeF", "FA (3)") == []
    assert schematron.rulesets_for("UBL", einvoices.CUSTOMISATION["xrechnung-ubl"]) == [
        "EN16931-UBL-validation.xsl", "XRechnung-UBL-validation.xsl"]


def test_stylesheets_are_compiled_once_per_process(tmp_path):
    extract(tmp_path, einvoices.make("ubl", 1)[0])
    first = schematron._ENGINE.executable("EN16931-UBL-validation.xsl")[1]
    extract(tmp_path, einvoices.make("ubl", 2)[0])
    assert schematron._ENGINE.executable("EN16931-UBL-validation.xsl")[1] is first


UBL_HEAD = b'<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">'
LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY a "ha">'
          + b"".join(b'<!ENTITY %c "%s">' % (ord("b") + i, (b"&%c;" % (ord("a") + i)) * 10)
                     for i in range(8))
          + b"]>" + UBL_HEAD + b"&i;</Invoice>")
HOSTILE = {
    "xxe": (b'<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            + UBL_HEAD + b"<ID>&x;</ID></Invoice>", "xml_external_entity"),
    "xxe_parameter_entity": (b'<!DOCTYPE Invoice [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x">'
                             b"%p;]>" + UBL_HEAD + b"</Invoice>", "xml_external_entity"),
    "external_dtd": (b'<!DOCTYPE Invoice SYSTEM "http://127.0.0.1:9/x.dtd">' + UBL_HEAD
                     + b"</Invoice>", "xml_external_entity"),
    "billion_laughs": (LAUGHS, "xml_entity_expansion"),
    "utf16_xxe": ('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x [<!ENTITY x SYSTEM '
                  '"file:///etc/passwd">]><x>&x;</x>'.encode("utf-16"), "xml_external_entity"),
    "dtd": (b"<!DOCTYPE Invoice>" + UBL_HEAD + b"</Invoice>", "xml_dtd_refused"),
    "deep_nesting": (UBL_HEAD + b"<a>" * 5000 + b"</a>" * 5000 + b"</Invoice>", "xml_too_deep"),
    "huge_text_node": (UBL_HEAD + b"<Note>" + b"x" * (11 * 1024 * 1024) + b"</Note></Invoice>",
                       "xml_too_large"),
    "too_large": (UBL_HEAD + b" " * MAX_XML_BYTES + b"</Invoice>", "xml_too_large"),
    "truncated": (einvoices.make("ubl", 1)[0][:-40], "xml_malformed"),
    "not_an_invoice": (b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"/>',
                       "xml_not_an_invoice"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_xml_gets_its_own_error(tmp_path, case):
    data, code = HOSTILE[case]
    with pytest.raises(ExtractionError) as raised:
        extract(tmp_path, data)
    assert raised.value.code == code


def test_the_extract_command_takes_xml(tmp_path):
    import json

    from click.testing import CliRunner

    from ledgerline.cli import main

    ubl, cii = tmp_path / "a", tmp_path / "b"
    ubl.write_bytes(einvoices.make("ubl", 3)[0])
    cii.write_bytes(einvoices.make("cii", 3)[0])
    result = CliRunner().invoke(main, ["extract", str(ubl), str(cii)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["file"] for line in lines] == [str(ubl), str(cii)]
    documents = [line["document"] for line in lines]
    assert [d["source"] for d in documents] == ["xml", "xml"]
    assert documents[1]["fields"]["gross_total"]["value"] == einvoices.make("cii", 3)[1][
        "gross_total"]

    # in a directory too: told by content, not by name
    result = CliRunner().invoke(main, ["extract", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["file"] for line in result.output.splitlines()] == [
        str(ubl), str(cii)]
