"""The field ranker's pieces without the corpus: features, the joint choice of the totals,
confidence from evidence, the model file and reproducible training on generated invoices."""

from __future__ import annotations

import gzip
import json
from decimal import Decimal

import pytest

from ledgerline.extraction import MODEL_CONFIG, model_config_digest, parse_pdf
from ledgerline.extraction.finders import find_candidates
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.ranker import choose, confidence, joint
from ledgerline.extraction.ranker import model as ranker_model
from ledgerline.extraction.ranker.features import CLASS_INDEX, FEATURE_INDEX, FEATURE_NAMES
from ledgerline.extraction.ranker.rows import RANKED_FIELDS, document_rows

D = Decimal

# Labels in a header row, values in the row under it; the seller only in the letterhead.
HEADER_ROWS = [
    (50, 800, "Nordlicht Handel GmbH"),
    (50, 786, "Hafenstraße 4, 20457 Hamburg"),
    (350, 760, "Rechnung"),
    (300, 740, "Rechnungsnummer"),
    (450, 740, "Rechnungsdatum"),
    (300, 726, "RE-2024-117"),
    (450, 726, "05.03.2024"),
    (50, 700, "Rechnungsempfänger"),
    (50, 686, "Kunde AG"),
    (300, 520, "Nettobetrag"),
    (400, 520, "MwSt."),
    (480, 520, "Gesamtbetrag"),
    (300, 506, "200,00 EUR"),
    (400, 506, "38,00 EUR"),
    (480, 506, "238,00 EUR"),
]


def _doc(make_pdf, page=HEADER_ROWS):
    dt = DocText(parse_pdf(make_pdf([page])).pages)
    return dt, find_candidates(dt)


def _row(doc, field, value):
    return next(r for r in doc.rows[field] if r.value == value)


def test_features_name_the_label_over_a_value_in_a_header_row(make_pdf):
    dt, found = _doc(make_pdf)
    doc = document_rows(dt, found)
    assert all(m.shape[1] == len(FEATURE_NAMES) for m in doc.matrices.values())
    gross = _row(doc, "gross_total", D("238.00")).x
    assert gross[FEATURE_INDEX["col_class"]] == CLASS_INDEX["gross_total"]
    assert gross[FEATURE_INDEX["col_names_field"]] == 1.0
    assert gross[FEATURE_INDEX["v_is_max"]] == 1.0 and gross[FEATURE_INDEX["v_sum_of_two"]] == 1.0
    net = _row(doc, "gross_total", D("200.00")).x
    assert net[FEATURE_INDEX["col_class"]] == CLASS_INDEX["net_total"]
    assert net[FEATURE_INDEX["v_part_of_sum"]] == 1.0
    number = _row(doc, "invoice_number", "RE-2024-117").x
    assert number[FEATURE_INDEX["col_class"]] == CLASS_INDEX["invoice_number"]
    seller = _row(doc, "seller_name", "Nordlicht Handel GmbH").x
    assert seller[FEATURE_INDEX["name_has_legal_form"]] == 1.0
    assert seller[FEATURE_INDEX["name_in_buyer_block"]] == 0.0
    buyer = _row(doc, "seller_name", "Kunde AG").x
    assert buyer[FEATURE_INDEX["name_in_buyer_block"]] == 1.0


def test_the_committed_ranker_reads_a_header_row_table(make_pdf):
    dt, found = _doc(make_pdf)
    fields = choose(dt, found).fields
    values = {f: (c.value if c else None) for f, c in fields.items()}
    assert values["invoice_number"] == "RE-2024-117"
    assert str(values["issue_date"]) == "2024-03-05"
    assert (values["net_total"], values["tax_total"], values["gross_total"]) == (
        D("200.00"), D("38.00"), D("238.00"))
    assert values["seller_name"] == "Nordlicht Handel GmbH"
    assert values["currency"] == "EUR"
    assert all(0.0 <= fields[f].score <= 1.0 for f in RANKED_FIELDS if fields[f] is not None)


def test_joint_choice_prefers_totals_that_add_up():
    # alone, 250.00 is the likelier gross; only 238.00 makes net + tax = gross
    picks = joint.choose_totals({
        "net_total": {D("200.00"): 0.8},
        "tax_total": {D("38.00"): 0.7},
        "gross_total": {D("250.00"): 0.6, D("238.00"): 0.5},
        "amount_due": {},
    })
    assert picks["gross_total"].value == D("238.00")
    assert picks["gross_total"].probability > 0.5


def test_joint_choice_derives_the_missing_tax():
    picks = joint.choose_totals({
        "net_total": {D("100.00"): 0.95},
        "tax_total": {},
        "gross_total": {D("121.00"): 0.95},
        "amount_due": {D("121.00"): 0.9},
    })
    assert picks["tax_total"].value == D("21.00") and picks["tax_total"].derived
    assert picks["amount_due"].value == D("121.00")


def test_a_field_without_a_likely_value_stays_empty():
    assert joint.choose_field({}).value is None
    assert joint.choose_field({"4711": 0.9}).value == "4711"
    weak = {f"v{k}": 0.02 for k in range(10)}
    assert joint.choose_field(weak).value is None


def _evidence(p, *, margin=0.5, label=1.0, places=1, arithmetic=0.0, derived=False):
    return confidence.evidence(p, margin, label, places, arithmetic, derived)


def test_confidence_rises_with_the_probability_and_with_the_evidence():
    # right where the ranker was sure and a label named the value
    xs, right = [], []
    for k in range(200):
        p, label = (k % 100) / 100, float(k % 3 != 0)
        xs.append(_evidence(p, label=label))
        right.append(p > 0.4 and (label or p > 0.8))
    cal = confidence.fit(xs, right, [1.0] * len(xs))
    ys = [cal(_evidence(k / 100)) for k in range(100)]
    assert ys == sorted(ys) and ys[5] < 0.3 and ys[95] > 0.7
    # the same probability, different evidence: different confidences
    assert cal(_evidence(0.6, label=0.0)) < cal(_evidence(0.6, label=1.0))
    assert confidence.Calibrator.from_json(cal.to_json()) == cal


def test_confidence_weighs_outcomes_by_their_source():
    # a big source that is always right, a few small ones that are right half the time
    xs = [_evidence(0.95)] * 200 + [_evidence(0.95)] * 20 + [_evidence(0.2)] * 20
    right = [True] * 200 + [k % 2 == 0 for k in range(20)] + [False] * 20
    plain = confidence.fit(xs, right, [1.0] * len(xs))
    weighted = confidence.fit(xs, right, [1 / 200**0.5] * 200 + [1.0] * 40)
    assert weighted(_evidence(0.95)) < plain(_evidence(0.95))


def test_too_few_outcomes_or_no_wrong_one_leave_the_probability_shrunk():
    unfitted = confidence.fit([_evidence(0.9)] * 5, [True] * 5, [1.0] * 5)
    assert unfitted(_evidence(0.9)) == pytest.approx(0.9 * confidence.UNFITTED_SHRINK, abs=1e-3)
    never_wrong = confidence.fit([_evidence(0.9)] * 50, [True] * 50, [1.0] * 50)
    assert never_wrong == confidence.Calibrator()


def test_the_acceptance_threshold_is_above_every_wrong_value():
    confs = [0.99, 0.97, 0.95, 0.93, 0.91, 0.9, 0.8, 0.7]
    right = [True, True, True, True, True, False, True, False]
    assert confidence.accept_threshold(confs, right, [1.0] * 8) == 0.91
    # too little right weight above the last wrong value: never taken unseen
    assert confidence.accept_threshold(confs, right, [0.5] * 8) == confidence.NEVER
    # a wrong value as sure as the surest right one
    assert confidence.accept_threshold([0.9] * 6, [True] * 5 + [False], [1.0] * 6) == (
        confidence.NEVER)


def test_the_model_file_is_small_versioned_and_checked(tmp_path):
    assert ranker_model.MODEL_PATH.stat().st_size < 5 * 1024 * 1024
    assert MODEL_CONFIG["ranker"]["sha256"] == ranker_model.model_digest()
    # another model file, another cache key
    digest = model_config_digest()
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(MODEL_CONFIG, "ranker", {**MODEL_CONFIG["ranker"], "sha256": "0" * 64})
        assert model_config_digest() != digest
    data = json.loads(gzip.decompress(ranker_model.MODEL_PATH.read_bytes()))
    assert set(data["fields"]) == set(ranker_model.CONFIDENCE_FIELDS)
    assert all(0.0 <= e["accept_threshold"] <= confidence.NEVER for e in data["fields"].values())
    data["features"] = data["features"][:-1]
    other = tmp_path / "model.json.gz"
    other.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(ranker_model.ModelFileError, match="other features"):
        ranker_model.read(other)


def test_training_is_deterministic(tmp_path):
    from ledgerline_tools.ranker import train
    from ledgerline_tools.ranker.dataset import generated_documents

    exs = train.examples(generated_documents(9, seed=3))
    first, second = tmp_path / "a.json.gz", tmp_path / "b.json.gz"
    cals = {f: confidence.Calibrator() for f in ranker_model.CONFIDENCE_FIELDS}
    thresholds = dict.fromkeys(ranker_model.CONFIDENCE_FIELDS, confidence.NEVER)
    ranker_model.dump(first, train.fit(exs), cals, thresholds, {})
    ranker_model.dump(second, train.fit(exs), cals, thresholds, {})
    assert first.read_bytes() == second.read_bytes()
    trained = ranker_model.read(first)
    assert trained.boosters["gross_total"] is not None


def test_training_without_the_corpus_says_so(tmp_path, capsys):
    from ledgerline_tools.ranker import train

    assert train.main(["--corpus", str(tmp_path), "--out", str(tmp_path / "m.json.gz")]) == 2
    assert "corpus not found" in capsys.readouterr().err
    assert not (tmp_path / "m.json.gz").exists()


def test_due_date_read_from_the_issue_dates_place_is_dropped(make_pdf):
    page = [(350, 760, "Invoice"), (350, 740, "Invoice No: 77"),
            (350, 726, "Date / due: 05.03.2024"), (350, 500, "Total 100.00 EUR")]
    dt, found = _doc(make_pdf, page)
    fields = choose(dt, found).fields
    assert str(fields["issue_date"].value) == "2024-03-05"
    assert fields["due_date"] is None or fields["due_date"].line != fields["issue_date"].line


def _tax_row_sums(found) -> dict:
    """The tax totals offered as sums of VAT rows, by how many rows from the end they stop."""
    return {c.evidence.facts["from_end"]: c.value for c in found.fields["tax_total"]
            if c.evidence.kind == "sum_of_tax_rows"}


def test_vat_rows_without_a_vat_total_offer_their_sums(make_pdf):
    page = [(350, 760, "Rechnung"), (350, 740, "Rechnungsnummer: 4711"),
            (300, 520, "MwSt. 19 %"), (400, 520, "100,00"), (480, 520, "19,00"),
            (300, 506, "MwSt. 7 %"), (400, 506, "50,00"), (480, 506, "3,50"),
            (300, 480, "Gesamtbetrag"), (480, 480, "172,50")]
    sums = _tax_row_sums(_doc(make_pdf, page)[1])
    assert sums == {1: D("22.50"), 2: D("150.00")}


def test_a_legal_form_stated_apart_leaves_the_name(make_pdf):
    page = [(50, 800, "Au bon moulin SARL"), (350, 760, "Facture n° F-12"),
            (50, 60, "SARL au capital de 10 000 € - RCS Lyon 123 456 789")]
    _dt, found = _doc(make_pdf, page)
    assert found.facts.declared_form == "sarl"  # read from the folded text
    assert ranker_model._without_form("Au bon moulin SARL", "sarl") == "Au bon moulin"
    assert ranker_model._without_form("SARL", "SARL") == "SARL"  # nothing would be left


def test_a_paid_invoice_takes_away_the_gross_totals_bonus_as_amount_due():
    def values(due):
        return {
            "net_total": {D("100.00"): 0.9},
            "tax_total": {D("20.00"): 0.9},
            "gross_total": {D("120.00"): 0.9},
            "amount_due": due,
        }

    # nothing paid: the gross total is the likelier amount due
    assert joint.choose_totals(values({D("120.00"): 0.3, D("70.00"): 0.4}))[
        "amount_due"].value == D("120.00")
    # something paid: no bonus, the likelier figure is the amount due ...
    assert joint.choose_totals(values({D("120.00"): 0.3, D("70.00"): 0.4}), paid=True)[
        "amount_due"].value == D("70.00")
    # ... and a confident "Amount due" equal to the gross total is not overruled by a weaker one
    assert joint.choose_totals(values({D("120.00"): 0.9, D("70.00"): 0.6}), paid=True)[
        "amount_due"].value == D("120.00")


def test_cash_rounding_may_put_the_amount_due_above_the_gross_total():
    values = {
        "net_total": {D("100.00"): 0.9},
        "tax_total": {D("21.47"): 0.9},
        "gross_total": {D("121.47"): 0.9},
        "amount_due": {D("122.00"): 0.5},
    }
    assert joint.choose_totals(values)["amount_due"].value == D("122.00")


def test_leave_one_source_out_does_not_depend_on_the_worker_processes():
    from ledgerline_tools.ranker import train
    from ledgerline_tools.ranker.dataset import generated_documents

    exs = train.examples(generated_documents(6, seed=5))
    for k, ex in enumerate(exs):  # three "real" sources of two documents, the last unlicensed
        ex.doc.part, ex.doc.source = "corpus", f"source{k // 2}"
        ex.doc.trainable = k < 4
    one, two = train.folds(exs, jobs=1), train.folds(exs, jobs=2)
    assert set(one.probs) == {ex.doc.key for ex in exs}
    for key, fields in one.probs.items():
        assert all((fields[f] == two.probs[key][f]).all() for f in fields)
    assert one.everything["gross_total"].model_to_string() == (
        two.everything["gross_total"].model_to_string())


def test_an_amount_due_may_add_an_earlier_balance_the_page_prints(make_pdf):
    page = [(350, 760, "Rechnung"), (350, 740, "Rechnungsnummer: 4711"),
            (300, 520, "Bruttosumme"), (480, 520, "119,00"),
            (300, 506, "Offene Zahlungen"), (480, 506, "80,00"),
            (300, 492, "Zahlbetrag"), (480, 492, "199,00")]
    _dt, found = _doc(make_pdf, page)
    assert found.facts.earlier_balances == (D("80.00"),)
    values = {
        "net_total": {D("100.00"): 0.9},
        "tax_total": {D("19.00"): 0.9},
        "gross_total": {D("119.00"): 0.9},
        "amount_due": {D("199.00"): 0.9, D("119.00"): 0.8},
    }
    # without the balance, an amount due far above the gross total is unlikely ...
    assert joint.choose_totals(values)["amount_due"].value == D("119.00")
    # ... with it, the labelled figure adds up
    balances = found.facts.earlier_balances
    assert joint.choose_totals(values, balances=balances)["amount_due"].value == D("199.00")


def test_a_column_of_vat_amounts_under_a_tax_header_offers_its_sum(make_pdf):
    # the rates stand in a column of their own, no percent sign in the rows
    page = [(350, 760, "Rechnung"), (350, 740, "Rechnungsnummer: 4711"),
            (300, 540, "Basisbetrag"), (400, 540, "USt. %"), (480, 540, "Steuerbetrag"),
            (300, 526, "-10,00"), (400, 526, "19"), (480, 526, "-1,90"),
            (300, 512, "-5,00"), (400, 512, "7"), (480, 512, "-0,35"),
            (300, 480, "Bruttosumme"), (480, 480, "-17,25")]
    sums = _tax_row_sums(_doc(make_pdf, page)[1])
    assert sums == {0: D("-2.25")}  # never the rates' column (19 + 7)


def test_a_correction_invoices_negative_totals_derive_the_missing_tax():
    values = {
        "net_total": {D("-15.00"): 0.9},
        "tax_total": {},
        "gross_total": {D("-17.25"): 0.9},
        "amount_due": {},
    }
    tax = joint.choose_totals(values)["tax_total"]
    assert tax.derived and tax.value == D("-2.25")


def test_the_chosen_name_is_given_as_the_labelled_seller_block_spells_it(make_pdf):
    page = [(350, 760, "Rechnung"), (350, 740, "Rechnungsnummer: 4711"),
            (50, 700, "Verkäufer:"), (50, 686, "Nordlicht-Handelshaus"),
            (50, 672, "Hafenstraße 4, 20457 Hamburg"),
            (50, 60, "NORDLICHT-Handelshaus GMBH · Amtsgericht Hamburg")]
    dt, found = _doc(make_pdf, page)
    doc = document_rows(dt, found)
    rows = doc.rows["seller_name"]
    footer = next(r for r in rows if "GMBH" in str(r.value))
    p = [0.9 if r is footer else 0.1 for r in rows]
    value, row = ranker_model._labelled_spelling(footer.value, footer, rows, p)
    assert value == "Nordlicht-Handelshaus" and row is not footer
    # another name is left as it is
    other = next(r for r in rows if r is not footer and "Nordlicht" not in str(r.value))
    assert ranker_model._labelled_spelling(other.value, other, rows, p)[0] == other.value


def test_a_number_sign_before_an_invoice_number_is_not_part_of_it():
    from ledgerline_tools.ranker.dataset import norm

    assert norm("invoice_number", "# INV_0042") == norm("invoice_number", "INV_0042")
    assert norm("invoice_number", "№ 17") == "17"
    assert norm("invoice_number", "RE-2024#3") == "re-2024#3"  # only a leading sign


def test_a_review_note_says_what_speaks_against_the_value_of_its_own_field():
    against = confidence.evidence(0.7, 0.1, 0.0, 1, -1.0, False)
    gross = ranker_model.FieldPick(D("119.00"), 0.7, 0.4, None, evidence=against)
    note = ranker_model.describe("gross_total", gross)
    assert "net + tax does not make the gross total" in note
    assert "no label names it" in note and "margin 0.10" in note
    due = ranker_model.FieldPick(None, 0.7, 0.4, None, evidence=against)
    assert "before the issue date" in ranker_model.describe("due_date", due)
    sure = confidence.evidence(0.99, 0.9, 1.0, 2, 1.0, False)
    assert ranker_model.describe("issue_date", ranker_model.FieldPick(None, 0.99, 0.98, None,
                                                                      evidence=sure)) == ""
