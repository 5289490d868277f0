"""Webhook endpoints of an account (customer keys): register, list, read, delete, the
delivery log and replays."""
from __future__ import annotations

import base64
import re

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from ..domain.errors import BadRequest, NotFound
from ..domain.webhooks import DELIVERY_STATUSES
from ..service_layer import webhooks
from .auth import current_caller
from .invoices import _account, _json_body, _list_limit

bp = Blueprint("webhooks", __name__)
WEBHOOK_ID = re.compile(r"whk_[A-Za-z0-9]{1,28}")
LOG_PARAMETERS = ("status", "cursor", "limit")
MAX_CURSOR = 300


def _services():
    return current_app.extensions["ledgerline"]


def _webhook_id(webhook_id: str) -> str:
    if not WEBHOOK_ID.fullmatch(webhook_id):
        raise NotFound("no such webhook")
    return webhook_id


@bp.post("/v1/accounts/<account>/webhooks")
def register(account: str):
    services, caller = _services(), current_caller()
    created = webhooks.register(services, caller, _account(account), _json_body())
    resp = jsonify(created)
    resp.status_code = 201
    resp.headers["Location"] = url_for("webhooks.get_one", account=account,
                                       webhook_id=created["id"])
    return resp


@bp.get("/v1/accounts/<account>/webhooks")
def list_all(account: str):
    services, caller = _services(), current_caller()
    return jsonify({"items": webhooks.endpoints(services, caller, _account(account))})


@bp.get("/v1/accounts/<account>/webhooks/<webhook_id>")
def get_one(account: str, webhook_id: str):
    services, caller = _services(), current_caller()
    return jsonify(webhooks.endpoint(services, caller, _account(account),
                                     _webhook_id(webhook_id)))


@bp.delete("/v1/accounts/<account>/webhooks/<webhook_id>")
def delete(account: str, webhook_id: str):
    services, caller = _services(), current_caller()
    webhooks.remove(services, caller, _account(account), _webhook_id(webhook_id))
    return Response(status=204)


@bp.get("/v1/accounts/<account>/webhooks/<webhook_id>/deliveries")
def deliveries(account: str, webhook_id: str):
    """The delivery log, newest event first, each delivery with its attempts."""
    services, caller = _services(), current_caller()
    args = request.args
    unknown = sorted(set(args) - set(LOG_PARAMETERS))
    if unknown:
        raise BadRequest(f"unknown query parameter {unknown[0][:40]!r}; use "
                         + ", ".join(LOG_PARAMETERS))
    status = args.get("status")
    if status is not None and status not in DELIVERY_STATUSES:
        raise BadRequest("status must be one of " + ", ".join(DELIVERY_STATUSES))
    limit = _list_limit(args)
    items = webhooks.deliveries(services, caller, _account(account), _webhook_id(webhook_id),
                                status=status, after=_parse_cursor(args.get("cursor")),
                                limit=limit)
    next_cursor = _cursor(items[-1]) if len(items) == limit else None
    return jsonify({"items": items, "next_cursor": next_cursor})


@bp.post("/v1/accounts/<account>/webhooks/<webhook_id>/replay")
def replay(account: str, webhook_id: str):
    """Send deliveries again (same webhook-id) and enable the endpoint again."""
    services, caller = _services(), current_caller()
    count = webhooks.replay(services, caller, _account(account), _webhook_id(webhook_id),
                            _json_body())
    resp = jsonify({"replayed": count})
    resp.status_code = 202
    return resp


def _cursor(item: dict) -> str:
    raw = f"{item['occurred_at']}|{item['event_id']}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _parse_cursor(value: str | None):
    if not value:
        return None
    try:
        if len(value) > MAX_CURSOR:
            raise ValueError(value)
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        occurred, event_id = raw.split("|")
        if not 0 < len(event_id) <= 120:
            raise ValueError(raw)
        return webhooks.parse_time(occurred, "cursor"), event_id
    except (ValueError, BadRequest):
        raise BadRequest("cursor is not one this service issued") from None
