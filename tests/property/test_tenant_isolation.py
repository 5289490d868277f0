"""Tenant isolation: whatever several accounts upload, every read shows each caller its grants.

Several accounts, with a customer, two suppliers and a dashboard each, upload identical and
distinct files, with and without shared Idempotency-Keys and fresh-processing requests. Then
every caller (and an operator) tries every read on every account: get, file download, list
(every page through cursors, with filters, with cursors taken from other callers), CSV export,
the duplicate-work report and the dashboard. The property:

- a caller sees exactly what its grants allow: customers and dashboards everything in their own
  account, suppliers their own uploads, operators and other accounts nothing;
- whatever it may not see answers exactly like something that does not exist (404, same body),
  and no answer carries another account's ids, hashes or names;
- uploads answer only with the caller's own invoice: through cache hits, joins and replays;
- identical files in two accounts never share a cache entry, a result or an extraction.

Hypothesis drives the scenarios on SQLite + directory; one fixed scenario runs on every
backend (PostgreSQL + S3 included).
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

import blake3
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sqlalchemy import text

from ledgerline.adapters.db.engine import transaction
from tests.fakes import ControlledExtractor, pdf_bytes
from tests.property.support import ACCOUNT_ROLES, UPLOADERS, App, examples, fresh_account

MISSING_ID = "inv_" + "0" * 24
BODIES = [pdf_bytes(f"isolation-{i}") for i in range(4)]  # the same bytes in every account


@dataclass(frozen=True)
class Upload:
    account: int
    role: str
    body: int
    key: str | None = None
    fresh: bool = False
    work_after: bool = False


@dataclass(frozen=True)
class Invoice:
    id: str
    account: str
    uploader: str  # secret of the key that uploaded it
    body: int


@dataclass
class World:
    app: App
    accounts: list[str]
    tenants: dict
    invoices: dict[str, Invoice] = field(default_factory=dict)

    def callers(self):
        """(secret, account or None, role) for every key in play."""
        for account in self.accounts:
            for role in ACCOUNT_ROLES:
                yield self.tenants[account].keys[role], account, role
        yield self.app.operator, None, "operator"

    def visible(self, secret: str, own: str | None, role: str, account: str) -> set[str]:
        if own != account or role == "operator":
            return set()
        return {i.id for i in self.invoices.values() if i.account == account
                and (role in ("customer", "dashboard") or i.uploader == secret)}


UPLOADS = st.builds(Upload, account=st.integers(0, 2), role=st.sampled_from(UPLOADERS),
                    body=st.integers(0, len(BODIES) - 1),
                    key=st.one_of(st.none(), st.sampled_from(["k1", "k2"])),
                    fresh=st.booleans(), work_after=st.booleans())


@settings(max_examples=examples(12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(accounts=st.integers(2, 3), uploads=st.lists(UPLOADS, min_size=1, max_size=7))
def test_no_read_ever_crosses_a_grant(sqlite_app, accounts, uploads):
    world = run(sqlite_app, accounts, uploads)
    check_isolation(world)


FIXED = [Upload(0, "supplier", 0), Upload(1, "customer", 0, work_after=True),
         Upload(0, "customer", 0), Upload(1, "supplier", 0, key="k1"),
         Upload(1, "supplier", 0, key="k1"), Upload(0, "supplier2", 1, key="k1"),
         Upload(2, "customer", 1, fresh=True), Upload(2, "supplier", 2, work_after=True),
         Upload(0, "supplier", 1), Upload(2, "supplier2", 0)]


@pytest.mark.integration
def test_a_fixed_scenario_keeps_tenants_apart_on_every_backend(make_services):
    extractor = ControlledExtractor()
    app = App(make_services(extractor=extractor, rate_limit_per_minute=0), extractor)
    check_isolation(run(app, 3, FIXED))


# --- the scenario --------------------------------------------------------------------------

def run(app: App, n_accounts: int, uploads: list[Upload]) -> World:
    names = [fresh_account("tenant") for _ in range(n_accounts)]
    world = World(app, names, {name: app.tenant(name) for name in names})
    seen: dict[tuple, Invoice] = {}  # (account, secret, key) -> the invoice it created
    uploaded: set[tuple] = set()     # (account, body) uploaded so far
    for up in uploads:
        account = names[up.account % n_accounts]
        secret = world.tenants[account].keys[up.role]
        resp = app.upload(secret, account, BODIES[up.body], key=up.key, fresh=up.fresh)
        assert resp.status_code in (200, 201, 202, 422), resp.get_data(as_text=True)
        if resp.status_code == 422:
            assert (account, secret, up.key) in seen
            continue
        body = resp.json
        # Whatever served it (new work, the cache, a join, a replay): the caller's own invoice.
        assert body["account"] == account
        assert body["uploaded_by"]["key_id"] == app.key_ids[secret]
        assert body["content_hash"] == "blake3:" + blake3.blake3(BODIES[up.body]).hexdigest()
        if resp.status_code == 200:
            assert resp.headers["Idempotent-Replayed"] == "true"
            assert seen[(account, secret, up.key)].id == body["id"]
        else:
            assert body["id"] not in world.invoices
            if resp.headers["Ledgerline-Cache"] in ("hit", "joined"):
                assert (account, up.body) in uploaded, "served from another account's work"
            invoice = Invoice(body["id"], account, secret, up.body)
            world.invoices[invoice.id] = invoice
            if up.key:
                seen[(account, secret, up.key)] = invoice
            uploaded.add((account, up.body))
        if up.work_after:
            app.work()
    app.work()
    return world


# --- the checks ------------------------------------------------------------------------------

def check_isolation(world: World) -> None:
    check_storage(world)
    for secret, own, role in world.callers():
        for account in [*world.accounts, "nobody-here"]:
            check_list(world, secret, own, role, account)
            check_csv(world, secret, own, role, account)
        check_single_reads(world, secret, own, role)
        check_reports(world, secret, role)


def check_list(world, secret, own, role, account):
    app, path = world.app, f"/v1/accounts/{account}/invoices"
    visible = world.visible(secret, own, role, account)
    if own != account:
        refused = app.get(secret, path)
        missing = app.get(secret, "/v1/accounts/nobody-here/invoices")
        assert refused.status_code == 404
        assert _problem(refused, account) == _problem(missing, "nobody-here")
        return
    listed = app.listed_ids(secret, account, limit=2)
    assert len(listed) == len(set(listed)) and set(listed) == visible
    completed = {i for i in visible if _status(app, secret, account, i) == "completed"}
    # The test extractor's documents: seller "Test Seller GmbH", issued 2026-11-02.
    for filters in ({"status": "completed"}, {"seller": "seller gmbh"},
                    {"issued_from": "2026-11-01", "issued_to": "2026-11-30"}):
        assert set(app.listed_ids(secret, account, limit=2, **filters)) == completed
    # A cursor someone else was given pages through the caller's own view, nothing more.
    for other, other_own, _other_role in world.callers():
        if other_own == account and other != secret:
            page = app.get(other, path, limit=1).json
            if page["next_cursor"]:
                rest = app.get(secret, path, cursor=page["next_cursor"], limit=200)
                assert {i["id"] for i in rest.json["items"]} <= visible
            break
    _assert_nothing_foreign(world, account, visible,
                            app.get(secret, path, limit=200).get_data(as_text=True))


def check_csv(world, secret, own, role, account):
    resp = world.app.get(secret, f"/v1/accounts/{account}/invoices", format="csv", limit=200)
    if own != account:
        assert resp.status_code == 404
        return
    assert resp.status_code == 200 and resp.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(resp.get_data(as_text=True))))
    visible = world.visible(secret, own, role, account)
    assert {row["id"] for row in rows} == visible
    _assert_nothing_foreign(world, account, visible, resp.get_data(as_text=True))


def check_single_reads(world, secret, own, role):
    """Every invoice, through its own account's path and through the caller's."""
    app = world.app
    for invoice in world.invoices.values():
        for account in {invoice.account, own or invoice.account}:
            may = invoice.id in world.visible(secret, own, role, account)
            for suffix in ("", "/file"):
                path = f"/v1/accounts/{account}/invoices/{invoice.id}{suffix}"
                resp = app.get(secret, path)
                try:
                    if may:
                        assert resp.status_code == 200, path
                        if suffix:
                            assert resp.get_data() == BODIES[invoice.body]
                        else:
                            assert resp.json["id"] == invoice.id
                            assert resp.json["account"] == account
                        continue
                    missing = app.get(secret, f"/v1/accounts/{account}/invoices/{MISSING_ID}{suffix}")
                    assert resp.status_code == missing.status_code == 404, path
                    assert _problem(resp) == _problem(missing)
                    assert invoice.id not in str(_problem(resp))  # beyond the echoed path
                finally:
                    resp.close()  # a streamed file holds its request context until closed


def check_reports(world, secret, role):
    app = world.app
    report = app.get(secret, "/v1/reports/duplicates", day="2026-11-29")
    dashboard = app.get(secret, "/dashboard")
    if role != "operator":
        assert report.status_code == 404 and dashboard.status_code == 404
        return
    assert report.status_code == 200 and dashboard.status_code == 200
    for resp in (report, dashboard):
        page = resp.get_data(as_text=True)
        # Counts and costs only: no invoice or file of anyone. The dashboard's review queue
        # names the accounts the operator runs (with counts), the API's report none.
        for invoice in world.invoices.values():
            assert invoice.id not in page
            assert resp is dashboard or invoice.account not in page
        assert not any(blake3.blake3(b).hexdigest() in page for b in BODIES)


def check_storage(world):
    """Results, cache entries and joins never point across accounts; each account extracted
    its own copy of a file the others also uploaded."""
    app = world.app
    with transaction(app.services.engine, write=False) as conn:
        crossings = conn.execute(text("""
            SELECT (SELECT count(*) FROM cache_entries c JOIN results r ON r.id = c.result_id
                    WHERE r.account <> c.account)
                 + (SELECT count(*) FROM jobs j JOIN results r ON r.id = j.result_id
                    WHERE r.account <> j.account)
                 + (SELECT count(*) FROM jobs j JOIN jobs l ON l.id = j.leader_id
                    WHERE l.account <> j.account)
                 + (SELECT count(*) FROM invoices i JOIN jobs j ON j.id = i.job_id
                    WHERE j.account <> i.account)""")).scalar()
    assert crossings == 0
    calls: dict[tuple, set] = {}  # (account, body) -> the extraction calls its invoices show
    for invoice in world.invoices.values():
        customer = world.tenants[invoice.account].keys["customer"]
        document = app.get(customer, f"/v1/accounts/{invoice.account}/invoices/{invoice.id}").json
        if document["status"] == "completed":
            number = document["extraction"]["fields"]["invoice_number"]["value"]
            calls.setdefault((invoice.account, invoice.body), set()).add(number)
    for (account, body), numbers in calls.items():
        for (other, other_body), other_numbers in calls.items():
            if other != account and other_body == body:
                assert not numbers & other_numbers, "two accounts share one extraction"


def _status(app, secret, account, invoice_id) -> str:
    return app.get(secret, f"/v1/accounts/{account}/invoices/{invoice_id}").json["status"]


def _problem(resp, account: str | None = None) -> dict:
    """The problem document, minus what only echoes the request (instance, account name)."""
    assert resp.mimetype == "application/problem+json"
    body = {k: v for k, v in resp.json.items() if k != "instance"}
    if account:
        body["detail"] = body.get("detail", "").replace(account, "<account>")
    return body


def _assert_nothing_foreign(world, account, visible, page: str) -> None:
    for invoice in world.invoices.values():
        if invoice.id not in visible:
            assert invoice.id not in page
    for other in world.accounts:
        if other != account and not other.startswith(account):
            assert other not in page
