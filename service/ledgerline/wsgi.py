"""WSGI entry point for gunicorn: `gunicorn ledgerline.wsgi:app`."""
from .bootstrap import bootstrap
from .http.app import create_app

app = create_app(bootstrap())
