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

EVENT_TYPES = ("invoice.completed", "invoice.failed", "invoice.corrected", "invoice.deleted")
PENDING, DELIVERING, DELIVERED, FAILED = "pending", "delivering", "delivered", "failed"
DELIVERY_STATUSES = (PENDING, DELIVERING, DELIVERED, FAILED)

# Retries: the first within 5 s of a failure, the second within 30 s of that, then
# exponential (x4) up to a day apart; each delay is drawn from its upper half (jitter), so
# the bounds hold and endpoints that failed together do not retry in step.
FIRST_RETRY_SECONDS, SECOND_RETRY_SECONDS = 5.0, 30.0
BACKOFF_FACTOR, MAX_RETRY_SECONDS = 4.0, 86_400.0
GIVE_UP_AFTER_SECONDS = 3 * 86_400.0     # a delivery is given up 3 days after its first try
DISABLE_AFTER_SECONDS = 5 * 86_400.0     # an endpoint failing that long is disabled
SECRET_BYTES = 32
MAX_URL = 2048
HTTP_SCHEMES = ("https", "http")
LOCALHOST_NAMES = ("localhost", "localhost.")  # RFC 6761: always loopback


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


def payload(event_type: str, event: str, account: str, invoice_id: str, detail: str | None,
            occurred_at: datetime) -> bytes:
    """The body of every attempt of one event: the same bytes each time. Thin on purpose:
    what happened and to which invoice; the receiver reads the invoice with its own key."""
    data = {"account": account, "invoice_id": invoice_id,
            "url": f"/v1/accounts/{account}/invoices/{invoice_id}"}
    if event_type == "invoice.failed":
        data["error_code"] = detail
    elif event_type == "invoice.corrected":
        data["version"] = int(detail) if detail and detail.isdigit() else None
    body = {"type": event_type, "id": event,
            "timestamp": occurred_at.isoformat().replace("+00:00", "Z"), "data": data}
    return json.dumps(body, separators=(",", ":")).encode()


class Refused(ValueError):
    """This URL or address may not be called; the message says why."""


@dataclass(frozen=True)
class AddressPolicy:
    """Who may be called: public addresses over HTTPS; anything inside the allow-list
    (LEDGERLINE_WEBHOOK_ALLOW_NETWORKS), over HTTPS or plain HTTP."""
    allowed: tuple = ()   # ipaddress networks

    def check(self, address: str, scheme: str) -> None:
        ip = _unwrapped(ipaddress.ip_address(address.split("%", 1)[0]))
        if any(ip.version == net.version and ip in net for net in self.allowed):
            return
        if scheme != "https":
            raise Refused(f"plain {scheme}:// is allowed only to LEDGERLINE_WEBHOOK_ALLOW_NETWORKS "
                          f"({ip} is not in it)")
        kind = _not_public(ip)
        if kind:
            raise Refused(f"{ip} is a {kind} address")


def _unwrapped(ip):
    """An IPv4 address carried inside IPv6 (mapped, 6to4, Teredo) is judged as itself."""
    if ip.version == 6:
        for inner in (ip.ipv4_mapped, ip.sixtofour, ip.teredo and ip.teredo[1]):
            if inner:
                return inner
    return ip


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
    if (not isinstance(events, list) or not events
            or not all(isinstance(t, str) and t in EVENT_TYPES for t in events)):
        raise ValueError("events must be a non-empty list of: " + ", ".join(EVENT_TYPES))
    check_url(url, policy)
    return Registration(url, tuple(sorted(set(events))))


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
