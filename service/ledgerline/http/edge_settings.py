"""Settings of the HTTP edge, read from the environment in this one place.

They bound what one client can hold of an API process: how long it may take to send its
headers and its body, how many requests and `Prefer: wait` holds one key may have at once,
how often one address may fail to authenticate, which proxies' forwarded headers are believed,
and the token that may read /metrics.
"""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class EdgeSettings:
    # Seconds a connection may take to deliver a request's headers (waiting for the next
    # request on a kept-alive connection included); then it is closed.
    header_timeout_seconds: float = 10.0
    # Seconds a request may take to deliver its whole body; then 408 and the connection closes.
    body_timeout_seconds: float = 120.0
    # Requests of one API key in flight at once, per API process; beyond it 429.
    max_requests_per_key: int = 64
    # `Prefer: wait` holds of one API key at once, per API process; beyond it the upload
    # answers at once (202) without applying the preference.
    max_waits_per_key: int = 32
    # Failed authentications a minute per client address, per API process; beyond it 429
    # before the key is even looked up. 0 turns the limit off.
    auth_failures_per_minute: int = 30
    # Proxies in front of the service whose X-Forwarded-For/-Proto/-Host/-Port are believed
    # (the load balancer: 1); 0 believes none.
    trusted_proxy_hops: int = 0
    # A bearer token that may read /metrics besides operator keys; None: operator keys only.
    metrics_token: str | None = None
    # Seconds a scrape of /metrics may reuse the queue gauges read from the database.
    metrics_snapshot_seconds: float = 15.0

    @classmethod
    def from_env(cls, env=None) -> EdgeSettings:
        env = os.environ if env is None else env
        d = cls()

        def number(name, default, kind):
            raw = env.get(name)
            if raw is None or not raw.strip():
                return default
            try:
                value = kind(raw.strip())
            except ValueError:
                raise ValueError(f"{name} must be a {kind.__name__} (got {raw!r})") from None
            if value < 0:
                raise ValueError(f"{name} must not be negative (got {raw!r})")
            return value

        return cls(
            header_timeout_seconds=number("LEDGERLINE_HEADER_TIMEOUT_SECONDS",
                                          d.header_timeout_seconds, float) or d.header_timeout_seconds,
            body_timeout_seconds=number("LEDGERLINE_BODY_TIMEOUT_SECONDS",
                                        d.body_timeout_seconds, float) or d.body_timeout_seconds,
            max_requests_per_key=number("LEDGERLINE_MAX_REQUESTS_PER_KEY",
                                        d.max_requests_per_key, int),
            max_waits_per_key=number("LEDGERLINE_MAX_WAITS_PER_KEY", d.max_waits_per_key, int),
            auth_failures_per_minute=number("LEDGERLINE_AUTH_FAILURES_PER_MINUTE",
                                            d.auth_failures_per_minute, int),
            trusted_proxy_hops=number("LEDGERLINE_TRUSTED_PROXY_HOPS", d.trusted_proxy_hops, int),
            metrics_token=(env.get("LEDGERLINE_METRICS_TOKEN") or "").strip() or None,
            metrics_snapshot_seconds=number("LEDGERLINE_METRICS_SNAPSHOT_SECONDS",
                                            d.metrics_snapshot_seconds, float),
        )
