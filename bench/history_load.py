"""A year of past work in a Ledgerline database, loaded set-based (generate_series), for
bench/history.py.

`rows` past uploads spread over ACCOUNTS accounts unless told (two keys each, a customer's and
a supplier's), one every 15 seconds, each with its job and invoice. Of every ten uploads of
an account, eight are new files (a finished job, its original, its result and cache
entry, its ledger row), one repeats an earlier file of the same account (a cache hit: a
finished job pointing at that result), and one is either a failed extraction (its original
and ledger row, no result) or an upload that joined an extraction in flight (status
`pending` for good: readers follow the leader). Each result names one of SELLERS sellers,
drawn at random (at 2,000 uploads an account, about a dozen invoices a seller), one invoice
in a hundred was corrected (its summary columns and an audit row), and every fifth account
has a webhook endpoint with each of its events delivered (a delivery row and an attempt).

The plain indexes of the tables loaded (not the partial ones) are dropped first and built
again afterwards from their own definitions (pg_indexes), and foreign keys are not checked
while loading (session_replication_role = replica: the rows are made consistent): building an
index once is much cheaper than keeping it up to date through millions of inserts. The schema
after the load is the migrated one, which `load` checks; its statistics are gathered
(ANALYZE) before it returns.
"""
from __future__ import annotations

import time

from sqlalchemy import Connection, text

ACCOUNTS = 1000
SELLERS = 150
LOADED = ("blobs", "results", "cache_entries", "jobs", "invoices", "model_calls",
          "webhook_endpoints", "webhook_deliveries", "webhook_attempts", "invoice_corrections")

# Ids of past rows carry the upload's number zero-padded, so that rows inserted in order
# append to their primary keys' indexes rather than land all over them.
PAD = 9


def _statements(rows: int, versions: str, accounts: int) -> list[str]:
    return [
        # One row per past upload: its account, time, kind, the upload whose file it carries
        # (its own, or the earlier one it repeats or joined) and that file's hashes.
        f"""CREATE TEMP TABLE past AS
            SELECT g, n, 'hist-' || a AS acct, a, t, t + interval '2 seconds' AS done, kind,
                   lpad(f::text, {PAD}, '0') AS fn,
                   'key_h' || a || CASE WHEN g % 2 = 0 THEN 'c' ELSE 's' END AS key,
                   'blake3:' || md5('c' || f) || md5('C' || f) AS ch,
                   md5('k' || f) || md5('K' || f) AS ck,
                   'Seller ' || s || ' GmbH' AS seller,
                   'seller' || s || 'gmbh' AS seller_key,  -- domain.duplicates.seller_key
                   to_char(t, 'YYYY-MM-DD') AS issued, (100 + g % 9000) || '.00' AS gross
            FROM (SELECT *,
                         CASE WHEN cls < 8 THEN 'miss' WHEN cls = 8 THEN 'hit'
                              WHEN g % 3 = 0 THEN 'failed' ELSE 'joined' END AS kind,
                         CASE WHEN cls = 8 THEN g - {accounts}
                              WHEN cls = 9 AND g % 3 <> 0 THEN g - 2 * {accounts}
                              ELSE g END AS f
                  FROM (SELECT g, lpad(g::text, {PAD}, '0') AS n, g % {accounts} AS a,
                               ((g - 1) / {accounts}) % 10 AS cls,
                               abs(hashint4(g)) % {SELLERS} AS s,
                               now() - ({rows} - g) * interval '15 seconds' AS t
                        FROM generate_series(1, {rows}) g) numbered) classified""",
        f"""INSERT INTO accounts (name, created_at)
            SELECT 'hist-' || a, now() - interval '400 days'
            FROM generate_series(0, {accounts - 1}) a
            ON CONFLICT DO NOTHING""",
        f"""INSERT INTO api_keys (id, key_hash, role, account, name, created_at, prefix)
            SELECT 'key_h' || a || r, md5('kh' || a || r) || md5('KH' || a || r),
                   CASE r WHEN 'c' THEN 'customer' ELSE 'supplier' END, 'hist-' || a,
                   r || ' of hist-' || a, now() - interval '400 days',
                   'llk_' || substr(md5('kh' || a || r), 1, 8)
            FROM generate_series(0, {accounts - 1}) a, (VALUES ('c'), ('s')) v(r)""",
        # Keyed by hashes: inserted in key order, for the same reason as PAD.
        """INSERT INTO blobs (account, content_hash, storage_key, size, stored_at)
            SELECT acct, ch, 'originals/' || acct || '/' || substr(ch, 8), 140000 + g % 9000, t
            FROM past WHERE kind IN ('miss', 'failed') ORDER BY acct, ch""",
        """INSERT INTO results (id, account, cache_key, content_hash, job_id, document,
                invoice_number, issue_date, seller_name, gross_total, currency, seller_key,
                review_required, created_at, number_key)
            SELECT 'res_h' || n, acct, ck, ch, 'job_h' || n,
                   json_build_object('schema_version', 'invoice-v2', 'source', 'text_layer',
                       'fields', json_build_object(
                           'invoice_number', json_build_object('value', 'INV-' || g),
                           'issue_date', json_build_object('value', issued),
                           'seller_name', json_build_object('value', seller),
                           'gross_total', json_build_object('value', gross),
                           'currency', json_build_object('value', 'EUR')),
                       'line_items', json_build_array(), 'validations', json_build_array(),
                       'review', json_build_object('required', g % 4 = 0))::text,
                   'INV-' || g, issued, seller, gross, 'EUR', seller_key, g % 4 = 0, done,
                   'inv-' || g
            FROM past WHERE kind = 'miss'""",
        """INSERT INTO cache_entries (account, cache_key, result_id, updated_at, started_at)
            SELECT acct, ck, 'res_h' || n, done, t + interval '1 second'
            FROM past WHERE kind = 'miss' ORDER BY acct, ck""",
        f"""INSERT INTO jobs (id, account, caller_id, idempotency_key, request_hash, cache_key,
                content_hash, status, outcome, fresh, leader_id, result_id, lease_owner,
                fencing_token, attempts, run_after, extractor_versions, fair_position,
                claimed_at, error_code, error_message, request_id, created_at, updated_at,
                finished_at)
            SELECT 'job_h' || n, acct, key, CASE WHEN g % 4 = 0 THEN 'idem-' || g END,
                   md5('r' || g) || md5('R' || g), ck, ch,
                   CASE kind WHEN 'joined' THEN 'pending' WHEN 'failed' THEN 'failed'
                        ELSE 'completed' END,
                   CASE kind WHEN 'hit' THEN 'hit' WHEN 'joined' THEN 'joined' ELSE 'miss' END,
                   false, CASE WHEN kind = 'joined' THEN 'job_h' || fn END,
                   CASE WHEN kind IN ('miss', 'hit') THEN 'res_h' || fn END,
                   CASE WHEN kind IN ('miss', 'failed') THEN 'worker-' || g % 4 END,
                   CASE WHEN kind IN ('miss', 'failed') THEN 1 ELSE 0 END,
                   CASE WHEN kind IN ('miss', 'failed') THEN 1 ELSE 0 END,
                   t, '{versions}', 0,
                   CASE WHEN kind IN ('miss', 'failed') THEN t + interval '1 second' END,
                   CASE WHEN kind = 'failed' THEN 'extraction_failed' END,
                   CASE WHEN kind = 'failed' THEN 'the PDF could not be read' END,
                   'req-' || g, t, done,
                   CASE kind WHEN 'joined' THEN NULL WHEN 'hit' THEN t ELSE done END
            FROM past""",
        # One invoice in a hundred corrected: its own summary columns and an audit row.
        """INSERT INTO invoices (id, account, uploaded_by, job_id, content_hash, created_at,
                version, corrected_at, corrections, invoice_number, issue_date, seller_name,
                gross_total, currency, seller_key, number_key, review_required)
            SELECT 'inv_h' || n, acct, key, 'job_h' || n, ch, t,
                   CASE WHEN c THEN 1 ELSE 0 END, CASE WHEN c THEN t + interval '1 day' END,
                   CASE WHEN c THEN '{"fields": {"invoice_number": "INV-' || g
                                    || '-A"}, "line_items": null}' END,
                   CASE WHEN c THEN 'INV-' || g || '-A' END, CASE WHEN c THEN issued END,
                   CASE WHEN c THEN seller END, CASE WHEN c THEN gross END,
                   CASE WHEN c THEN 'EUR' END, CASE WHEN c THEN seller_key END,
                   CASE WHEN c THEN 'inv-' || g || '-a' END, CASE WHEN c THEN false END
            FROM (SELECT *, kind = 'miss' AND g % 100 = 42 AS c FROM past) p""",
        """INSERT INTO invoice_corrections (id, account, invoice_id, version, kind,
                author_key_id, author_role, changes, created_at)
            SELECT 'cor_h' || n, acct, 'inv_h' || n, 1, 'correction', 'key_h' || a || 'c',
                   'customer', '[{"field": "invoice_number", "previous": "INV-' || g
                   || '", "value": "INV-' || g || '-A"}]', t + interval '1 day'
            FROM past WHERE kind = 'miss' AND g % 100 = 42""",
        """INSERT INTO model_calls (operation, account, job_id, request_hash, started_at,
                finished_at, call_id, outcome, cost, worker, fencing_token, provider,
                provider_requests, pages, cost_basis)
            SELECT 'extract_invoice', acct, 'job_h' || n, ck, t + interval '1 second', done,
                   'call_h' || n, CASE kind WHEN 'miss' THEN 'published' ELSE 'failed' END,
                   0.004, 'worker-' || g % 4, 1, 'rules', 0, 1, 'flat'
            FROM past WHERE kind IN ('miss', 'failed')""",
        f"""INSERT INTO webhook_endpoints (id, account, url, events, secret, created_by,
                created_at)
            SELECT 'we_h' || a, 'hist-' || a, 'https://hooks.example.com/' || a,
                   'invoice.completed invoice.failed', 'whsec_' || md5('s' || a),
                   'key_h' || a || 'c', now() - interval '400 days'
            FROM generate_series(0, {accounts - 1}) a WHERE a % 5 = 0""",
        """INSERT INTO webhook_deliveries (id, endpoint_id, event_id, account, type,
                invoice_id, occurred_at, status, attempts, next_attempt_at, first_attempt_at,
                fencing_token, delivered_at, last_status_code, payload)
            SELECT 'we_h' || a || ':' || e, 'we_h' || a, e, acct, ty, 'inv_h' || n, done,
                   'delivered', 1, done, done, 1, done + interval '1 second', 200,
                   '{"type": "' || ty || '", "invoice_id": "inv_h' || n || '"}'
            FROM (SELECT *, CASE kind WHEN 'failed' THEN 'invoice.failed'
                                 ELSE 'invoice.completed' END AS ty,
                         'inv_h' || n || CASE kind WHEN 'failed' THEN '.failed.job_h'
                                         ELSE '.completed.job_h' END || n AS e
                  FROM past WHERE a % 5 = 0 AND kind <> 'joined') p ORDER BY a, g""",
        """INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms,
                status_code, outcome)
            SELECT id, 1, first_attempt_at, 40, 200, 'delivered' FROM webhook_deliveries""",
        "DROP TABLE past",
    ]


def plain_indexes(conn: Connection) -> list[tuple[str, str]]:
    """(name, definition) of the loaded tables' indexes that back no constraint and cover
    every row (the partial ones hold only work in flight: kept while loading, as their
    definitions read back in another form than they were written)."""
    return [tuple(row) for row in conn.execute(text("""
        SELECT i.indexname, i.indexdef FROM pg_indexes i
        WHERE i.schemaname = 'public' AND i.tablename = ANY(:tables)
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                          WHERE c.conindid = to_regclass(quote_ident(i.indexname)))
          AND i.indexdef NOT LIKE '% WHERE %'
        ORDER BY i.indexname"""), {"tables": list(LOADED)})]


def load(conn: Connection, rows: int, versions: str,
         accounts: int = ACCOUNTS) -> dict[str, float]:
    """The history into the database `conn` is connected to (at this release's schema), in
    `accounts` accounts; `versions`: the extractor versions label its jobs were keyed with.
    Returns the seconds each table's rows and each index took."""
    seconds: dict[str, float] = {}

    def timed(name: str, statement: str) -> None:
        started = time.perf_counter()
        conn.execute(text(statement))
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started

    indexes = plain_indexes(conn)
    conn.execute(text("SET maintenance_work_mem = '256MB'"))
    for name, _ in indexes:
        conn.execute(text(f'DROP INDEX "{name}"'))
    conn.execute(text("SET session_replication_role = replica"))
    for statement in _statements(rows, versions, accounts):
        timed(" ".join(statement.split()[:3]), statement)
    conn.execute(text("SET session_replication_role = DEFAULT"))
    for name, definition in indexes:
        timed(name, definition)
    timed("ANALYZE", "ANALYZE")
    conn.commit()
    assert plain_indexes(conn) == indexes, "the load must leave the migrated indexes as they were"
    return seconds
