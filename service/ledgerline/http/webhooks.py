"""Webhook endpoints of an account (customer keys): register, list, read, change, delete,
rotate the secret, send a test event, the delivery log and replays; and the events this service
sends (the document's `webhooks`). Each view's request and response models stand above it."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from flask import Response, current_app, jsonify, url_for
from flask_openapi3 import APIBlueprint
from pydantic import Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from ..domain.webhooks import (DEFAULT_GRACE_SECONDS, DELIVERY_STATUSES, EVENT_TYPES,
                               MAX_GRACE_SECONDS, OUTCOMES, PING)
from ..service_layer import webhooks
from .auth import current_caller
from .invoices import json_object, optional_json_object
from .models import (
    LOCATION,
    AccountPath,
    ApiModel,
    Strict,
    WebhookPath,
    component,
    documented_ref,
    header,
    json_body,
    json_response,
    problems,
    schema_component,
    sent_event,
)
from .pagination import PageQuery, cursor_field, decode_cursor, page

bp = APIBlueprint("webhooks", __name__)
EventType = Annotated[Literal[EVENT_TYPES], WithJsonSchema(component("EventType"))]
schema_component("EventType", {"type": "string", "enum": list(EVENT_TYPES)})


def _services():
    return current_app.extensions["ledgerline"]


@bp.before_request
def _authenticate():
    current_caller()  # 401 before any parameter is read, as for every API call


class WebhookRequest(Strict):
    url: Annotated[str, Field(max_length=2048, json_schema_extra={"format": "uri"},
                              description="An HTTPS URL (plain HTTP only inside "
                                          "LEDGERLINE_WEBHOOK_ALLOW_NETWORKS).")]
    events: Annotated[list[EventType], Field(min_length=1)]


class Webhook(ApiModel):
    id: Annotated[str, Field(pattern="^whk_[A-Za-z0-9]+$")]
    url: str
    events: list[EventType]
    created_at: datetime
    status: Literal["enabled", "disabled"]
    disabled_at: datetime | None
    disabled_reason: str | None
    failing_since: Annotated[datetime | None, Field(
        description="The first failure of the current run of failures.")]
    previous_secret_expires_at: Annotated[datetime | None, Field(
        description="Until then the secret a rotation replaced signs beside the current one "
                    "(null: none does).")]


class WebhookCreated(Webhook):
    secret: Annotated[str, Field(
        pattern="^whsec_[A-Za-z0-9+/=]+$",
        description="The signing secret, shown only in this answer (Standard Webhooks form).")]


@bp.post("/v1/accounts/<account>/webhooks", operation_id="registerWebhook",
         summary="Register a webhook endpoint (customer keys); its signing secret is shown once.",
         description="Deliveries follow the Standard Webhooks specification: `webhook-id` (the "
         "event's id, the same on every attempt and replay: deduplicate on it), "
         "`webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of "
         "`id.timestamp.body` with the secret). At least once; the first retry within 5 s of a "
         "failure, the second within 30 s of that, then exponential backoff with jitter; a "
         "delivery is given up 3 days after its first attempt, and an endpoint failing for 5 "
         "days is disabled with a reason. Public HTTPS addresses only: loopback, private, "
         "link-local and metadata addresses — checked after DNS resolution and on every "
         "redirect — and plain HTTP are refused unless the operator's "
         "LEDGERLINE_WEBHOOK_ALLOW_NETWORKS includes them (422 `webhook_url_refused` for an "
         "address literal; a name is checked at each delivery). The address judged is the one "
         "connected to: a 6to4, Teredo or NAT64 address is judged as itself, and refused too "
         "when the IPv4 address it carries is not public. Each attempt, redirects included, "
         "ends within LEDGERLINE_WEBHOOK_TIMEOUT_SECONDS, whatever the receiver does; an "
         "endpoint has one delivery in flight at a time, and claims go to the account and "
         "endpoint that used the least delivery time lately, so a slow receiver delays nobody "
         "else's deliveries by more than one attempt. What each event's body carries is under "
         "`webhooks` (`invoiceEvent`, `ping`).",
         openapi_extensions=json_body(WebhookRequest),
         responses={201: json_response(WebhookCreated, "Registered.", **LOCATION),
                    **problems(400, 401, 403, 404, 413, 415, 422, 429, 503)})
def register(path: AccountPath):
    created = webhooks.register(_services(), current_caller(), path.account, json_object())
    resp = jsonify(created)
    resp.status_code = 201
    resp.headers["Location"] = url_for("webhooks.get_one", account=path.account,
                                       webhook_id=created["id"])
    return resp


class Webhooks(Strict):
    items: list[Webhook]


@bp.get("/v1/accounts/<account>/webhooks", operation_id="listWebhooks",
        summary="The account's webhook endpoints (never their secrets).",
        responses={200: json_response(Webhooks, "Every endpoint, oldest first."),
                   **problems(400, 401, 403, 404, 429)})
def list_all(path: AccountPath):
    return jsonify({"items": webhooks.endpoints(_services(), current_caller(), path.account)})


@bp.get("/v1/accounts/<account>/webhooks/<webhook_id>", operation_id="getWebhook",
        summary="One webhook endpoint, with its state (enabled, or disabled and why).",
        responses={200: json_response(Webhook, "The endpoint."),
                   **problems(400, 401, 403, 404, 429)})
def get_one(path: WebhookPath):
    return jsonify(webhooks.endpoint(_services(), current_caller(), path.account,
                                     path.webhook_id))


class WebhookChange(Strict):
    """Documents the body; the service layer checks it as at registration."""
    model_config = {"json_schema_extra": {"minProperties": 1}}
    url: Annotated[str | SkipJsonSchema[None], Field(
        max_length=2048, json_schema_extra={"format": "uri"},
        description="An HTTPS URL (plain HTTP only inside LEDGERLINE_WEBHOOK_ALLOW_NETWORKS).")
    ] = None
    events: Annotated[list[EventType], Field(min_length=1)] | SkipJsonSchema[None] = None


@bp.patch("/v1/accounts/<account>/webhooks/<webhook_id>", operation_id="changeWebhook",
          summary="Change an endpoint's URL, its events, or both.",
          description="Checked as at registration (400, or 422 `webhook_url_refused`). "
          "Deliveries not yet made go to the new URL; the secret and the delivery log stay.",
          openapi_extensions=json_body(WebhookChange),
          responses={200: json_response(Webhook, "The endpoint as it is now."),
                     **problems(400, 401, 403, 404, 413, 415, 422, 429, 503)})
def change(path: WebhookPath):
    return jsonify(webhooks.change(_services(), current_caller(), path.account,
                                   path.webhook_id, json_object()))


class SecretRotation(Strict):
    """Documents the body; domain/webhooks.grace_seconds checks it."""
    grace_seconds: Annotated[int, Field(
        ge=0, le=MAX_GRACE_SECONDS,
        description="How long the replaced secret keeps signing beside the new one.")
    ] = DEFAULT_GRACE_SECONDS


@bp.post("/v1/accounts/<account>/webhooks/<webhook_id>/secret/rotate",
         operation_id="rotateWebhookSecret",
         summary="A new signing secret, shown once; the old one keeps signing for a grace "
                 "period.",
         description="Until `previous_secret_expires_at` every delivery carries two signatures "
         "in `webhook-signature` (`v1,… v1,…`, as Standard Webhooks allows), one with each "
         "secret, so a receiver verifies with either while it switches. Without a body the "
         "grace period is a day; `grace_seconds` 0 drops the old secret at once. A secret "
         "replaced before (by an earlier rotation) stops signing now.",
         openapi_extensions=json_body(SecretRotation, required=False),
         responses={200: json_response(WebhookCreated, "Rotated; the new secret is in this "
                                                       "answer only."),
                    **problems(400, 401, 403, 404, 413, 415, 429, 503)})
def rotate_secret(path: WebhookPath):
    return jsonify(webhooks.rotate_secret(_services(), current_caller(), path.account,
                                          path.webhook_id, optional_json_object()))


class PingQueued(Strict):
    event_id: Annotated[str, Field(pattern="^ping\\.[0-9a-f]+$")]
    type: Annotated[Literal["ping"], WithJsonSchema({"type": "string", "const": PING})]


@bp.post("/v1/accounts/<account>/webhooks/<webhook_id>/test", operation_id="testWebhook",
         summary="Send the endpoint a signed `ping` event.",
         description="Delivered by the delivery threads like any event, signed like any event, "
         "to an endpoint whatever its events (a disabled one too), with one attempt and no "
         "retry; its outcome is in the delivery log (`Location`) under the `event_id` answered. "
         "A ping never changes the endpoint's state: a replay enables a disabled endpoint, a "
         "ping does not.",
         responses={202: json_response(PingQueued, "Queued.", Location=header(
                        {"type": "string"}, "The endpoint's delivery log.")),
                    **problems(400, 401, 403, 404, 429, 503)})
def send_ping(path: WebhookPath):
    event = webhooks.ping(_services(), current_caller(), path.account, path.webhook_id)
    resp = jsonify({"event_id": event, "type": PING})
    resp.status_code = 202
    resp.headers["Location"] = url_for("webhooks.deliveries", account=path.account,
                                       webhook_id=path.webhook_id)
    return resp


@bp.delete("/v1/accounts/<account>/webhooks/<webhook_id>", operation_id="deleteWebhook",
           summary="Remove the endpoint, its pending deliveries and its delivery log.",
           description="Pending deliveries are cancelled (never sent); an attempt in flight "
                       "ends and is recorded nowhere.",
           responses={204: {"description": "Removed."},
                      **problems(400, 401, 403, 404, 429, 503)})
def delete(path: WebhookPath):
    webhooks.remove(_services(), current_caller(), path.account, path.webhook_id)
    return Response(status=204)


class DeliveriesQuery(PageQuery):
    """Any query parameter other than those below is refused with 400."""
    status: Literal[DELIVERY_STATUSES] | SkipJsonSchema[None] = None
    cursor: cursor_field(300) = None


class Attempt(Strict):
    attempt: Annotated[int, Field(ge=1)]
    at: datetime
    duration_ms: Annotated[int, Field(ge=0)]
    outcome: Annotated[Literal[OUTCOMES] | None, WithJsonSchema({
        "type": ["string", "null"], "enum": [*OUTCOMES, None]}), Field(
        description="How the attempt ended: `delivered` (2xx), `http_error` (another status), "
                    "`timeout` (the attempt's time ran out, wherever it was: `error` says "
                    "where), `connection_refused`, `dns_failure`, `tls_failure` (handshake or "
                    "certificate), `connection_failed` (unreachable), `connection_closed` "
                    "(closed without an answer), `invalid_response` (not HTTP), "
                    "`address_refused` (the address policy), `too_many_redirects`; null for "
                    "attempts logged before outcomes were.")]
    status_code: int | None
    error: str | None
    response_excerpt: str | None


class Delivery(Strict):
    event_id: Annotated[str, Field(description="The webhook-id of every attempt.")]
    type: Annotated[str, WithJsonSchema({"oneOf": [component("EventType"),
                                                   {"type": "string", "const": PING}]})]
    invoice_id: Annotated[str | None, Field(description="null for a ping")]
    occurred_at: datetime
    status: Literal[DELIVERY_STATUSES]
    attempts: Annotated[int, Field(ge=0)]
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    last_status_code: int | None
    last_error: str | None
    log: list[Attempt]


class Deliveries(Strict):
    items: list[Delivery]
    next_cursor: str | None


def _after(occurred: str, event_id: str):
    if not 0 < len(event_id) <= 120:
        raise ValueError(event_id)
    return webhooks.parse_time(occurred, "cursor"), event_id


@bp.get("/v1/accounts/<account>/webhooks/<webhook_id>/deliveries",
        operation_id="webhookDeliveries",
        summary="The delivery log, newest event first, each delivery with its attempts.",
        description="Any query parameter other than those below is refused with 400.",
        responses={200: json_response(Deliveries, "One page of deliveries."),
                   **problems(400, 401, 403, 404, 429)})
def deliveries(path: WebhookPath, query: DeliveriesQuery):
    items = webhooks.deliveries(_services(), current_caller(), path.account, path.webhook_id,
                                status=query.status, after=decode_cursor(query.cursor, _after),
                                limit=query.limit)
    return jsonify(page(items, query.limit, lambda d: (d["occurred_at"], d["event_id"])))


class ReplaySince(Strict):
    since: datetime


class ReplayEvents(Strict):
    event_ids: Annotated[list[Annotated[str, Field(min_length=1, max_length=120)]],
                         Field(min_length=1, max_length=1000)]


class ReplayRequest(ApiModel):
    """Documents the body; the service layer checks it."""
    model_config = {"json_schema_extra": lambda s: s.clear() or s.update({"oneOf": [
        component(documented_ref(m) and m.__name__) for m in (ReplaySince, ReplayEvents)]})}


class Replayed(Strict):
    replayed: Annotated[int, Field(ge=0)]


@bp.post("/v1/accounts/<account>/webhooks/<webhook_id>/replay", operation_id="replayWebhook",
         summary="Send deliveries again, now, with the same webhook-id; the endpoint is enabled "
                 "again.",
         description="Every delivery of this endpoint whose event occurred at or after "
         "`since`, or the events named in `event_ids`, whatever their status (a delivery being "
         "attempted right now is left to its attempt). Receivers that stored the webhook-id see "
         "a duplicate: that is what the id is for.",
         openapi_extensions=json_body(ReplayRequest),
         responses={202: json_response(Replayed, "Queued again."),
                    **problems(400, 401, 403, 404, 413, 415, 429, 503)})
def replay(path: WebhookPath):
    count = webhooks.replay(_services(), current_caller(), path.account, path.webhook_id,
                            json_object())
    resp = jsonify({"replayed": count})
    resp.status_code = 202
    return resp


# --- what this service sends: the document's `webhooks` -------------------------------------

class EventReview(Strict):
    state: Literal["required", "not_required", "resolved"]
    reasons: list[str]


def _decimal(description: str = "A decimal string, as in invoice-v2."):
    return Annotated[str | None, Field(description=description)]


class InvoiceEventData(Strict):
    account: str
    invoice_id: str
    url: Annotated[str, Field(description="The invoice's path in this API.")]
    status: Annotated[Literal["pending", "running", "completed", "failed", "deleted"], Field(
        description="`deleted`: the invoice was gone when the event was first sent.")]
    version: Annotated[int | None, Field(description="The invoice's version (its ETag).")]
    document_type: Annotated[str | None, Field(
        description="The extraction's document type (`invoice` where it names none); null "
                    "without an extraction.")]
    review: Annotated[EventReview | None, Field(description="null until the invoice completed.")]
    currency: str | None
    gross_total: _decimal()
    amount_due: _decimal()
    error_code: _decimal("`invoice.failed` only: why.") = None


class WebhookEvent(Strict):
    type: EventType
    id: Annotated[str, Field(description="The webhook-id.")]
    timestamp: Annotated[datetime, Field(description="When the event occurred.")]
    data: InvoiceEventData


class PingData(Strict):
    account: str
    webhook_id: str


class WebhookPing(Strict):
    type: Annotated[Literal["ping"], WithJsonSchema({"type": "string", "const": PING})]
    id: str
    timestamp: datetime
    data: PingData


sent_event("invoiceEvent", WebhookEvent,
           summary="What happened to an invoice, and enough of it to act on without reading it.",
           description="Sent with `webhook-id`, `webhook-timestamp` and `webhook-signature` "
           "(Standard Webhooks; two signatures while a rotated secret is in its grace period). "
           "`data` describes the invoice as it stood when the event was first sent (its "
           "`version`); every retry and replay sends the same bytes.",
           answer="Any 2xx status is a delivery; anything else is retried.")
sent_event("ping", WebhookPing, summary="The test event of `POST …/webhooks/{webhook_id}/test`.",
           answer="Any 2xx status is a delivery.")
