"""The bulk writer: balanced languages and templates, a truth file per PDF, a manifest."""

from __future__ import annotations

import csv
import json

from ledgerline_tools.samples import generate
from ledgerline_tools.samples.corpus import document_seed, main


def test_corpus_writes_pdfs_truth_and_manifest(tmp_path):
    assert main(["--out", str(tmp_path), "--count", "4", "--seed", "7", "--langs", "de,fi",
                 "--templates", "retail,boxed"]) == 0
    with open(tmp_path / "MANIFEST.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert [(r["lang"], r["template"]) for r in rows] == [
        ("de", "retail"), ("fi", "retail"), ("de", "boxed"), ("fi", "boxed")]
    for i, row in enumerate(rows):
        pdf = (tmp_path / row["file"]).read_bytes()
        truth = json.loads((tmp_path / row["file"]).with_suffix(".json").read_text("utf-8"))
        assert (pdf, truth) == generate(document_seed(7, i), row["lang"], row["template"])


def test_unknown_names_stop_the_run(tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit, match="unknown language: xx"):
        main(["--out", str(tmp_path), "--count", "1", "--langs", "de,xx"])
