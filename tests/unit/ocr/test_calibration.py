"""A value read by OCR gets the confidence its field's OCR'd values earned on OCR'd documents;
a text layer's values keep theirs, and the map is part of the cache key."""
from __future__ import annotations

import json

import pytest

from ledgerline.extraction import ocr
from ledgerline.extraction.ocr import calibration, identity
from ledgerline.extraction.ocr.isotonic import fit
from tests import scans

KEY = ("invoice_number", "issue_date", "currency", "gross_total", "seller_name")


@pytest.fixture
def map_file(tmp_path, monkeypatch):
    """A calibration file that says every OCR'd value of every field was right."""
    xs = [k / 100 for k in range(20, 100)] * 5
    fields = {f: fit(xs, [True] * len(xs)).to_json() for f in (*KEY, "net_total", "tax_total",
                                                                "amount_due")}
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"format": calibration.FORMAT, "fields": fields}))
    monkeypatch.setattr(calibration, "CALIBRATION_PATH", path)
    monkeypatch.setattr(identity, "CALIBRATION_FILE", path)
    calibration.maps.cache_clear()
    yield path
    calibration.maps.cache_clear()


def extract(tmp_path, data: bytes, name: str) -> dict:
    from ledgerline.extraction import extract_pdf

    path = tmp_path / name
    path.write_bytes(data)
    return extract_pdf(path, content_hash="blake3:" + "0" * 64, use_embedded_xml=False,
                       ocr=ocr.OcrOptions(languages=("en",)))


def test_an_ocr_read_value_takes_its_fields_calibrated_confidence(tmp_path, map_file):
    scan = scans.encode(scans.render(dpi=200), "PNG")
    with calibration.uncalibrated():
        raw = extract(tmp_path, scan, "scan.png")["fields"]
    got = extract(tmp_path, scan, "scan.png")["fields"]
    for field in KEY:
        assert got[field]["value"] == raw[field]["value"] == scans.EXPECTED[field]
        # The map's value for the uncalibrated product (rounded as documents round).
        mapped = calibration.calibrated(field, raw[field]["confidence"])
        assert got[field]["confidence"] == pytest.approx(mapped, abs=0.002)
        assert got[field]["confidence"] >= 0.95


def test_a_text_layer_value_keeps_its_confidence(tmp_path, map_file):
    pdf = scans.invoice_pdf()
    with calibration.uncalibrated():
        raw = extract(tmp_path, pdf, "invoice.pdf")["fields"]
    got = extract(tmp_path, pdf, "invoice.pdf")["fields"]
    assert {f: got[f]["confidence"] for f in KEY} == {f: raw[f]["confidence"] for f in KEY}


def test_the_map_is_part_of_the_ocr_identity(map_file):
    before = identity.fingerprint(ocr.OcrOptions())["calibration"]
    map_file.write_text(map_file.read_text() + " ")
    identity._digests.clear()
    assert identity.fingerprint(ocr.OcrOptions())["calibration"] != before


def test_a_map_fitted_with_another_ranker_or_ocr_is_not_applied(tmp_path, map_file):
    """A map fitted before a retrained ranker or an OCR pipeline change says nothing of the
    values they now produce: OCR'd values keep the uncalibrated product until
    `make calibrate-ocr` runs again."""
    from ledgerline.extraction.ranker.model import model_digest

    data = json.loads(map_file.read_text())
    current = {"ocr": {"pipeline": identity.OCR_PIPELINE_VERSION}, "ranker": model_digest()}
    for stale in ({**current, "ranker": "0" * 64},
                  {**current, "ocr": {"pipeline": "ocr-1999.01.1"}}):
        map_file.write_text(json.dumps({**data, **stale}))
        calibration.maps.cache_clear()
        assert calibration.maps() == {}
        assert calibration.calibrated("seller_name", 0.5) == 0.5
    map_file.write_text(json.dumps({**data, **current}))
    calibration.maps.cache_clear()
    assert set(calibration.maps()) >= set(KEY)
    assert calibration.calibrated("seller_name", 0.5) > 0.9


def test_the_shipped_map_is_well_formed():
    data = json.loads(calibration.CALIBRATION_PATH.read_text())
    assert data["format"] == calibration.FORMAT and data["documents"] > 0
    for field, entry in data["fields"].items():
        cal = calibration.Calibration.from_json(entry)
        assert list(cal.xs) == sorted(cal.xs), field
        assert list(cal.ys) == sorted(cal.ys) and all(0 <= y <= 1 for y in cal.ys), field
