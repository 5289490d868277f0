"""`ledgerline extract` takes scans and photos as well as PDFs, told apart by content."""
from __future__ import annotations

import json
import os

from tests import scans
from tests.e2e.service import ledgerline


def test_extract_reads_images_and_image_only_pdfs(tmp_path):
    page = scans.render(dpi=200)
    files = {"scan.bin": scans.encode(page, "PNG"),  # the name says nothing; the content does
             "photo.jpg": scans.encode(scans.turned(page, 90).convert("RGB"), "JPEG", dpi=None),
             "pages.tif": scans.multipage_tiff([page, page]),
             "scanner.pdf": scans.image_only_pdf([page]),
             "digital.pdf": scans.invoice_pdf()}
    paths = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    env = {**os.environ, "LEDGERLINE_DATABASE_URL": f"sqlite:///{tmp_path}/unused.sqlite3"}
    out = ledgerline(env, "extract", *paths).stdout.splitlines()
    documents = [json.loads(line)["document"] for line in out]
    assert [d["source"] for d in documents] == ["ocr", "ocr", "ocr", "ocr", "text_layer"]
    for document in documents:
        assert {k: document["fields"][k]["value"] for k in scans.EXPECTED} == scans.EXPECTED
    assert documents[2]["document"]["pages"] == 2


def test_extract_names_what_it_cannot_read(tmp_path):
    path = tmp_path / "cut.png"
    path.write_bytes(scans.encode(scans.render(dpi=150), "PNG")[:5000])
    result = ledgerline(dict(os.environ), "extract", str(path), check=False)
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["code"] == "image_malformed"
