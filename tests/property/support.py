"""A running app over real backends, and the bookkeeping the property tests share."""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field

from ledgerline.adapters.db.accounts import caller_for_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.http.app import create_app
from ledgerline.service_layer.worker import Worker
from tests.conftest import make_tenant, operator_key

ACCOUNT_ROLES = ("customer", "supplier", "supplier2", "dashboard")
UPLOADERS = ("customer", "supplier", "supplier2")
_names = itertools.count()


def examples(n: int) -> int:
    """CI's example count, times LEDGERLINE_FUZZ_SCALE for longer runs (docs/security.md,
    "Fuzzing")."""
    return n * fuzz_scale()


def fuzz_scale() -> int:
    return max(1, int(os.environ.get("LEDGERLINE_FUZZ_SCALE", "1")))


def fresh_account(prefix: str) -> str:
    """Examples share one database; each gets accounts no earlier example has used."""
    return f"{prefix}-{next(_names)}"


@dataclass
class App:
    services: object
    extractor: object
    client: object = None
    operator: str = ""
    key_ids: dict = field(default_factory=dict)  # secret -> key id

    def __repr__(self) -> str:  # hypothesis prints the fixture with every failing example
        return f"App({self.services.settings.database_url})"

    def __post_init__(self):
        self.client = create_app(self.services).test_client()
        self.operator = operator_key(self.services)

    def tenant(self, account: str):
        tenant = make_tenant(self.services, account)
        with transaction(self.services.engine, write=False) as conn:
            for secret in tenant.keys.values():
                self.key_ids[secret] = caller_for_key(conn, secret).key_id
        return tenant

    def upload(self, secret: str, account: str, body: bytes, *, key: str | None = None,
               fresh: bool = False):
        headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/pdf"}
        if key is not None:
            headers["Idempotency-Key"] = key
        if fresh:
            headers["Cache-Control"] = "no-cache"
        return self.client.post(f"/v1/accounts/{account}/invoices", data=body, headers=headers)

    def get(self, secret: str, path: str, **params):
        return self.client.get(path, query_string=params,
                               headers={"Authorization": f"Bearer {secret}"})

    def work(self) -> None:
        worker = Worker(self.services, name="property-worker")
        while worker.run_once():
            pass

    def listed_ids(self, secret: str, account: str, limit: int = 50, **filters) -> list[str]:
        """Every id the list shows, following cursors to the end."""
        ids, cursor = [], None
        while True:
            params = {"limit": limit, **filters, **({"cursor": cursor} if cursor else {})}
            resp = self.get(secret, f"/v1/accounts/{account}/invoices", **params)
            assert resp.status_code == 200, resp.get_data(as_text=True)
            ids += [item["id"] for item in resp.json["items"]]
            cursor = resp.json["next_cursor"]
            if cursor is None:
                return ids
