"""The duplicate flag of every listed and exported invoice, as one SQL expression per row.

`duplicate_of` is the first of the invoice's `possible_duplicates` (domain.duplicates), among
the invoices the caller may see: the oldest other copy of the same file, else the oldest
invoice of another file that bills the same thing (same seller and invoice number, or same
seller, gross total and issue date, as the invoices show them: corrections on top). NULL when
there is none.

Each part is read from an index, never by scanning the account, so that a page costs a few
lookups per row and an export of any size streams at a steady pace: the same file from
(account, content_hash, created_at, id); the same bill through the results of that seller and
number, or seller and issue date ((account, seller_key, number_key | issue_date), then the
jobs that published or follow them), and through the invoices corrected to them (the same
indexes on invoices). The inner tables are aliases: the outer query's `invoices` and `results`
are the invoice being judged.

The aliases are made once: an alias of a wide table builds a proxy of each of its columns,
which made each listing's statement cost milliseconds of Python before it reached the database.
"""
from __future__ import annotations

from sqlalchemy import Numeric, and_, cast, func, select, true, union_all

from .tables import invoices, jobs, results

_SAME_FILE = invoices.alias("same_file")
_RESULT = results.alias("bill_result")
_PUBLISHER, _FOLLOWER = jobs.alias("bill_job"), jobs.alias("bill_follower")
_PUBLISHED, _FOLLOWED = invoices.alias("bill"), invoices.alias("bill_followed")
_CORRECTED = invoices.alias("bill_corrected")


def duplicate_of(own, uploaded_by=None):
    """The expression, for a query over invoices joined to the result they show; `own(name)`
    is the invoice's own value of a summary column there; `uploaded_by`, a supplier's key
    (it sees only its own uploads)."""
    return func.coalesce(_same_file(uploaded_by), _same_bill(own, uploaded_by))


def _visible(other, uploaded_by):
    cond = other.c.account == invoices.c.account
    return cond if uploaded_by is None else and_(cond, other.c.uploaded_by == uploaded_by)


def _same_file(uploaded_by):
    other = _SAME_FILE
    return (select(other.c.id)
            .where(_visible(other, uploaded_by), other.c.content_hash == invoices.c.content_hash,
                   other.c.id != invoices.c.id)
            .order_by(other.c.created_at, other.c.id).limit(1)
            .correlate(invoices).scalar_subquery())


def _same_bill(own, uploaded_by):
    by_number = lambda t: t.c.number_key == own("number_key")
    by_day_and_gross = lambda t: and_(
        t.c.issue_date == own("issue_date"),
        cast(t.c.gross_total, Numeric) == cast(own("gross_total"), Numeric))
    matches = union_all(*(part for match in (by_number, by_day_and_gross)
                          for part in _billing(own, uploaded_by, match))).subquery()
    return (select(matches.c.id).order_by(matches.c.created_at, matches.c.id).limit(1)
            .scalar_subquery())


def _billing(own, uploaded_by, match):
    """Visible invoices of another file, of the same seller, that `match` (a condition on a
    table with the summary columns) as they show: the uncorrected through their result (the
    job that published it, or one that followed that job), the corrected through their own
    columns. Joins that start from the matching results' index, never from the account's
    invoices: a lookup per row, whatever the account's size."""
    def same(table):
        return and_(table.c.account == invoices.c.account,
                    table.c.seller_key == own("seller_key"), match(table))

    def other_file(other, *, through_result: bool = False):
        # Reached through a result of the account, an invoice is of the account: saying so
        # again would tempt a planner (SQLite's) to start from the account's invoices.
        visible = (_visible(other, uploaded_by) if not through_result else
                   true() if uploaded_by is None else other.c.uploaded_by == uploaded_by)
        return and_(visible, other.c.content_hash != invoices.c.content_hash)

    result, publisher, follower = _RESULT, _PUBLISHER, _FOLLOWER
    published, followed, corrected = _PUBLISHED, _FOLLOWED, _CORRECTED
    return (
        select(published.c.id, published.c.created_at)
        .select_from(result.join(publisher, publisher.c.result_id == result.c.id)
                     .join(published, published.c.job_id == publisher.c.id))
        .where(same(result), published.c.corrected_at.is_(None),
               other_file(published, through_result=True))
        .correlate(invoices, results),
        select(followed.c.id, followed.c.created_at)
        .select_from(result.join(publisher, publisher.c.result_id == result.c.id)
                     .join(follower, follower.c.leader_id == publisher.c.id)
                     .join(followed, followed.c.job_id == follower.c.id))
        .where(same(result), followed.c.corrected_at.is_(None),
               other_file(followed, through_result=True))
        .correlate(invoices, results),
        select(corrected.c.id, corrected.c.created_at)
        .where(corrected.c.corrected_at.is_not(None), same(corrected), other_file(corrected))
        .correlate(invoices, results))
