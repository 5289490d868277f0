"""The Flask application factory."""
from __future__ import annotations

from flask import Flask

from . import dashboard, invoices, ops, problems, reports, security


def create_app(services) -> Flask:
    app = Flask("ledgerline")
    app.extensions["ledgerline"] = services
    app.json.sort_keys = False
    problems.install(app)
    security.install(app, services.settings.rate_limit_per_minute)
    app.register_blueprint(ops.bp)
    app.register_blueprint(invoices.bp)
    app.register_blueprint(reports.bp)
    app.register_blueprint(dashboard.bp)
    return app
