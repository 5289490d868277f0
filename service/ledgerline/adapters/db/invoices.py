"""Read side: invoices as callers see them. Visibility is applied in every query.

An invoice shows the model's result with its own corrections on top (domain.corrections);
once corrected, its summary columns (filters, CSV, duplicate lookup) are its own.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import replace
from types import SimpleNamespace

from sqlalchemy import (Connection, and_, bindparam, case, func, literal, null, or_, select,
                        tuple_, union, union_all)

from ...domain.corrections import SUMMARY_FIELDS
from ...domain.duplicates import SAME_FILE_SHOWN, Summary, number_key, search_key
from ...domain.identity import Caller
from ...ports.invoices import EditableInvoice, InvoiceProgress, ListFilter
from ..invoice_views import (DUPLICATE_FIELDS, listed, possible_duplicates, review_state,
                             shown_document)
from . import prebuilt
from .driver import Prebuilt
from .duplicates import duplicate_of
from .tables import api_keys, blobs, invoices, jobs, results

_leader = jobs.alias("leader")
_joined = jobs.c.leader_id.is_not(None)
_status = case((_joined, _leader.c.status), else_=jobs.c.status)
_result_id = case((_joined, _leader.c.result_id), else_=jobs.c.result_id)
_error_code = case((_joined, _leader.c.error_code), else_=jobs.c.error_code)
_error_message = case((_joined, _leader.c.error_message), else_=jobs.c.error_message)
_corrected = invoices.c.corrected_at.is_not(None)

# Expressions are immutable and every listing and export builds its statement anew: the
# parts that never change are made once (the duplicate flag's alone cost milliseconds).
@functools.cache
def _own(name: str):
    """The invoice's value of a summary column: its own once corrected, else the model's."""
    return case((_corrected, invoices.c[name]), else_=results.c[name])


# Whether the invoice's checks ask for review: the model's, or its own once corrected.
_review_required = case((_corrected, invoices.c.review_required),
                        else_=results.c.review_required)


def _visible(caller: Caller, account: str):
    return visible_to(account, caller.principal if caller.sees_only_own_uploads() else None)


def visible_to(account, uploaded_by=None):
    """The invoices of `account` a caller may see: all, or (a supplier) those `uploaded_by`
    its key. Values, or bound parameters of a statement built once (adapters/db/cache_hits)."""
    cond = invoices.c.account == account
    if uploaded_by is not None:
        cond = and_(cond, invoices.c.uploaded_by == uploaded_by)
    return cond


# An invoice, its job, the job it follows (if any) and the result it shows.
_INVOICE_RESULT = (invoices.join(jobs, jobs.c.id == invoices.c.job_id)
                   .outerjoin(_leader, _leader.c.id == jobs.c.leader_id)
                   .outerjoin(results, results.c.id == _result_id))


def _uploader(caller: Caller | None) -> str | None:
    """Whose uploads `caller` may see: a supplier's key its own; None, the whole account's."""
    return caller.principal if caller is not None and caller.sees_only_own_uploads() else None


def _duplicate_of(uploaded_by=None):
    """Among the invoices `uploaded_by` (a value or a bound parameter; None: anyone) uploaded."""
    if uploaded_by is not None:
        return duplicate_of(_own, uploaded_by)
    return _duplicate_in_account()


@functools.cache
def _duplicate_in_account():
    return duplicate_of(_own, None)


def _query(uploaded_by, *extra_columns):
    """Invoices with what a caller sees of them; `uploaded_by` as in `_duplicate_of`."""
    return (
        select(invoices.c.id, invoices.c.account, invoices.c.content_hash,
               invoices.c.created_at, invoices.c.uploaded_by,
               api_keys.c.role.label("uploader_role"),
               api_keys.c.name.label("uploader_name"), _status.label("status"),
               _error_code.label("error_code"), _error_message.label("error_message"),
               invoices.c.version, invoices.c.review_resolved_at,
               invoices.c.review_resolved_by, _review_required.label("review_required"),
               *(_own(name).label(name) for name in SUMMARY_FIELDS),
               _own("seller_key").label("seller_key"),
               _duplicate_of(uploaded_by).label("duplicate_of"), *extra_columns)
        .select_from(_INVOICE_RESULT.join(api_keys, api_keys.c.id == invoices.c.uploaded_by))
    )


# Parameters of the statements built once per process (here and in cache_hits.py): an upload
# that waits reads its invoice and its possible duplicates, and statements of this size made
# anew for each read cost the API more to build and key for SQLAlchemy's cache than to run.
ACCOUNT = prebuilt.param("account", invoices.c.account.type)
CONTENT_HASH = prebuilt.param("content_hash", invoices.c.content_hash.type)
INVOICE_ID = prebuilt.param("invoice_id", invoices.c.id.type)
CALLER_ID = prebuilt.param("caller_id", invoices.c.uploaded_by.type)
SAME_SELLER_KEYS = ("seller_key", "number_key", "issue_date")
OLDEST_FIRST = (invoices.c.created_at, invoices.c.id)


def _visible_by_parameters(own_only: bool):
    return visible_to(ACCOUNT, CALLER_ID if own_only else None)


def get_invoice(conn: Connection, caller: Caller, account: str, invoice_id: str) -> dict | None:
    if not caller.can_enter(account):
        return None
    params = prebuilt.values(account=account, invoice_id=invoice_id, caller_id=caller.principal)
    row = _one_invoice(caller.sees_only_own_uploads()).first(conn, params)
    if row is None:
        return None
    view = listed(row, with_document=True)
    view["possible_duplicates"] = _possible_duplicates(conn, caller, account, row)
    return view


@functools.cache
def _one_invoice(own_only: bool):
    uploaded_by = CALLER_ID if own_only else None
    return Prebuilt(_query(uploaded_by, results.c.document, invoices.c.corrections)
                    .where(visible_to(ACCOUNT, uploaded_by), invoices.c.id == INVOICE_ID))


def invoice_for_update(conn: Connection, caller: Caller, account: str, invoice_id: str):
    """The invoice with its document and overlay, locked against concurrent corrections
    (SQLite: the write transaction already holds the database's single write lock)."""
    if not caller.can_enter(account):
        return None
    return conn.execute(_query(_uploader(caller), results.c.document, invoices.c.corrections,
                               invoices.c.corrected_at)
                        .where(_visible(caller, account), invoices.c.id == invoice_id)
                        .with_for_update(of=invoices)).first()


def _possible_duplicates(conn: Connection, caller: Caller, account: str, row) -> list[dict]:
    """Other invoices of the account, among those the caller may see: the same file, then
    other files that bill the same thing (domain.duplicates)."""
    found = _same_file_and_seller(caller.sees_only_own_uploads()).all(conn, prebuilt.values(
        account=account, caller_id=caller.principal, content_hash=row.content_hash,
        invoice_id=row.id, seller_key=row.seller_key,
        number_key=number_key(row.invoice_number), issue_date=row.issue_date))
    return possible_duplicates((other.id for other in found if other.part == _SAME_FILE),
                               _summary(row), ((other.id, _summary(other)) for other in found
                                               if other.part == _SAME_SELLER))


_SAME_FILE, _SAME_SELLER = 1, 2


@functools.cache
def _same_file_and_seller(own_only: bool):
    """same_file_step and same_seller_step as one statement, one round trip: each row's `part`
    says which it came from, each part oldest first. An invoice without a seller key has no
    seller's candidates (no key equals NULL)."""
    files = same_file_step(own_only).add_columns(invoices.c.created_at).subquery()
    sellers = (same_seller_step(own_only).add_columns(invoices.c.created_at).order_by(None)
               .subquery())
    both = union_all(
        select(literal(_SAME_FILE).label("part"), files.c.id,
               *(null().label(name) for name in DUPLICATE_FIELDS), files.c.created_at),
        select(literal(_SAME_SELLER).label("part"), sellers.c.id,
               *(sellers.c[name] for name in DUPLICATE_FIELDS), sellers.c.created_at),
    ).subquery()
    return Prebuilt(select(both).order_by(both.c.part, both.c.created_at, both.c.id))


def earlier_duplicate(conn: Connection, caller: Caller, account: str, row: EditableInvoice,
                      summary: dict) -> dict | None:
    """The oldest of the possible duplicates of invoice `row` with the values `summary` (a
    correction's) that came before it, as {id, matched_on}; None when none did."""
    mine = SimpleNamespace(id=row.id, content_hash=row.content_hash,
                           seller_key=summary.get("seller_key"),
                           **{name: summary.get(name) for name in DUPLICATE_FIELDS})
    found = _possible_duplicates(conn, caller, account, mine)
    if not found:
        return None
    earlier = {r.id: (r.created_at, r.id) for r in conn.execute(
        select(invoices.c.id, invoices.c.created_at).where(
            invoices.c.id.in_([d["id"] for d in found]),
            or_(invoices.c.created_at < row.created_at,
                and_(invoices.c.created_at == row.created_at, invoices.c.id < row.id))))}
    before = [d for d in found if d["id"] in earlier]
    return min(before, key=lambda d: earlier[d["id"]]) if before else None


def same_file_query(visible, content_hash, invoice_id):
    """The oldest SAME_FILE_SHOWN other `visible` invoices of the same file (ids): in order from
    ix_invoices_account_content_hash_created_at_id, however often the file came."""
    return (select(invoices.c.id)
            .where(visible, invoices.c.content_hash == content_hash,
                   invoices.c.id != invoice_id)
            .order_by(invoices.c.created_at, invoices.c.id).limit(SAME_FILE_SHOWN))


@functools.cache
def same_file_step(own_only: bool):
    """same_file_query with its values bound by name (the parameters above)."""
    return same_file_query(_visible_by_parameters(own_only), CONTENT_HASH, INVOICE_ID)


def same_seller(own_only: bool, seller_key, number_key, issue_date):
    """same_seller_query, oldest first, among the invoices visible by the parameters above, for
    these keys (values, parameters or SQL expressions)."""
    return (same_seller_query(_visible_by_parameters(own_only), ACCOUNT, CONTENT_HASH,
                              seller_key, number_key, issue_date)
            .order_by(*OLDEST_FIRST))


@functools.cache
def same_seller_step(own_only: bool):
    """same_seller with its keys bound by name (SAME_SELLER_KEYS)."""
    return same_seller(own_only, *(prebuilt.param(name, results.c[name].type)
                                   for name in SAME_SELLER_KEYS))


def same_seller_query(visible, account, content_hash, seller_key, number_key, issue_date):
    """The `visible` invoices of other files that may bill the same thing as an invoice of
    seller key `seller_key`, number key `number_key` and issue date `issue_date` (values, or
    SQL expressions): the seller's with the same number or the same date, of which
    domain.duplicates.matched_on keeps the duplicates. Found through the seller's results
    (ix_results_account_seller_key_number_key / _issue_date, then the jobs that published or
    follow them) and through invoices corrected to that seller (the same indexes of invoices),
    so that the cost is that of the candidates, not of the seller's or the account's history.
    Its id and DUPLICATE_FIELDS; the caller orders them."""
    def alike(table):
        return and_(table.c.account == account, table.c.seller_key == seller_key,
                    or_(table.c.number_key == number_key, table.c.issue_date == issue_date))

    published = select(jobs.c.id).where(jobs.c.result_id.in_(
        select(results.c.id).where(alike(results))))
    their_jobs = union(published, select(jobs.c.id).where(jobs.c.leader_id.in_(published)))
    # The two ways in as one set of ids, each found through its own index: as an OR of the
    # two conditions, PostgreSQL read every invoice of the account and tested each
    # (bench/history.py).
    theirs = union(select(invoices.c.id).where(invoices.c.job_id.in_(their_jobs)),
                   select(invoices.c.id).where(_corrected, alike(invoices)))
    return (select(invoices.c.id, *(_own(name).label(name) for name in DUPLICATE_FIELDS))
            .select_from(_INVOICE_RESULT)
            .where(visible, invoices.c.content_hash != content_hash,
                   invoices.c.id.in_(theirs)))


def _summary(row) -> Summary:
    return Summary(seller_name=row.seller_name, invoice_number=row.invoice_number,
                   gross_total=row.gross_total, issue_date=row.issue_date)


def invoice_progress(conn: Connection, caller: Caller, account: str,
                     invoice_id: str) -> InvoiceProgress | None:
    """The status (the leader's, for a joined upload) and the job whose end a waiting request
    listens for."""
    if not caller.can_enter(account):
        return None
    own_only = caller.sees_only_own_uploads()
    row = _progress_statement(own_only).first(conn, prebuilt.values(
        account=account, invoice_id=invoice_id,
        **({"uploaded_by": caller.principal} if own_only else {})))
    return InvoiceProgress(row.status, row.work_job_id) if row else None


@functools.cache
def _progress_statement(own_only: bool):
    """Built once: every upload that waits reads its progress at least twice, and a statement
    made anew each time costs more to key for SQLAlchemy's cache than to run."""
    uploaded_by = prebuilt.param("uploaded_by", invoices.c.uploaded_by.type)
    return Prebuilt(
        select(_status.label("status"),
               func.coalesce(jobs.c.leader_id, jobs.c.id).label("work_job_id"))
        .select_from(invoices.join(jobs, jobs.c.id == invoices.c.job_id)
                     .outerjoin(_leader, _leader.c.id == jobs.c.leader_id))
        .where(visible_to(prebuilt.param("account", invoices.c.account.type),
                          uploaded_by if own_only else None),
               invoices.c.id == prebuilt.param("invoice_id", invoices.c.id.type)))


def list_invoices(conn: Connection, caller: Caller, account: str, flt: ListFilter, *,
                  with_document: bool = False) -> list[dict]:
    """A page of invoices, newest first; `with_document` adds each one's extraction."""
    if not caller.can_enter(account):
        return []
    window = max(flt.limit, DUPLICATE_WINDOW) if flt.duplicates else flt.limit
    found = itertools.islice(_matching(conn, caller, account, flt, with_document, window),
                             flt.limit)
    return [listed(r, with_document=with_document) for r in found]


EXPORT_BATCH = 200  # rows read at a time: an export's memory does not grow with its size
DUPLICATE_WINDOW = 200  # rows judged at a time for ?duplicates=


def export_invoices(conn: Connection, caller: Caller, account: str,
                    flt: ListFilter) -> Iterator[dict]:
    """Every invoice the filter matches, newest first, each with its extraction, read
    EXPORT_BATCH at a time inside the caller's transaction (a snapshot: engine's
    postgresql_snapshot says why it turns JIT off)."""
    if not caller.can_enter(account):
        return
    for row in _matching(conn, caller, account, flt, True, EXPORT_BATCH):
        yield listed(row, with_document=True)


def _matching(conn: Connection, caller: Caller, account: str, flt: ListFilter,
              with_document: bool, window: int) -> Iterator:
    """The rows the filter matches, newest first, read `window` at a time by keyset (like the
    list's cursor): each statement a short range of the index, never a sort of every row with
    its lookups (as one statement for a whole export was planned). `duplicates` is judged
    here on each row's duplicate_of, which the statement computes anyway: as a condition it
    would make one statement compute it for every row until a page is full."""
    # Built once: a statement of this size is many objects, and one per window would make an
    # export's memory grow with its length until the garbage collector ran.
    marker = (bindparam("after_created_at", type_=invoices.c.created_at.type),
              bindparam("after_id", type_=invoices.c.id.type))
    unfiltered = replace(flt, duplicates=None)
    following = _listed(caller, account, replace(unfiltered, after=marker),
                        with_document).limit(window)
    statement = following if flt.after else _listed(caller, account, unfiltered,
                                                    with_document).limit(window)
    params = {"after_created_at": flt.after[0], "after_id": flt.after[1]} if flt.after else {}
    wanted = {None: lambda row: True, "only": lambda row: row.duplicate_of is not None,
              "exclude": lambda row: row.duplicate_of is None}[flt.duplicates]
    while True:
        rows = conn.execute(statement, params).all()
        yield from (row for row in rows if wanted(row))
        if len(rows) < window:
            return
        statement = following
        params = {"after_created_at": rows[-1].created_at, "after_id": rows[-1].id}
        del rows


def _listed(caller: Caller, account: str, flt: ListFilter, with_document: bool):
    conds = [_visible(caller, account)]
    if flt.status:
        conds.append(_status == flt.status)
    if flt.issued_from:
        conds.append(_own("issue_date") >= flt.issued_from)
    if flt.issued_to:
        conds.append(_own("issue_date") <= flt.issued_to)
    if flt.seller:
        conds.append(_own("seller_key").contains(search_key(flt.seller), autoescape=True))
    if flt.review == "required":
        conds += [_status == "completed", _review_required.is_(True),
                  invoices.c.review_resolved_at.is_(None)]
    elif flt.review == "resolved":
        conds.append(invoices.c.review_resolved_at.is_not(None))
    if flt.after:
        # A row value, which both planners read as one range of the index (an OR of the two
        # cases made PostgreSQL sort every remaining row, lookups and all, for each page).
        conds.append(tuple_(invoices.c.created_at, invoices.c.id) < tuple_(*flt.after))
    extra = (results.c.document, invoices.c.corrections) if with_document else ()
    return (_query(_uploader(caller), *extra).where(*conds)
            .order_by(invoices.c.created_at.desc(), invoices.c.id.desc()))


def file_location(conn: Connection, caller: Caller, account: str, invoice_id: str) -> str | None:
    if not caller.can_enter(account):
        return None
    return conn.execute(
        select(blobs.c.storage_key)
        .select_from(invoices.join(blobs, and_(blobs.c.account == invoices.c.account,
                                               blobs.c.content_hash == invoices.c.content_hash)))
        .where(_visible(caller, account), invoices.c.id == invoice_id)
    ).scalar()


def review_queue(conn: Connection) -> list[tuple[str, int, int]]:
    """(account, invoices waiting for review, uploads of a file the account already had) of
    every account that has either: the operator's view of what waits and of what may be paid
    twice (the same bytes; other files billing the same thing are judged per invoice)."""
    waiting = (select(invoices.c.account, func.count().label("waiting"))
               .select_from(invoices.join(jobs, jobs.c.id == invoices.c.job_id)
                            .outerjoin(_leader, _leader.c.id == jobs.c.leader_id)
                            .join(results, results.c.id == _result_id))
               .where(_status == "completed", _review_required.is_(True),
                      invoices.c.review_resolved_at.is_(None))
               .group_by(invoices.c.account).order_by(invoices.c.account))
    counts = {r.account: [r.waiting, 0] for r in conn.execute(waiting)}
    copies = (select(invoices.c.account,
                     (func.count() - func.count(invoices.c.content_hash.distinct())).label("n"))
              .group_by(invoices.c.account))
    for r in conn.execute(copies):
        if r.n:
            counts.setdefault(r.account, [0, 0])[1] = r.n
    return [(account, *counts[account]) for account in sorted(counts)]


def event_state(conn: Connection, account: str, invoice_id: str) -> dict | None:
    """The invoice as a webhook event describes it (domain.webhooks.event_data): its status,
    version, review and the extraction it shows; None once it is gone."""
    row = conn.execute(_query(None, results.c.document, invoices.c.corrections)
                       .where(visible_to(account), invoices.c.id == invoice_id)).first()
    if row is None:
        return None
    return {"status": row.status, "version": row.version, "review": review_state(row),
            "document": shown_document(row)}
