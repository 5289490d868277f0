"""Many completed invoices written straight into the tables, as the worker would have left
them: for exports and lists at sizes no test uploads one by one (tests/integration/
test_exports.py, bench/export_bench.py). Each invoice has its own file, job and result; every
`duplicate_every`-th one is another file billing the same thing as the one before it."""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import blobs, invoices, jobs, results
from ledgerline.domain.duplicates import number_key, seller_key
from tests.fakes import VERSIONS, document

BATCH = 2000


def insert_completed(engine, account: str, key_id: str, count: int, *, sellers: int = 200,
                     duplicate_every: int = 0, credit_every: int = 0,
                     prefix: str = "bulk") -> list[str]:
    """Write `count` completed invoices of `account` uploaded by `key_id`, the oldest first,
    a second apart; their ids, oldest first. Every `credit_every`-th is a credit note as
    invoice-v2 stores one (its document type read, its amounts negative)."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ids = []
    for first in range(0, count, BATCH):
        rows = [_rows(account, key_id, n, start, sellers, duplicate_every, credit_every, prefix)
                for n in range(first, min(count, first + BATCH))]
        with transaction(engine, write=True) as conn:
            for table, index in ((blobs, 0), (results, 1), (jobs, 2), (invoices, 3)):
                conn.execute(table.insert(), [r[index] for r in rows])
        ids += [r[3]["id"] for r in rows]
    return ids


def _rows(account, key_id, n, start, sellers, duplicate_every, credit_every, prefix):
    twin = duplicate_every and n % duplicate_every == 1  # bills what invoice n - 1 bills
    billed = n - 1 if twin else n
    number = f"{prefix.upper()}-{billed:07d}"
    seller = f"Lieferant {billed % sellers:04d} Sanitär GmbH"
    # a gross of its own: no two bills of one seller share gross and date by chance
    cents = int(hashlib.sha256(prefix.encode()).hexdigest()[:4], 16) % 100
    gross = f"{billed + 1}.{cents:02d}"
    credit = credit_every and n % credit_every == credit_every - 1
    if credit:
        gross = f"-{gross}"
    content_hash = "blake3:" + hashlib.sha256(f"{prefix}-{account}-{n}".encode()).hexdigest()
    doc = document(content_hash, number)
    doc["fields"]["seller_name"]["value"] = seller
    doc["fields"]["gross_total"]["value"] = gross
    if credit:
        doc["fields"]["document_type"] = {"value": "credit_note", "confidence": 0.9,
                                          "raw": "Gutschrift", "page": 1, "bbox": None}
    doc["fields"]["net_total"]["value"] = "100.00"
    doc["fields"]["tax_total"]["value"] = "19.00"
    ids = {kind: f"{kind}_{prefix}{n:09d}" for kind in ("res", "job", "inv")}
    when = start + timedelta(seconds=n)
    fields = doc["fields"]
    return (
        {"account": account, "content_hash": content_hash,
         "storage_key": f"{account}/{content_hash}", "size": 2000, "stored_at": when},
        {"id": ids["res"], "account": account, "cache_key": hashlib.sha256(
            content_hash.encode()).hexdigest(), "content_hash": content_hash,
         "job_id": ids["job"], "document": json.dumps(doc, separators=(",", ":")),
         "invoice_number": number, "issue_date": fields["issue_date"]["value"],
         "seller_name": seller, "gross_total": gross,
         "currency": "EUR", "seller_key": seller_key(seller), "number_key": number_key(number),
         "review_required": False, "created_at": when},
        {"id": ids["job"], "account": account, "caller_id": key_id, "request_hash": "0" * 64,
         "cache_key": "0" * 64, "content_hash": content_hash, "status": "completed",
         "outcome": "miss", "fresh": False, "result_id": ids["res"], "fencing_token": 1,
         "attempts": 1, "run_after": when, "extractor_versions": VERSIONS.label,
         "created_at": when, "updated_at": when, "finished_at": when},
        {"id": ids["inv"], "account": account, "uploaded_by": key_id, "job_id": ids["job"],
         "content_hash": content_hash, "created_at": when, "version": 0},
    )
