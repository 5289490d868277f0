"""The Flask application factory."""
from __future__ import annotations

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from .. import metrics, tracing
from . import auth, limits, ops, problems, request_log, security
from .openapi import blueprints, new_app


def create_app(services) -> Flask:
    settings = services.settings
    app = new_app()
    app.extensions["ledgerline"] = services
    app.extensions[ops.SNAPSHOT] = metrics.QueueSnapshot(services,
                                                         settings.metrics_snapshot_seconds)
    app.extensions[ops.BUILD_INFO] = metrics.BuildInfo(services.extractor.versions)
    app.json.sort_keys = False
    request_log.install(app, log_requests=settings.access_log)  # first: it times the others
    problems.install(app)
    security.install(app, settings.rate_limit_per_minute)
    limits.install(app, settings)
    auth.install(app)
    for bp in blueprints():
        app.register_api(bp)
    if settings.trusted_proxy_hops:
        # Only the configured number of proxies may tell the client's address, scheme and
        # host: the load balancer's view of https:// is what same-origin checks compare with.
        hops = settings.trusted_proxy_hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,
                                x_port=hops)
    tracing.instrument_app(app)
    return app
