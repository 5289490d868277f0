"""Webhooks: the events, the retry schedule, who may be called, and the payload.

Deliveries follow the Standard Webhooks specification (webhook-id, webhook-timestamp,
webhook-signature over "id.timestamp.body" with HMAC-SHA256 and a per-endpoint `whsec_`
secret). Delivery is at least once: a receiver deduplicates on webhook-id, which is the same
for every attempt and every replay of an event.
"""
from __future__ import annotations

import base64
import ipaddress
import json
import random
import secrets
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from .document_types import document_type_of
from .errors import InvalidText
from .text import unstorable

EVENT_TYPES = ("invoice.completed", "invoice.failed", "invoice.corrected", "invoice.deleted")
PING = "ping"  # the test event (POST …/webhooks/{id}/test): one attempt, sent whatever the events
PENDING, DELIVERING, DELIVERED, FAILED = "pending", "delivering", "delivered", "failed"
DELIVERY_STATUSES = (PENDING, DELIVERING, DELIVERED, FAILED)
CANCELLED = "cancelled"  # the endpoint was deleted while its delivery was in flight

# How an attempt ended (the delivery log's `outcome`, the metrics' label): delivered, or why not.
HTTP_ERROR = "http_error"                  # the receiver answered, not 2xx
TIMEOUT = "timeout"                        # the attempt's time ran out, wherever it was
CONNECTION_REFUSED = "connection_refused"  # nothing listens there
DNS_FAILURE = "dns_failure"                # the name did not resolve
TLS_FAILURE = "tls_failure"                # handshake or certificate
CONNECTION_FAILED = "connection_failed"    # unreachable, reset while connecting, …
CONNECTION_CLOSED = "connection_closed"    # connected, then closed without an answer
INVALID_RESPONSE = "invalid_response"      # an answer that is not HTTP
ADDRESS_REFUSED = "address_refused"        # the address policy refused the address
TOO_MANY_REDIRECTS = "too_many_redirects"
OUTCOMES = (DELIVERED, HTTP_ERROR, TIMEOUT, CONNECTION_REFUSED, DNS_FAILURE, TLS_FAILURE,
            CONNECTION_FAILED, CONNECTION_CLOSED, INVALID_RESPONSE, ADDRESS_REFUSED,
            TOO_MANY_REDIRECTS)

# Retries: the first within 5 s of a failure, the second within 30 s of that, then
# exponential (x4) up to a day apart; each delay is drawn from its upper half (jitter), so
# the bounds hold and endpoints that failed together do not retry in step.
FIRST_RETRY_SECONDS, SECOND_RETRY_SECONDS = 5.0, 30.0
BACKOFF_FACTOR, MAX_RETRY_SECONDS = 4.0, 86_400.0
GIVE_UP_AFTER_SECONDS = 3 * 86_400.0     # a delivery is given up 3 days after its first try
DISABLE_AFTER_SECONDS = 5 * 86_400.0     # an endpoint failing that long is disabled
SECRET_BYTES = 32
# A rotated secret keeps signing beside the new one for a grace period (Standard Webhooks
# sends several signatures), so that receivers can switch without losing a delivery.
DEFAULT_GRACE_SECONDS = 86_400
MAX_GRACE_SECONDS = 7 * 86_400
MAX_URL = 2048
HTTP_SCHEMES = ("https", "http")
LOCALHOST_NAMES = ("localhost", "localhost.")  # RFC 6761: always loopback


# Claims go to the account that used the least delivery time lately: the seconds its attempts
# took, halved every USAGE_HALF_LIFE_SECONDS (adapters/db/outbox.py).
USAGE_HALF_LIFE_SECONDS = 60.0


def decayed_usage(used_seconds: float, seconds_since: float) -> float:
    """What `used_seconds` of delivery time counts for `seconds_since` later."""
    return used_seconds * 0.5 ** (max(0.0, seconds_since) / USAGE_HALF_LIFE_SECONDS)


def retry_delay(failures: int, rng: random.Random | None = None) -> float:
    """Seconds before the next attempt after `failures` failed attempts (1 or more)."""
    if failures <= 1:
        bound = FIRST_RETRY_SECONDS
    else:
        bound = min(SECOND_RETRY_SECONDS * BACKOFF_FACTOR ** (failures - 2), MAX_RETRY_SECONDS)
    return bound * (0.5 + 0.5 * (rng or random).random())


def event_id(invoice_id: str, event_type: str, discriminator: str) -> str:
    """The stable webhook-id of an event: the invoice, what happened, and which time
    (the job that ended, the correction's version)."""
    name = f"{invoice_id}.{event_type.removeprefix('invoice.')}"
    return f"{name}.{discriminator}" if discriminator else name


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def ping_event_id() -> str:
    return f"ping.{secrets.token_hex(12)}"


def payload(event_type: str, event: str, occurred_at: datetime, data: dict) -> str:
    """The body of every attempt of one event: kept from the first attempt, the same text each
    time, every replay included."""
    body = {"type": event_type, "id": event,
            "timestamp": occurred_at.isoformat().replace("+00:00", "Z"), "data": data}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def event_data(account: str, invoice_id: str, event_type: str, detail: str | None,
               invoice: dict | None) -> dict:
    """What an event says of its invoice, so that a receiver can act without reading it: the
    invoice (`status`, `version`, `review` and the extraction it shows, `document`) as it stood
    when the event was first sent; None once it is gone (status "deleted")."""
    data = {"account": account, "invoice_id": invoice_id,
            "url": f"/v1/accounts/{account}/invoices/{invoice_id}"}
    document = (invoice or {}).get("document") or {}
    review = (invoice or {}).get("review")
    data.update(
        status=invoice["status"] if invoice else "deleted",
        version=invoice["version"] if invoice else None,
        document_type=document_type_of(document) if document else None,
        review=None if review is None else {
            "state": review["state"], "reasons": list(document.get("review", {}).get("reasons", []))},
        **{name: _value(document, name) for name in ("currency", "gross_total", "amount_due")})
    if event_type == "invoice.failed":
        data["error_code"] = detail
    return data


def _value(document: dict, name: str):
    entry = document.get("fields", {}).get(name)
    return entry.get("value") if isinstance(entry, dict) else None


def ping_data(account: str, endpoint_id: str) -> dict:
    return {"account": account, "webhook_id": endpoint_id}


def grace_seconds(body) -> int:
    """A rotation's `{"grace_seconds": n}` (none: DEFAULT_GRACE_SECONDS); raises ValueError."""
    if body is None or body == {}:
        return DEFAULT_GRACE_SECONDS
    value = body.get("grace_seconds") if isinstance(body, dict) and set(body) == {
        "grace_seconds"} else None
    if isinstance(value, float) and value.is_integer():  # 771.0 is an integer in JSON
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_GRACE_SECONDS:
        raise ValueError('send {"grace_seconds": n}: how long the replaced secret keeps signing, '
                         f"0 to {MAX_GRACE_SECONDS} seconds (default {DEFAULT_GRACE_SECONDS})")
    return value


class Refused(ValueError):
    """This URL or address may not be called; the message says why."""


@dataclass(frozen=True)
class AddressPolicy:
    """Who may be called: public addresses over HTTPS; anything inside the allow-list
    (LEDGERLINE_WEBHOOK_ALLOW_NETWORKS), over HTTPS or plain HTTP. Judged on the address the
    connection goes to, after resolution, at every hop."""
    allowed: tuple = ()   # ipaddress networks

    def check(self, address: str, scheme: str) -> None:
        ip = _connected(ipaddress.ip_address(address.split("%", 1)[0]))
        if any(ip.version == net.version and ip in net for net in self.allowed):
            return
        if scheme != "https":
            raise Refused(f"plain {scheme}:// is allowed only to LEDGERLINE_WEBHOOK_ALLOW_NETWORKS "
                          f"({ip} is not in it)")
        kind = _not_public(ip)
        if kind:
            raise Refused(f"{ip} is a {kind} address")
        _refuse_carried(ip)


def _connected(ip):
    """The address a connection to `ip` reaches: an IPv4-mapped IPv6 address is its IPv4 one
    (the socket connects to it over IPv4); any other address, 6to4 and Teredo included, is
    itself, and is judged as itself."""
    return (ip.ipv4_mapped or ip) if ip.version == 6 else ip


NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052's well-known prefix


def _refuse_carried(ip) -> None:
    """An IPv6 address that carries an IPv4 one (6to4, Teredo, NAT64) may be relayed to it on
    the way: it is refused when that IPv4 address is not public."""
    if ip.version != 6:
        return
    carried = [ip.sixtofour, *(ip.teredo or ()),
               ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in NAT64 else None]
    for inner in filter(None, carried):
        kind = _not_public(inner)
        if kind:
            raise Refused(f"{ip} carries {inner}, a {kind} address, and may be relayed to it")


def _not_public(ip) -> str | None:
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local (metadata)"
    if ip.is_multicast:
        return "multicast"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_private:
        return "private"
    if not ip.is_global or ip.is_reserved:
        return "non-public"
    return None


def parse_networks(text: str) -> tuple:
    """LEDGERLINE_WEBHOOK_ALLOW_NETWORKS: comma-separated CIDRs (a bare address is /32, /128)."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False)
                 for part in text.split(",") if part.strip())


@dataclass(frozen=True)
class Registration:
    url: str
    events: tuple[str, ...]


def registration(body, policy: AddressPolicy) -> Registration:
    """A `{"url": …, "events": […]}` body, checked; raises ValueError (malformed) or Refused
    (an address nobody may call). Names are resolved at every delivery, where the addresses
    they resolve to are checked; here only what needs no lookup."""
    if not isinstance(body, dict) or set(body) - {"url", "events"}:
        raise ValueError('send {"url": "https://…", "events": ["invoice.completed", …]}')
    url, events = body.get("url"), body.get("events")
    if not isinstance(url, str) or not url or len(url) > MAX_URL:
        raise ValueError(f"url must be an absolute URL of at most {MAX_URL} characters")
    why = unstorable(url)
    if why:  # a URL is kept exactly as given, so it is refused rather than cleaned
        raise InvalidText(f"url holds {why}")
    if (not isinstance(events, list) or not events
            or not all(isinstance(t, str) and t in EVENT_TYPES for t in events)):
        raise ValueError("events must be a non-empty list of: " + ", ".join(EVENT_TYPES))
    check_url(url, policy)
    return Registration(url, tuple(sorted(set(events))))


def changed_registration(current: Registration, body, policy: AddressPolicy) -> Registration:
    """An endpoint after a PATCH `{"url": …}`, `{"events": […]}` or both, checked as at
    registration; raises ValueError or Refused."""
    if not isinstance(body, dict) or not body or set(body) - {"url", "events"}:
        raise ValueError('send {"url": "https://…"}, {"events": [...]} or both')
    return registration({"url": current.url, "events": list(current.events), **body}, policy)


def check_url(url: str, policy: AddressPolicy) -> tuple[str, str, int]:
    """(scheme, host, port) of a URL deliveries may go to, as far as it shows without DNS."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ValueError("url has an invalid port") from None
    if parts.scheme not in HTTP_SCHEMES or not parts.hostname:
        raise ValueError("url must be https://HOST/… (http:// only inside the allow-list)")
    if parts.username or parts.password:
        raise ValueError("url must not carry credentials; the signature authenticates us")
    if any(ch.isspace() or ord(ch) < 0x20 for ch in url):
        raise ValueError("url must not contain spaces or control characters")
    host = parts.hostname
    if parts.scheme != "https" and not policy.allowed:
        raise Refused(f"plain {parts.scheme}:// is allowed only to "
                      "LEDGERLINE_WEBHOOK_ALLOW_NETWORKS, and none are allowed")
    if host in LOCALHOST_NAMES or host.endswith(".localhost"):
        policy.check("127.0.0.1", parts.scheme)
    else:
        try:
            policy.check(host, parts.scheme)
        except ValueError as exc:  # not an address literal: checked after DNS, per delivery
            if isinstance(exc, Refused):
                raise
    return parts.scheme, host, port
