"""`ledgerline upload --format csv` writes booleans as every CSV of the service does."""
from __future__ import annotations

import csv
import io

from ledgerline_tools import commands, upload_client
from ledgerline_tools.upload_client import FileResult


def test_the_batch_clients_csv_writes_true_and_false(capsys, tmp_path):
    results = [FileResult(str(tmp_path / "a.pdf"), "inv_a", "completed", "miss", "required"),
               FileResult(str(tmp_path / "b.pdf"), "inv_b", "completed", "hit", "not_required")]
    commands.print_uploads(upload_client, results, "csv")
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["needs_review"] for r in rows] == ["true", "false"]
