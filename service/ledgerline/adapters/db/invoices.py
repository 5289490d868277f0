"""Read side: invoices as callers see them. Visibility is applied in every query."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, and_, case, func, or_, select

from ...domain.duplicates import Summary, matched_on
from ...domain.identity import Caller
from .tables import api_keys, blobs, invoices, jobs, results

_leader = jobs.alias("leader")
_joined = jobs.c.leader_id.is_not(None)
_status = case((_joined, _leader.c.status), else_=jobs.c.status)
_result_id = case((_joined, _leader.c.result_id), else_=jobs.c.result_id)
_error_code = case((_joined, _leader.c.error_code), else_=jobs.c.error_code)
_error_message = case((_joined, _leader.c.error_message), else_=jobs.c.error_message)

SUMMARY_FIELDS = ("invoice_number", "issue_date", "seller_name", "gross_total", "currency")


@dataclass(frozen=True)
class ListFilter:
    status: str | None = None
    issued_from: str | None = None   # ISO dates, inclusive
    issued_to: str | None = None
    seller: str | None = None        # case-insensitive substring of the seller name
    after: tuple[datetime, str] | None = None  # cursor: (created_at, id) of the last row seen
    limit: int = 50


def _visible(caller: Caller, account: str):
    cond = invoices.c.account == account
    if caller.sees_only_own_uploads():
        cond = and_(cond, invoices.c.uploaded_by == caller.key_id)
    return cond


def _query(*extra_columns):
    return (
        select(invoices.c.id, invoices.c.account, invoices.c.content_hash,
               invoices.c.created_at, invoices.c.uploaded_by, api_keys.c.role.label("uploader_role"),
               api_keys.c.name.label("uploader_name"), _status.label("status"),
               _error_code.label("error_code"), _error_message.label("error_message"),
               *(results.c[name] for name in SUMMARY_FIELDS), *extra_columns)
        .select_from(
            invoices.join(jobs, jobs.c.id == invoices.c.job_id)
            .outerjoin(_leader, _leader.c.id == jobs.c.leader_id)
            .outerjoin(results, results.c.id == _result_id)
            .join(api_keys, api_keys.c.id == invoices.c.uploaded_by))
    )


def get_invoice(conn: Connection, caller: Caller, account: str, invoice_id: str) -> dict | None:
    if not caller.can_enter(account):
        return None
    row = conn.execute(_query(results.c.document)
                       .where(_visible(caller, account), invoices.c.id == invoice_id)).first()
    if row is None:
        return None
    view = _view(row, with_document=True)
    view["possible_duplicates"] = _business_duplicates(conn, caller, account, row)
    return view


def _business_duplicates(conn: Connection, caller: Caller, account: str, row) -> list[dict]:
    """Other files in the account, among those the caller may see, that bill the same thing."""
    if not row.seller_name:
        return []
    mine = _summary(row)
    candidates = conn.execute(
        _query().where(_visible(caller, account), invoices.c.content_hash != row.content_hash,
                       func.lower(results.c.seller_name) == row.seller_name.lower())
        .order_by(invoices.c.created_at).limit(50)).all()
    found = []
    for other in candidates:
        rules = matched_on(mine, _summary(other))
        if rules:
            found.append({"id": other.id, "matched_on": rules})
    return found


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


def list_invoices(conn: Connection, caller: Caller, account: str, flt: ListFilter) -> list[dict]:
    if not caller.can_enter(account):
        return []
    conds = [_visible(caller, account)]
    if flt.status:
        conds.append(_status == flt.status)
    if flt.issued_from:
        conds.append(results.c.issue_date >= flt.issued_from)
    if flt.issued_to:
        conds.append(results.c.issue_date <= flt.issued_to)
    if flt.seller:
        conds.append(func.lower(results.c.seller_name).contains(flt.seller.lower(), autoescape=True))
    if flt.after:
        ts, last_id = flt.after
        conds.append(or_(invoices.c.created_at < ts,
                         and_(invoices.c.created_at == ts, invoices.c.id < last_id)))
    rows = conn.execute(_query().where(*conds)
                        .order_by(invoices.c.created_at.desc(), invoices.c.id.desc())
                        .limit(flt.limit)).all()
    return [_view(r, with_document=False) for r in rows]


def file_location(conn: Connection, caller: Caller, account: str, invoice_id: str) -> str | None:
    if not caller.can_enter(account):
        return None
    return conn.execute(
        select(blobs.c.storage_key)
        .select_from(invoices.join(blobs, and_(blobs.c.account == invoices.c.account,
                                               blobs.c.content_hash == invoices.c.content_hash)))
        .where(_visible(caller, account), invoices.c.id == invoice_id)
    ).scalar()


def _view(row, *, with_document: bool) -> dict:
    view = {
        "id": row.id,
        "account": row.account,
        "status": row.status,
        "content_hash": row.content_hash,
        "uploaded_by": {"key_id": row.uploaded_by, "role": row.uploader_role,
                        "name": row.uploader_name},
        "created_at": row.created_at.isoformat().replace("+00:00", "Z"),
        "error": ({"code": row.error_code, "message": row.error_message}
                  if row.status == "failed" else None),
    }
    if with_document:
        view["extraction"] = json.loads(row.document) if row.document else None
    else:
        view["summary"] = {name: getattr(row, name) for name in SUMMARY_FIELDS}
    return view
