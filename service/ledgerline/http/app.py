"""The Flask application factory."""
from __future__ import annotations

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from .. import metrics
from . import (auth, dashboard, docs, invoices, limits, ops, problems, reports, security,
               webhooks)


def create_app(services) -> Flask:
    settings = services.settings
    app = Flask("ledgerline")
    app.extensions["ledgerline"] = services
    app.extensions[ops.SNAPSHOT] = metrics.QueueSnapshot(services,
                                                         settings.metrics_snapshot_seconds)
    app.json.sort_keys = False
    problems.install(app)
    security.install(app, settings.rate_limit_per_minute)
    limits.install(app, settings)
    auth.install(app)
    app.register_blueprint(ops.bp)
    app.register_blueprint(invoices.bp)
    app.register_blueprint(webhooks.bp)
    app.register_blueprint(reports.bp)
    app.register_blueprint(dashboard.bp)
    app.register_blueprint(docs.bp)
    if settings.trusted_proxy_hops:
        # Only the configured number of proxies may tell the client's address, scheme and
        # host: the load balancer's view of https:// is what same-origin checks compare with.
        hops = settings.trusted_proxy_hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,
                                x_port=hops)
    return app
