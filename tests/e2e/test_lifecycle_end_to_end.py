"""After extraction, through `ledgerline serve` (gunicorn, two processes) and the `ledgerline`
command as an operator and an integrator type it, on the embedded default and on
PostgreSQL + S3: the batch upload client, key revocation and rotation in every process,
retention and account deletion."""
from __future__ import annotations

import json
import shutil
import time

import pytest
import requests
from sqlalchemy import create_engine, text, update

from ledgerline.adapters.db.clock import db_now_plus
from ledgerline.adapters.db.tables import invoices
from ledgerline_tools.samples import generate
from tests.conftest import make_tenant, operator_key
from tests.e2e.service import ledgerline, served, service_env
from tests.fakes import ControlledExtractor

# A revoked key is refused by every process within a second (http/auth.py); a margin for a
# loaded machine.
REVOCATION_SECONDS = 1.0 + 0.5


@pytest.fixture
def service(backend, tmp_path, make_services):
    services = make_services(extractor=ControlledExtractor(), rate_limit_per_minute=0)
    acme, globex = make_tenant(services, "acme"), make_tenant(services, "globex")
    env = service_env(backend, tmp_path, LEDGERLINE_RATE_LIMIT_PER_MINUTE="0")
    with served(env, "--workers", "2", log_path=tmp_path / "serve.log") as base:
        yield Service(base, env, backend, acme, globex, operator_key(services), services)


class Service:
    def __init__(self, base, env, backend, acme, globex, operator, services):
        self.base, self.env, self.backend = base, env, backend
        self.acme, self.globex, self.operator = acme, globex, operator
        self.services = services

    def get(self, secret, path, **kw):
        return requests.get(f"{self.base}{path}", timeout=30,
                            headers={"Authorization": f"Bearer {secret}"}, **kw)

    def upload(self, *args, check=True):
        out = ledgerline(self.env, "upload", "--url", self.base, "--account", "acme",
                         "--key", self.acme.keys["customer"], *args, check=check)
        return out

    def scalar(self, sql: str):
        engine = create_engine(self.backend.database_url)
        try:
            with engine.connect() as conn:
                return conn.execute(text(sql)).scalar()
        finally:
            engine.dispose()

    def age(self, invoice_id: str, days: int) -> None:
        engine = create_engine(self.backend.database_url)
        try:
            with engine.begin() as conn:
                conn.execute(update(invoices).where(invoices.c.id == invoice_id)
                             .values(created_at=db_now_plus(-days * 86400)))
        finally:
            engine.dispose()

    def key_id(self, role: str) -> str:
        return self.acme.caller(self.services, role).key_id


def sample_folder(root, seeds):
    """Sample invoices (generated, never from the corpus), one per seed, plus a note that is
    no invoice and a hidden file, in `root` and a subfolder."""
    (root / "sub").mkdir(parents=True)
    for n, seed in enumerate(seeds):
        pdf, _ = generate(seed, lang="en")
        (root / ("sub" if n % 2 else ".") / f"invoice-{seed}.pdf").write_bytes(pdf)
    (root / "notes.txt").write_text("not an invoice\n")
    (root / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    return root


def test_the_batch_client_never_uploads_a_file_twice(service, tmp_path):
    folder = sample_folder(tmp_path / "inbox", seeds=[11, 12, 13, 14])
    # A first run "crashes" after two files: it only got to send these, and a copy of the
    # first under another name, sent at the same time: the same operation.
    (tmp_path / "elsewhere").mkdir()
    copy = shutil.copy(folder / "invoice-11.pdf", tmp_path / "elsewhere" / "again-11.pdf")
    first = json.loads(service.upload("--format", "json", str(folder / "invoice-11.pdf"),
                                      str(copy), str(folder / "sub" / "invoice-12.pdf")).stdout)
    [original, again, other] = first["files"]
    assert sorted([original["cache"], again["cache"]]) == ["miss", "replayed"], first
    assert original["invoice_id"] == again["invoice_id"] and other["cache"] == "miss"
    # Re-run over the whole folder, waiting for the results.
    again = service.upload("--recursive", "--wait", "--format", "json", str(folder))
    report = json.loads(again.stdout)
    by_name = {r["path"].rsplit("/", 1)[-1]: r for r in report["files"]}
    assert sorted(by_name) == [f"invoice-{s}.pdf" for s in (11, 12, 13, 14)]
    assert {n: r["cache"] for n, r in by_name.items()} == {
        "invoice-11.pdf": "replayed", "invoice-12.pdf": "replayed",
        "invoice-13.pdf": "miss", "invoice-14.pdf": "miss"}
    assert all(r["status"] == "completed" for r in report["files"]), report
    assert report["summary"]["files"] == 4 and report["summary"]["completed"] == 4
    assert report["summary"]["replayed"] == 2 and report["summary"]["failed"] == 0
    assert "skipped" in again.stderr and "notes.txt" in again.stderr
    assert "DS_Store" not in again.stderr
    # The same file under another name, and a third run: nothing new.
    shutil.copy(folder / "invoice-13.pdf", folder / "sub" / "copy-of-13.pdf")
    third = service.upload("--recursive", "--format", "csv", str(folder))
    lines = third.stdout.strip().splitlines()
    assert lines[0].startswith("path,invoice_id,status,cache") and len(lines) == 6
    assert all(",replayed," in line for line in lines[1:])
    assert all(line.rsplit(",", 1)[1] in ("true", "false") for line in lines[1:])
    assert "files  completed  hit  joined  replayed" in third.stderr
    assert service.scalar("SELECT count(*) FROM invoices") == 4
    assert service.scalar("SELECT count(*) FROM model_calls") == 4
    ids = {r["invoice_id"] for r in report["files"]}
    listed = service.get(service.acme.keys["customer"], "/v1/accounts/acme/invoices").json()
    assert {i["id"] for i in listed["items"]} == ids


def test_refusals_are_reported_and_several_files_in_one_request_refused(service, tmp_path):
    bad = tmp_path / "empty.pdf"
    bad.write_bytes(b"")
    out = service.upload("--format", "json", str(bad), check=False)
    assert out.returncode == 1
    [row] = json.loads(out.stdout)["files"]
    assert row["status"] == "refused" and row["http_status"] == 400 and row["error"]
    wrong = ledgerline(service.env, "upload", "--url", service.base, "--account", "acme",
                       "--key", "llk_not_a_key", "--format", "json", str(bad), check=False)
    assert json.loads(wrong.stdout)["files"][0]["http_status"] == 401
    # Several invoices in one multipart request: one invoice per request, the client's way.
    pdf, _ = generate(21, lang="en")
    resp = requests.post(f"{service.base}/v1/accounts/acme/invoices", timeout=30,
                         headers={"Authorization": f"Bearer {service.acme.keys['customer']}"},
                         files=[("file", ("a.pdf", pdf, "application/pdf")),
                                ("file", ("b.pdf", pdf + b"\n", "application/pdf"))])
    assert resp.status_code == 400 and resp.json()["code"] == "one_file_per_request"
    assert "2 'file' parts" in resp.json()["detail"]
    assert service.scalar("SELECT count(*) FROM invoices") == 0
    one = requests.post(f"{service.base}/v1/accounts/acme/invoices", timeout=60,
                        headers={"Authorization": f"Bearer {service.acme.keys['customer']}"},
                        files=[("file", ("a.pdf", pdf, "application/pdf"))])
    assert one.status_code in (201, 202), one.text


def answers(service, secret, n=12):
    return {service.get(secret, "/v1/accounts/acme/invoices").status_code for _ in range(n)}


def test_a_revoked_key_is_refused_by_every_server_process_within_a_second(service):
    secret = service.acme.keys["customer"]
    assert answers(service, secret) == {200}  # cached now by the processes that answered
    key_id = service.key_id("customer")
    ledgerline(service.env, "keys", "revoke", key_id)
    time.sleep(REVOCATION_SECONDS)
    assert answers(service, secret, n=20) == {401}
    assert answers(service, service.acme.keys["supplier"]) == {200}
    listed = {k["id"]: k for k in json.loads(ledgerline(
        service.env, "keys", "list", "--format", "json").stdout)}
    assert listed[key_id]["state"] == "revoked"
    assert all("secret" not in k and "hash" not in k for k in listed.values())
    again = ledgerline(service.env, "keys", "revoke", "key_missing", check=False)
    assert again.returncode != 0 and "no key" in again.stderr


def test_a_rotated_key_works_beside_the_old_one_for_the_grace_period(service):
    old = service.acme.keys["supplier"]
    key_id = service.key_id("supplier")
    out = ledgerline(service.env, "keys", "rotate", key_id, "--grace", "1h")
    new = out.stdout.strip().splitlines()[-1]
    assert new.startswith("llk_") and new != old
    assert answers(service, new) == {200} and answers(service, old) == {200}
    newer = ledgerline(service.env, "keys", "rotate", service.key_id("supplier2"),
                       "--grace", "0m").stdout.strip().splitlines()[-1]
    time.sleep(REVOCATION_SECONDS)
    assert answers(service, service.acme.keys["supplier2"]) == {401}
    assert answers(service, newer) == {200}
    table = ledgerline(service.env, "keys", "list", "--account", "acme").stdout
    assert table.splitlines()[0].split()[:5] == ["id", "role", "account", "name", "state"]
    short = ledgerline(service.env, "keys", "create", "--role", "customer", "--account", "acme",
                       "--name", "temp", "--expires-in", "1m").stdout.strip().splitlines()[-1]
    assert answers(service, short) == {200}
    [key] = [k for k in json.loads(ledgerline(service.env, "keys", "list", "--account", "acme",
                                              "--format", "json").stdout)
             if k["name"] == "temp"]
    assert key["expires_at"] and key["state"] == "expiring"


def test_retention_and_account_deletion_from_the_command_line(service, tmp_path):
    pdf, _ = generate(31, lang="en")
    customer = service.acme.keys["customer"]
    made = requests.post(f"{service.base}/v1/accounts/acme/invoices", data=pdf, timeout=90,
                         headers={"Authorization": f"Bearer {customer}",
                                  "Content-Type": "application/pdf", "Prefer": "wait=60"})
    assert made.status_code == 201, made.text
    invoice = made.json()["id"]
    ledgerline(service.env, "accounts", "set-retention", "acme", "--days", "30")
    ledgerline(service.env, "purge", "--older-than", "30d")
    assert service.get(customer, f"/v1/accounts/acme/invoices/{invoice}").status_code == 200
    older = service.upload("--format", "json", str(sample_folder(tmp_path / "old", [32])
                                                   / "invoice-32.pdf"))
    aged = json.loads(older.stdout)["files"][0]["invoice_id"]
    service.age(aged, days=31)
    purged = json.loads(ledgerline(service.env, "purge", "--older-than", "30d").stdout)
    assert purged["purged"]["invoices"] == 1, purged
    assert service.get(customer, f"/v1/accounts/acme/invoices/{aged}").status_code == 404
    assert service.get(customer, f"/v1/accounts/acme/invoices/{invoice}").status_code == 200
    done = json.loads(ledgerline(service.env, "accounts", "delete", "acme", "--yes").stdout)
    assert done["deleted"] == "acme"
    time.sleep(REVOCATION_SECONDS)
    assert answers(service, customer) == {401}  # its keys went with it
    assert service.get(service.operator, f"/v1/accounts/acme/invoices/{invoice}")\
        .status_code == 404
    assert service.scalar("SELECT count(*) FROM invoices") == 0
    assert service.scalar("SELECT count(*) FROM blobs") == 0
    assert service.get(service.globex.keys["customer"], "/v1/accounts/globex/invoices")\
        .status_code == 200  # the other account is untouched
    missing = ledgerline(service.env, "accounts", "delete", "acme", "--yes", check=False)
    assert missing.returncode != 0 and "no account" in missing.stderr
