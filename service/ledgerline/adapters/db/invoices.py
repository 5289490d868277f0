"""Read side: invoices as callers see them. Visibility is applied in every query.

An invoice shows the model's result with its own corrections on top (domain.corrections);
once corrected, its summary columns (filters, CSV, duplicate lookup) are its own.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, and_, case, func, or_, select, union

from ...domain.corrections import SUMMARY_FIELDS, corrected_document
from ...domain.duplicates import CONTENT_HASH, SAME_FILE_SHOWN, Summary, matched_on, search_key
from ...domain.identity import Caller
from .tables import api_keys, blobs, invoices, jobs, results

_leader = jobs.alias("leader")
_joined = jobs.c.leader_id.is_not(None)
_status = case((_joined, _leader.c.status), else_=jobs.c.status)
_result_id = case((_joined, _leader.c.result_id), else_=jobs.c.result_id)
_error_code = case((_joined, _leader.c.error_code), else_=jobs.c.error_code)
_error_message = case((_joined, _leader.c.error_message), else_=jobs.c.error_message)
_corrected = invoices.c.corrected_at.is_not(None)

REVIEW_STATES = ("required", "resolved")


def _own(name: str):
    """The invoice's value of a summary column: its own once corrected, else the model's."""
    return case((_corrected, invoices.c[name]), else_=results.c[name])


@dataclass(frozen=True)
class ListFilter:
    status: str | None = None
    issued_from: str | None = None   # ISO dates, inclusive
    issued_to: str | None = None
    seller: str | None = None        # a part of the seller name, case and spacing aside
    review: str | None = None        # required | resolved
    after: tuple[datetime, str] | None = None  # cursor: (created_at, id) of the last row seen
    limit: int = 50


def _visible(caller: Caller, account: str):
    return visible_to(account, caller.key_id if caller.sees_only_own_uploads() else None)


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


def _query(*extra_columns):
    return (
        select(invoices.c.id, invoices.c.account, invoices.c.content_hash,
               invoices.c.created_at, invoices.c.uploaded_by,
               api_keys.c.role.label("uploader_role"),
               api_keys.c.name.label("uploader_name"), _status.label("status"),
               _error_code.label("error_code"), _error_message.label("error_message"),
               invoices.c.version, invoices.c.review_resolved_at,
               invoices.c.review_resolved_by, results.c.review_required,
               *(_own(name).label(name) for name in SUMMARY_FIELDS),
               _own("seller_key").label("seller_key"), *extra_columns)
        .select_from(_INVOICE_RESULT.join(api_keys, api_keys.c.id == invoices.c.uploaded_by))
    )


def get_invoice(conn: Connection, caller: Caller, account: str, invoice_id: str) -> dict | None:
    if not caller.can_enter(account):
        return None
    row = conn.execute(_query(results.c.document, invoices.c.corrections)
                       .where(_visible(caller, account), invoices.c.id == invoice_id)).first()
    if row is None:
        return None
    view = _view(row, with_document=True)
    view["possible_duplicates"] = _possible_duplicates(conn, caller, account, row)
    return view


def invoice_for_update(conn: Connection, caller: Caller, account: str, invoice_id: str):
    """The invoice with its document and overlay, locked against concurrent corrections
    (SQLite: the write transaction already holds the database's single write lock)."""
    if not caller.can_enter(account):
        return None
    return conn.execute(_query(results.c.document, invoices.c.corrections)
                        .where(_visible(caller, account), invoices.c.id == invoice_id)
                        .with_for_update(of=invoices)).first()


def shown_document(row) -> dict | None:
    """The extraction as the invoice shows it: the model's with the invoice's corrections."""
    if not row.document:
        return None
    overlay = json.loads(row.corrections) if row.corrections else None
    return corrected_document(json.loads(row.document), overlay)


def _possible_duplicates(conn: Connection, caller: Caller, account: str, row) -> list[dict]:
    """Other invoices of the account, among those the caller may see: the same file, then
    other files that bill the same thing (domain.duplicates)."""
    visible = _visible(caller, account)
    same_file = conn.execute(same_file_query(visible, row.content_hash, row.id)).scalars()
    if not row.seller_key:
        return possible_duplicates(same_file, _summary(row), ())
    candidates = conn.execute(same_seller_query(visible, account, row.content_hash, row.seller_key)
                              .order_by(invoices.c.created_at, invoices.c.id)).all()
    return possible_duplicates(same_file, _summary(row),
                               ((other.id, _summary(other)) for other in candidates))


def possible_duplicates(same_file: Iterable[str], mine: Summary,
                        same_seller: Iterable[tuple[str, Summary]]) -> list[dict]:
    """The `possible_duplicates` of an invoice, from the ids of the caller's other invoices of
    the same file and (id, summary) of those of other files with the same seller key, each
    oldest first."""
    found = [{"id": other, "matched_on": CONTENT_HASH} for other in same_file]
    for other, summary in same_seller:
        rules = matched_on(mine, summary)
        if rules:
            found.append({"id": other, "matched_on": rules})
    return found


def same_file_query(visible, content_hash, invoice_id):
    """The oldest SAME_FILE_SHOWN other `visible` invoices of the same file (ids): in order from
    ix_invoices_account_content_hash_created_at_id, however often the file came."""
    return (select(invoices.c.id)
            .where(visible, invoices.c.content_hash == content_hash,
                   invoices.c.id != invoice_id)
            .order_by(invoices.c.created_at, invoices.c.id).limit(SAME_FILE_SHOWN))


# What domain.duplicates.matched_on compares, as each invoice shows it.
DUPLICATE_FIELDS = ("seller_name", "invoice_number", "gross_total", "issue_date")


def same_seller_query(visible, account, content_hash, seller_key):
    """Every `visible` invoice of another file whose seller key is `seller_key` (values, or SQL
    expressions): through the results of that seller (ix_results_account_seller_key, then the
    jobs that published or follow them) and through invoices corrected to that seller
    (ix_invoices_account_seller_key). Its id and DUPLICATE_FIELDS; the caller orders them."""
    published = select(jobs.c.id).where(jobs.c.result_id.in_(
        select(results.c.id).where(results.c.account == account,
                                   results.c.seller_key == seller_key)))
    their_jobs = union(published, select(jobs.c.id).where(jobs.c.leader_id.in_(published)))
    return (select(invoices.c.id, *(_own(name).label(name) for name in DUPLICATE_FIELDS))
            .select_from(_INVOICE_RESULT)
            .where(visible, invoices.c.content_hash != content_hash,
                   or_(invoices.c.job_id.in_(their_jobs),
                       and_(_corrected, invoices.c.account == account,
                            invoices.c.seller_key == seller_key))))


def _summary(row) -> Summary:
    return Summary(seller_name=row.seller_name, invoice_number=row.invoice_number,
                   gross_total=row.gross_total, issue_date=row.issue_date)


@dataclass(frozen=True)
class Progress:
    status: str
    work_job_id: str  # the job doing the invoice's work: its leader, when it follows one


def invoice_progress(conn: Connection, caller: Caller, account: str,
                     invoice_id: str) -> Progress | None:
    """The status (the leader's, for a joined upload) and the job whose end a waiting request
    listens for."""
    if not caller.can_enter(account):
        return None
    row = conn.execute(
        select(_status.label("status"),
               func.coalesce(jobs.c.leader_id, jobs.c.id).label("work_job_id"))
        .select_from(invoices.join(jobs, jobs.c.id == invoices.c.job_id)
                     .outerjoin(_leader, _leader.c.id == jobs.c.leader_id))
        .where(_visible(caller, account), invoices.c.id == invoice_id)
    ).first()
    return Progress(row.status, row.work_job_id) if row else None


def list_invoices(conn: Connection, caller: Caller, account: str, flt: ListFilter, *,
                  with_document: bool = False) -> list[dict]:
    """A page of invoices, newest first; `with_document` adds each one's extraction (CSV)."""
    if not caller.can_enter(account):
        return []
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
        conds += [_status == "completed", results.c.review_required.is_(True),
                  invoices.c.review_resolved_at.is_(None)]
    elif flt.review == "resolved":
        conds.append(invoices.c.review_resolved_at.is_not(None))
    if flt.after:
        ts, last_id = flt.after
        conds.append(or_(invoices.c.created_at < ts,
                         and_(invoices.c.created_at == ts, invoices.c.id < last_id)))
    extra = (results.c.document, invoices.c.corrections) if with_document else ()
    rows = conn.execute(_query(*extra).where(*conds)
                        .order_by(invoices.c.created_at.desc(), invoices.c.id.desc())
                        .limit(flt.limit)).all()
    return [_view(r, with_document=with_document) for r in rows]


def file_location(conn: Connection, caller: Caller, account: str, invoice_id: str) -> str | None:
    if not caller.can_enter(account):
        return None
    return conn.execute(
        select(blobs.c.storage_key)
        .select_from(invoices.join(blobs, and_(blobs.c.account == invoices.c.account,
                                               blobs.c.content_hash == invoices.c.content_hash)))
        .where(_visible(caller, account), invoices.c.id == invoice_id)
    ).scalar()


def review_state(row) -> dict | None:
    """None until the invoice completed; then whether its extraction asks for review."""
    if row.status != "completed":
        return None
    if row.review_resolved_at is not None:
        state = "resolved"
    else:
        state = "required" if row.review_required else "not_required"
    return {"state": state,
            "resolved_at": (row.review_resolved_at.isoformat().replace("+00:00", "Z")
                            if row.review_resolved_at else None),
            "resolved_by": row.review_resolved_by}


def _view(row, *, with_document: bool) -> dict:
    view = invoice_view(row)
    if with_document:
        view["extraction"] = shown_document(row)
    else:
        view["summary"] = {name: getattr(row, name) for name in SUMMARY_FIELDS}
    return view


def invoice_view(row) -> dict:
    """What every view of an invoice shows, before its extraction or summary."""
    return {
        "id": row.id,
        "account": row.account,
        "status": row.status,
        "content_hash": row.content_hash,
        "uploaded_by": {"key_id": row.uploaded_by, "role": row.uploader_role,
                        "name": row.uploader_name},
        "created_at": row.created_at.isoformat().replace("+00:00", "Z"),
        "error": ({"code": row.error_code, "message": row.error_message}
                  if row.status == "failed" else None),
        "version": row.version,
        "review": review_state(row),
    }


def review_queue(conn: Connection) -> list[tuple[str, int]]:
    """(account, invoices waiting for review) of every account that has any."""
    waiting = (select(invoices.c.account, func.count().label("waiting"))
               .select_from(invoices.join(jobs, jobs.c.id == invoices.c.job_id)
                            .outerjoin(_leader, _leader.c.id == jobs.c.leader_id)
                            .join(results, results.c.id == _result_id))
               .where(_status == "completed", results.c.review_required.is_(True),
                      invoices.c.review_resolved_at.is_(None))
               .group_by(invoices.c.account).order_by(invoices.c.account))
    return [(r.account, r.waiting) for r in conn.execute(waiting)]
