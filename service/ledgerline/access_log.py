"""Gunicorn's access log without credentials, whatever `access_log_format` asks for.

The default format logs no request headers, but one `%({authorization}i)s` added while
debugging would write every caller's API key to the log. The logger removes those atoms.
"""
from __future__ import annotations

from gunicorn.glogging import Logger

REDACTED = "[redacted]"
CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie", "x-api-key")


class RedactingLogger(Logger):
    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for header in CREDENTIAL_HEADERS:
            for name in (f"{{{header}}}i", f"{{http_{header.replace('-', '_')}}}e"):
                if name in atoms:
                    atoms[name] = REDACTED
        atoms["u"] = "-"  # gunicorn decodes the user of Basic credentials into %(u)s
        return atoms
