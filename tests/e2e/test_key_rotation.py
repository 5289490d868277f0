"""Keys and accounts as an operator runs them, against `ledgerline serve` on the embedded
default and on PostgreSQL + S3: `keys rotate` keeps role, account, name and expiry (or takes
`--expires-in`), never revives an expired key, and the new key speaks for the same caller (the
batch client's Idempotency-Keys replay, a supplier still sees its uploads); `keys list` shows
created, last used and expiry; `accounts list`."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
import requests
from sqlalchemy import create_engine, text

from ledgerline_tools.samples import generate
from tests.e2e.service import create_key, ledgerline, served, service_env
from tests.fakes import ControlledExtractor


@pytest.fixture
def service(backend, tmp_path, make_services):
    make_services(extractor=ControlledExtractor())  # the migrated database of the backend
    env = service_env(backend, tmp_path, LEDGERLINE_RATE_LIMIT_PER_MINUTE="0")
    ledgerline(env, "accounts", "create", "acme")
    with served(env, "--workers", "1", log_path=tmp_path / "serve.log") as base:
        yield base, env, backend


def keys(env) -> dict:
    return {k["name"]: k for k in json.loads(ledgerline(env, "keys", "list", "--format",
                                                        "json").stdout)}


def by_id(env) -> dict:
    return {k["id"]: k for k in keys_list(env)}


def keys_list(env) -> list[dict]:
    return json.loads(ledgerline(env, "keys", "list", "--format", "json").stdout)


def rotate(env, key_id: str, *args: str, check: bool = True):
    return ledgerline(env, "keys", "rotate", key_id, "--grace", "0m", *args, check=check)


def when(text_: str) -> datetime:
    return datetime.fromisoformat(text_.replace("Z", "+00:00"))


def test_rotation_keeps_the_expiry_and_never_revives_an_expired_key(service):
    base, env, backend = service
    create_key(env, "supplier", "acme", "Muster GmbH")
    ledgerline(env, "keys", "create", "--role", "customer", "--account", "acme", "--name",
               "AP team", "--expires-in", "90d")
    old = keys(env)["AP team"]
    done = rotate(env, old["id"])
    secret = done.stdout.strip().splitlines()[-1]
    listed = by_id(env)
    new = next(k for k in listed.values() if k["id"] == listed[old["id"]]["replaced_by"])
    assert (new["role"], new["account"], new["name"]) == ("customer", "acme", "AP team")
    assert new["expires_at"] == old["expires_at"] and new["state"] == "expiring"
    assert new["prefix"] == secret[:12] and new["last_used_at"] is None
    assert requests.get(f"{base}/v1/accounts/acme/invoices", timeout=30,
                        headers={"Authorization": f"Bearer {secret}"}).status_code == 200
    # Used: `keys list` says when (to the minute); the unused supplier key has no such time.
    used = by_id(env)[new["id"]]
    assert used["last_used_at"] is not None
    assert when(used["created_at"]) - timedelta(minutes=1) <= when(used["last_used_at"])
    assert keys(env)["Muster GmbH"]["last_used_at"] is None

    # --expires-in gives the next key its own expiry.
    again = rotate(env, new["id"], "--expires-in", "30d")
    newer_id = by_id(env)[new["id"]]["replaced_by"]
    newer = by_id(env)[newer_id]
    left = when(newer["expires_at"]) - datetime.now(timezone.utc)
    assert timedelta(days=29) < left <= timedelta(days=30), again.stderr

    # A key that has expired is not rotated into a working one.
    engine = create_engine(backend.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE api_keys SET expires_at = :t WHERE id = :id"),
                         {"t": datetime(2020, 1, 1), "id": newer_id})
    finally:
        engine.dispose()
    count = len(keys_list(env))
    refused = rotate(env, newer_id, check=False)
    assert refused.returncode == 1 and "expired" in refused.stderr, refused.stderr
    assert len(keys_list(env)) == count  # no key was made
    replaced = rotate(env, old["id"], check=False)  # rotated already: its successor is named
    assert replaced.returncode == 1 and new["id"] in replaced.stderr


def test_a_rotated_key_replays_its_predecessors_uploads_and_sees_them(service, tmp_path):
    base, env, _backend = service
    supplier = create_key(env, "supplier", "acme", "Muster GmbH")
    folder = tmp_path / "invoices"
    folder.mkdir()
    for seed in (31, 32, 33):
        (folder / f"invoice-{seed}.pdf").write_bytes(generate(seed, lang="de")[0])

    def upload(key):
        out = ledgerline(env, "upload", "--url", base, "--account", "acme", "--key", key,
                         "--wait", "--format", "json", str(folder))
        return json.loads(out.stdout)

    first = upload(supplier)
    assert first["summary"]["files"] == 3 and first["summary"]["replayed"] == 0
    key_id = keys(env)["Muster GmbH"]["id"]
    successor = rotate(env, key_id).stdout.strip().splitlines()[-1]
    again = upload(successor)
    assert again["summary"]["replayed"] == 3, again  # nothing new: the same operations
    assert ({r["invoice_id"] for r in again["files"]}
            == {r["invoice_id"] for r in first["files"]})
    listed = requests.get(f"{base}/v1/accounts/acme/invoices", timeout=30,
                          headers={"Authorization": f"Bearer {successor}"}).json()["items"]
    assert len(listed) == 3  # a supplier's uploads stay its own across a rotation
    assert requests.get(f"{base}/v1/accounts/acme/invoices", timeout=30,
                        headers={"Authorization": f"Bearer {supplier}"}).status_code == 401

    accounts = json.loads(ledgerline(env, "accounts", "list", "--format", "json").stdout)
    assert accounts == [{"name": "acme", "created_at": accounts[0]["created_at"],
                         "retention_days": None, "state": "active", "keys": 1,
                         "invoices": 3}]
    table = ledgerline(env, "accounts", "list").stdout.splitlines()
    assert table[0].split() == ["name", "created_at", "retention_days", "state", "keys",
                                "invoices"]
    assert table[2].split()[0] == "acme"
