"""The lookup of possible duplicates among other files (a cache hit's answer, an invoice's
read) reads the candidates, not the account's history nor the seller's: on PostgreSQL, with
thousands of invoices in the account, it reads a few rows per candidate (bench/history.py
measures it on two million invoices)."""
from __future__ import annotations


import pytest
from sqlalchemy import func, or_, select, text

from ledgerline.adapters.db.invoices import same_seller_query, visible_to
from ledgerline.adapters.db.tables import invoices, jobs, results
from tests.integration.loaded_history import loaded_history

ACCOUNT = "hist-0"
UPLOADS = 3000  # in this one account (two accounts loaded)


@pytest.fixture
def history(pg_server):
    with loaded_history(pg_server, 2 * UPLOADS, "versions", accounts=2) as engine:
        yield engine


def rows_read(conn, table: str) -> int:
    """Rows of `table` this transaction read, by any scan."""
    return conn.execute(text(
        "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) "
        "FROM pg_stat_xact_user_tables WHERE relname = :table"), {"table": table}).scalar()


def test_the_lookup_reads_the_candidates_not_the_accounts_invoices(history):
    with history.connect() as conn:
        # From the middle of the history (four in five uploads are misses with a result): the
        # issue dates follow the clock, and the first upload's date may begin minutes before
        # the history does, with none of its seller's other invoices on it.
        mine = conn.execute(select(results).where(results.c.account == ACCOUNT)
                            .order_by(results.c.id).offset(UPLOADS * 4 // 10).limit(1)).one()
        # an upload that joined an extraction shows its leader's result
        leader = jobs.alias("leader")
        of_the_seller = (invoices.join(jobs, jobs.c.id == invoices.c.job_id)
                         .outerjoin(leader, leader.c.id == jobs.c.leader_id)
                         .join(results, results.c.id == func.coalesce(jobs.c.result_id,
                                                                      leader.c.result_id)))
        seller = (invoices.c.account == ACCOUNT, results.c.seller_key == mine.seller_key,
                  invoices.c.content_hash != mine.content_hash)
        sellers_invoices = conn.execute(select(invoices.c.id).select_from(of_the_seller)
                                        .where(*seller)).scalars().all()
        alike = set(conn.execute(
            select(invoices.c.id).select_from(of_the_seller)
            .where(*seller, or_(results.c.number_key == mine.number_key,
                                results.c.issue_date == mine.issue_date))).scalars())
        assert len(sellers_invoices) >= 10 and 1 <= len(alike) < len(sellers_invoices)
    with history.connect() as conn:
        found = conn.execute(same_seller_query(
            visible_to(ACCOUNT), ACCOUNT, mine.content_hash, mine.seller_key, mine.number_key,
            mine.issue_date)).all()
        read = rows_read(conn, "invoices")
    # The seller's invoices with the same number or date (this history keeps the seller
    # where it corrects one in a hundred) ...
    assert {row.id for row in found} == alike
    # ... read through the indexes, a few rows each: not the account's 3,000 invoices.
    assert read <= 4 * len(found) + 10, f"{read} invoice rows read for {len(found)} found"
