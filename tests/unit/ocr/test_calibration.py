"""A value read by OCR gets the confidence its OCR evidence earned on OCR'd documents and is held
to its field's threshold for OCR'd values; a text layer's values keep theirs, and the
calibration is part of the cache key."""
from __future__ import annotations

import json

import pytest

from ledgerline.extraction import ocr
from ledgerline.extraction.ocr import calibration, identity, second_opinion
from ledgerline.extraction.ranker.confidence import EVIDENCE, Calibrator
from tests import scans

KEY = ("invoice_number", "issue_date", "currency", "gross_total", "seller_name")
ACCEPTED = (*KEY, "net_total", "tax_total")
WIDTH = len(EVIDENCE) + len(calibration.OCR_EVIDENCE)
# A calibrator that reads only how sure OCR was of the words: sigmoid(-10 + 5 logit(words)),
# 0.9 at a word confidence of about 0.96.
WORDS = len(EVIDENCE) + calibration.OCR_EVIDENCE.index("logit_words")
WORDS_ONLY = Calibrator(coef=tuple(5.0 if k == WORDS else 0.0 for k in range(WIDTH)),
                        intercept=-10.0, mean=(0.0,) * WIDTH, scale=(1.0,) * WIDTH)


def write(path, thresholds: dict, photo: dict | None = None, **extra) -> None:
    """A calibration whose calibrator reads the words' confidence only, with ``thresholds`` for
    scans' values and ``photo`` for photos' (the same by default)."""
    photo = thresholds if photo is None else photo
    fields = {f: {"calibrator": WORDS_ONLY.to_json(),
                  "accept_thresholds": {kind: by_kind[f] for kind, by_kind in
                                        ((calibration.SCAN, thresholds),
                                         (calibration.PHOTO, photo)) if f in by_kind}}
              for f in {*thresholds, *photo}}
    path.write_text(json.dumps({"format": calibration.FORMAT, "fields": fields, **extra}))
    calibration.fields.cache_clear()


@pytest.fixture
def calibration_file(tmp_path, monkeypatch):
    path = tmp_path / "calibration.json"
    monkeypatch.setattr(calibration, "CALIBRATION_PATH", path)
    monkeypatch.setattr(identity, "CALIBRATION_FILE", path)
    write(path, dict.fromkeys(ACCEPTED, 0.0))
    yield path
    calibration.fields.cache_clear()


def extract(tmp_path, data: bytes, name: str) -> dict:
    from ledgerline.extraction import extract_pdf

    path = tmp_path / name
    path.write_bytes(data)
    return extract_pdf(path, content_hash="blake3:" + "0" * 64, use_embedded_xml=False,
                       ocr=ocr.OcrOptions(languages=("en",)))


def ocr_evidence(tmp_path, data: bytes, name: str) -> dict:
    from ledgerline.extraction.geometry import DocText
    from ledgerline.extraction.pipeline import ocr_evidence, read_pages, text_reading

    path = tmp_path / name
    path.write_bytes(data)
    parsed, _ = read_pages(path, image=True, ocr_options=ocr.OcrOptions(languages=("en",)))
    dt = DocText(parsed.pages)
    return ocr_evidence(text_reading(dt), dt)


def below_threshold(document: dict) -> set[str]:
    return {r.split(":", 1)[0] for r in document["review"]["reasons"]
            if "it needs to be taken without review" in r}


def test_an_ocr_read_value_takes_the_confidence_of_its_ocr_evidence(tmp_path,
                                                                      calibration_file):
    scan = scans.encode(scans.render(dpi=200), "PNG")
    evidence = ocr_evidence(tmp_path, scan, "scan.png")
    got = extract(tmp_path, scan, "scan.png")["fields"]
    for field in KEY:
        assert got[field]["value"] == scans.EXPECTED[field]
        assert len(evidence[field]) == WIDTH
        assert got[field]["confidence"] == pytest.approx(WORDS_ONLY(evidence[field]), abs=0.002)


def test_an_ocr_read_value_is_held_to_its_fields_threshold_for_ocr(tmp_path, calibration_file):
    """The text layer's thresholds are not the ones an OCR'd value must reach: with the OCR
    thresholds at 0 no key field asks for review for its confidence, at 1.01 every one does,
    and a field the calibration does not know is never taken unseen. (The seller name, printed
    once on this invoice, asks for review whatever its threshold: the next test.)"""
    scan = scans.encode(scans.render(dpi=200), "PNG")
    confirmed = set(KEY) - {"seller_name"}
    assert below_threshold(extract(tmp_path, scan, "scan.png")) & confirmed == set()
    write(calibration_file, {**dict.fromkeys(ACCEPTED, 0.0), "invoice_number": 1.01})
    assert below_threshold(extract(tmp_path, scan, "scan.png")) & confirmed == {"invoice_number"}
    write(calibration_file, {f: 0.0 for f in ACCEPTED if f != "issue_date"})
    assert below_threshold(extract(tmp_path, scan, "scan.png")) & confirmed == {"issue_date"}


def test_a_scans_values_are_held_to_the_scans_thresholds_and_a_photos_to_the_photos(
        tmp_path, calibration_file, monkeypatch):
    """The same page read as a scan and, where OCR took it for a photo (here: its first reading
    left its text unread, so it was read again without its grain), as a photo: each is held to
    its own kind's thresholds."""
    from ledgerline.extraction.ocr import reading

    scan = scans.encode(scans.render(dpi=200), "PNG")
    confirmed = set(KEY) - {"seller_name"}
    write(calibration_file, dict.fromkeys(ACCEPTED, 0.0), photo=dict.fromkeys(ACCEPTED, 1.01))
    assert below_threshold(extract(tmp_path, scan, "scan.png")) & confirmed == set()
    write(calibration_file, dict.fromkeys(ACCEPTED, 1.01), photo=dict.fromkeys(ACCEPTED, 0.0))
    assert below_threshold(extract(tmp_path, scan, "scan.png")) & confirmed == confirmed
    monkeypatch.setattr(reading, "unread_share", lambda *_: 1.0)
    assert below_threshold(extract(tmp_path, scan, "scan.png")) & confirmed == set()


def test_a_field_is_calibrated_by_its_kind_of_page(calibration_file):
    write(calibration_file, {"invoice_number": 0.8}, photo={"invoice_number": 0.95,
                                                             "issue_date": 0.9})
    assert calibration.of_field("invoice_number", calibration.SCAN).threshold == 0.8
    assert calibration.of_field("invoice_number", calibration.PHOTO).threshold == 0.95
    assert calibration.of_field("issue_date", calibration.SCAN) is None
    with pytest.raises(ValueError, match="no such kind of page"):
        calibration.of_field("invoice_number", "fax")


def test_a_calibration_of_a_kind_of_page_it_does_not_know_is_refused(calibration_file):
    data = json.loads(calibration_file.read_text())
    data["fields"]["invoice_number"]["accept_thresholds"]["fax"] = 0.5
    calibration_file.write_text(json.dumps(data))
    calibration.fields.cache_clear()
    with pytest.raises(ValueError, match="fax"):
        calibration.fields()


@pytest.mark.parametrize(("page", "photo_pages", "kind"), [
    (1, set(), "scan"),
    (1, {1}, "photo"),
    (2, {1}, "scan"),  # a scan's page after a photographed one
    (None, {2}, "photo"),  # a value of no one page (derived), in a document with a photo
    (None, set(), "scan"),
])
def test_a_values_kind_is_the_kind_of_the_page_it_was_read_from(page, photo_pages, kind):
    assert calibration.kind(page, photo_pages) == kind


def test_extraction_takes_the_kind_of_a_values_page_from_what_ocr_did_to_it():
    from ledgerline.extraction.candidates import Candidate
    from ledgerline.extraction.geometry import DocText
    from ledgerline.extraction.model import Line, Page
    from ledgerline.extraction.pipeline import ocr_kind

    def page(number, photo):
        line = Line(number, 40, 700, 120, 709, "F-1001", chars=[(40 + 13 * k, 53 + 13 * k)
                    for k in range(6)], confidences=[0.95] * 6)
        return Page(number, 595, 842, [line], photo=photo)

    dt = DocText([page(1, False), page(2, True)])
    assert dt.photo_pages == {2}
    for number, kind in ((1, "scan"), (2, "photo")):
        cand = Candidate("invoice_number", "F-1001", "F-1001", number, [40, 700, 120, 709],
                         line=number - 1)
        assert ocr_kind(dt, cand) == kind


@pytest.mark.skipif(second_opinion.model_path() is None, reason="rapidocr-onnxruntime missing")
def test_an_ocr_read_seller_name_printed_once_is_confirmed_by_its_second_reading(
        tmp_path, calibration_file, monkeypatch):
    """The invoice prints its seller's name once, on a page without accents: the second
    recogniser reading the name's place letter for letter confirms it. Without that reading
    nothing on the page confirms how OCR spelt it, so it asks for review at any confidence,
    saying why; its text layer does neither."""
    from ledgerline.extraction.ocr import reading

    scan = scans.encode(scans.render(dpi=200), "PNG")
    document = extract(tmp_path, scan, "scan.png")
    assert document["fields"]["seller_name"]["value"] == scans.EXPECTED["seller_name"]
    assert not any(r.startswith("seller_name: ") for r in document["review"]["reasons"])
    monkeypatch.setattr(reading, "reader", lambda *_: None)
    unread = extract(tmp_path, scan, "scan.png")
    assert [r for r in unread["review"]["reasons"] if r.startswith("seller_name: ")
            and "no second reading of its place confirms its spelling" in r]
    text_layer = extract(tmp_path, scans.invoice_pdf(), "invoice.pdf")
    assert not any("confirms its spelling" in r for r in text_layer["review"]["reasons"])


def test_a_text_layer_value_keeps_its_confidence(tmp_path, calibration_file):
    pdf = scans.invoice_pdf()
    before = extract(tmp_path, pdf, "invoice.pdf")["fields"]
    write(calibration_file, {})
    after = extract(tmp_path, pdf, "invoice.pdf")["fields"]
    assert {f: after[f]["confidence"] for f in KEY} == {f: before[f]["confidence"] for f in KEY}


def test_the_calibration_is_part_of_the_ocr_identity(calibration_file):
    before = identity.fingerprint(ocr.OcrOptions())["calibration"]
    calibration_file.write_text(calibration_file.read_text() + " ")
    identity._digests.clear()
    assert identity.fingerprint(ocr.OcrOptions())["calibration"] != before


def test_a_calibration_fitted_with_another_ranker_or_ocr_is_not_applied(calibration_file):
    """A calibration fitted before a retrained ranker or an OCR pipeline change says nothing
    of the values they now produce: no OCR'd value is taken unseen until `make calibrate-ocr`
    runs again."""
    from ledgerline.extraction.ranker.model import model_digest

    current = {"ocr": {"pipeline": identity.OCR_PIPELINE_VERSION}, "ranker": model_digest()}
    for stale in ({**current, "ranker": "0" * 64},
                  {**current, "ocr": {"pipeline": "ocr-1999.01.1"}}):
        write(calibration_file, dict.fromkeys(ACCEPTED, 0.0), **stale)
        assert calibration.fields() == {}
        assert calibration.of_field("seller_name", calibration.SCAN) is None
    write(calibration_file, dict.fromkeys(ACCEPTED, 0.0), **current)
    for kind in calibration.KINDS:
        assert set(calibration.fields()[kind]) == set(ACCEPTED)


def test_the_shipped_calibration_is_well_formed():
    data = json.loads(calibration.CALIBRATION_PATH.read_text())
    assert data["format"] == calibration.FORMAT and data["documents"] > 0
    assert calibration.fitted_for_another_model(data) is None
    for field, entry in data["fields"].items():
        assert len(Calibrator.from_json(entry["calibrator"]).coef) in (0, WIDTH), field
        assert set(entry["accept_thresholds"]) <= set(calibration.KINDS), field
        for threshold in entry["accept_thresholds"].values():
            assert 0.0 <= threshold <= 1.01, field
    assert set(calibration.fields()) == set(calibration.KINDS)


def test_one_calibrator_for_both_kinds_and_a_threshold_for_each():
    """A photo's wrong value that reads as sure as right ones holds back photos, not scans;
    the calibrator learns from both kinds, and a kind with no value gets no threshold."""
    from ledgerline_tools.calibrate_ocr import Outcome, fit_field

    def evidence(sure: float) -> tuple:
        return (sure, *(0.0,) * (WIDTH - 1))

    got = []
    for doc in range(24):
        sure = 1.0 + doc / 8  # right values from 1.0 up; the first four documents' are wrong
        got.append(Outcome(evidence(sure), doc >= 4, doc, calibration.SCAN))
        got.append(Outcome(evidence(sure + 0.05), doc not in (0, 1, 20), doc, calibration.PHOTO))
    calibrator, thresholds = fit_field("invoice_number", got)
    assert set(thresholds) == set(calibration.KINDS)
    assert thresholds[calibration.SCAN] < thresholds[calibration.PHOTO]
    assert calibrator(evidence(3.0)) > calibrator(evidence(1.0))  # one fit over both kinds
    assert calibrator(evidence(4.0)) >= thresholds[calibration.SCAN]

    _, scans_only = fit_field("invoice_number", [o for o in got if o.kind == calibration.SCAN])
    assert set(scans_only) == {calibration.SCAN}


# -- end to end, with the shipped calibration -------------------------------------------------

@pytest.fixture(scope="module")
def clean_scan():
    """A generated English invoice (a seed no calibration or benchmark reads) as a flatbed scan
    at 200 dpi, its truth, and its extraction."""
    import tempfile
    from pathlib import Path

    from ledgerline_tools import samples
    from ledgerline_tools.samples.scan import scan_pdf

    pdf, truth = samples.generate(SEED, lang="en", template="letterhead")
    page = scan_pdf(pdf, SEED, dpi=200).images
    assert len(page) == 1
    with tempfile.TemporaryDirectory() as tmp:
        return page[0], truth, extract(Path(tmp), page[0], "scan.jpg")


SEED = 2002


def smudged(page: bytes, bbox: list, radius: float) -> bytes:
    """The scan with a smudge (a blur of ``radius`` pixels) over the value printed at ``bbox``
    (PDF points, from the page's bottom left)."""
    import io

    from PIL import Image, ImageFilter

    image = Image.open(io.BytesIO(page)).convert("L")
    scale = 200 / 72
    x0, y0, x1, y1 = bbox
    box = (int(x0 * scale), int(image.height - y1 * scale), int(x1 * scale) + 1,
           int(image.height - y0 * scale) + 1)
    image.paste(image.crop(box).filter(ImageFilter.GaussianBlur(radius)), box[:2])
    return scans.encode(image, "JPEG", quality=92)


def test_a_clean_scan_is_read_right_and_held_back_only_by_confidence(clean_scan):
    """Every key field of a clean 200 dpi scan read right, every check passed: what can still
    keep it in review is a field under its OCR threshold, and the reason shows the two apart.
    (bench/ocr.py counts how many clean scans are taken without review.)"""
    from ledgerline_tools.ranker.dataset import norm

    _, truth, document = clean_scan
    assert document["source"] == "ocr"
    for field in KEY:
        assert norm(field, document["fields"][field]["value"]) == norm(field, truth[field])
    for reason in document["review"]["reasons"]:
        field, _, rest = reason.partition(": confidence ")
        got, _, needed = rest.partition(" is below the ")
        assert field in document["fields"] and float(got) < float(needed.split()[0]), reason


@pytest.mark.parametrize(("field", "radius"), [("invoice_number", 4.0), ("issue_date", 8.0)])
def test_a_scan_whose_key_value_is_smudged_is_not_taken_with_the_wrong_value(
        tmp_path, clean_scan, field, radius):
    """OCR cannot read the smudged value; the ranker takes another one from the page (a
    registration number, another date), as sure as the right one: the document asks for
    review, naming the field."""
    from ledgerline_tools.ranker.dataset import norm

    page, truth, document = clean_scan
    got = extract(tmp_path, smudged(page, document["fields"][field]["bbox"], radius), "scan.jpg")
    assert norm(field, got["fields"][field]["value"]) != norm(field, truth[field])
    assert got["review"]["required"]
    assert any(r.startswith(f"{field}: ") for r in got["review"]["reasons"])


# -- an identifier outside its label's column --------------------------------------------------

def _header_row_page():
    """A header-row table as a phone photo read it (calibration document 42): the labels in
    one row and, below, the issue date and the invoice number joined into one OCR'd line that
    reaches under the number's label."""
    from ledgerline.extraction.geometry import DocText
    from ledgerline.extraction.model import Line, Page

    def line(x0, y0, x1, text):
        step = (x1 - x0) / len(text)
        return Line(1, x0, y0, x1, y0 + 9, text,
                    chars=[(x0 + k * step, x0 + (k + 1) * step) for k in range(len(text))],
                    confidences=[0.95] * len(text))

    labels = line(37.4, 656.0, 105.8, "Fecha de factura")
    number_label = line(140.4, 656.0, 214.9, "Número de factura")
    values = line(38.9, 644.0, 183.2, "15 de agosto de 2024  F24/09534")
    return DocText([Page(1, 595, 842, [labels, number_label, values])])


@pytest.mark.parametrize(("bbox", "off"), [([38.9, 644.0, 46.4, 653.0], True),
                                           ([140.4, 644.0, 183.2, 653.0], False)])
def test_an_identifier_below_its_label_is_off_column_only_outside_the_labels_extent(bbox, off):
    from ledgerline.extraction.candidates import BELOW, Candidate, Evidence
    from ledgerline.extraction.pipeline import _off_label_column

    evidence = Evidence("label", label_field="invoice_number", label_line=1, relation=BELOW)
    cand = Candidate("invoice_number", "x", "x", 1, bbox, line=2, evidence=evidence)
    assert _off_label_column(_header_row_page(), cand) is off


def test_an_ocr_read_identifier_outside_its_labels_column_asks_for_review():
    """Whatever its confidence: on the calibration's photo the day of the issue date taken for
    the invoice number read 0.9996, as sure as the right numbers."""
    evidence = (0.0,) * len(EVIDENCE)
    off = calibration.features(evidence, 0.99, (0.0, 0.0, 0.0), 0.0, 1.0, 0.0)
    assert "outside the label's column" in calibration.unconfirmed("invoice_number", off)
    under = calibration.features(evidence, 0.99, (0.0, 0.0, 0.0), 0.0, 0.0, 0.0)
    assert calibration.unconfirmed("invoice_number", under) is None


@pytest.mark.parametrize(("spelling", "confirmed"), [
    ((1.0, 0.0, 0.0), True),  # read again elsewhere on the page
    ((0.0, 0.0, 1.0), True),  # printed once, its place read alike by the second recogniser
    ((0.0, 0.0, 0.0), False),  # printed once, nothing confirms it
    ((0.0, 0.0, -1.0), False),  # ... and the second recogniser read other letters
    ((0.0, 1.0, 1.0), False),  # read alike there, but elsewhere with other accents
    ((1.0, 1.0, 1.0), False),
])
def test_an_ocr_read_seller_name_is_taken_only_when_the_page_confirms_it(spelling, confirmed):
    evidence = calibration.features((0.0,) * len(EVIDENCE), 0.99, spelling, 0.0, 0.0, 0.0)
    assert (calibration.unconfirmed("seller_name", evidence) is None) is confirmed
    assert calibration.unconfirmed("issue_date", evidence) is None


def test_an_ocr_read_identifier_the_second_recogniser_reads_otherwise_asks_for_review():
    """Whatever its confidence: the calibration's "704543" for a printed "F04543" read 0.991
    out of document, as sure as right numbers; the second recogniser read "F04543"."""
    evidence = (0.0,) * len(EVIDENCE)
    otherwise = calibration.features(evidence, 0.99, (0.0, 0.0, -1.0), 0.0, 0.0, 0.0)
    assert "other characters" in calibration.unconfirmed("invoice_number", otherwise)
    for vote in (0.0, 1.0):
        alike = calibration.features(evidence, 0.99, (0.0, 0.0, vote), 0.0, 0.0, 0.0)
        assert calibration.unconfirmed("invoice_number", alike) is None


@pytest.mark.parametrize("field", ["net_total", "tax_total", "gross_total"])
def test_ocr_read_totals_that_are_one_row_of_a_vat_breakdown_ask_for_review(field):
    evidence = (0.0,) * len(EVIDENCE)
    row = calibration.features(evidence, 0.99, (0.0, 0.0, 0.0), 1.0, 0.0, 1.0)
    assert "VAT breakdown" in calibration.unconfirmed(field, row)
    totals = calibration.features(evidence, 0.99, (0.0, 0.0, 0.0), 1.0, 0.0, 0.0)
    assert calibration.unconfirmed(field, totals) is None
    assert calibration.unconfirmed("issue_date", row) is None


@pytest.mark.parametrize("field", ["invoice_number", "gross_total", "issue_date", "seller_name"])
def test_an_ocr_read_value_the_ranker_gives_less_than_an_even_chance_asks_for_review(field):
    """Whatever the calibrator makes of it: a postcode the ranker gave 0.17, taken for a
    scan's invoice number, was rated as sure as every right number out of document."""
    unsure = (-1.6,) + (0.0,) * (len(EVIDENCE) - 1)
    evidence = calibration.features(unsure, 0.99, (1.0, 0.0, 1.0), 1.0, 0.0, 0.0)
    assert "even chance" in calibration.unconfirmed(field, evidence)
    even = calibration.features((0.0,) * len(EVIDENCE), 0.99, (1.0, 0.0, 1.0), 1.0, 0.0, 0.0)
    assert calibration.unconfirmed(field, even) is None
