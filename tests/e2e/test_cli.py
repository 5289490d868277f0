"""The command line, as an operator types it."""
from __future__ import annotations

import json

from tests.conftest import corpus_pdfs
from tests.e2e.service import ledgerline


def env_for(tmp_path):
    import os
    return {**os.environ, "LEDGERLINE_DATABASE_URL": f"sqlite:///{tmp_path}/cli.sqlite3",
            "LEDGERLINE_STORAGE_URL": f"file://{tmp_path}/objects"}


def test_accounts_and_keys(tmp_path):
    env = env_for(tmp_path)
    ledgerline(env, "db", "upgrade")
    assert ledgerline(env, "accounts", "create", "acme").returncode == 0
    again = ledgerline(env, "accounts", "create", "acme", check=False)
    assert again.returncode != 0 and "already exists" in again.stderr
    bad = ledgerline(env, "accounts", "create", "Not_Valid", check=False)
    assert bad.returncode != 0 and "ACCOUNT" in bad.stderr
    out = ledgerline(env, "keys", "create", "--role", "supplier", "--account", "acme",
                     "--name", "Supplier Ltd")
    key = out.stdout.strip().splitlines()[-1]
    assert key.startswith("llk_") and len(key) > 40
    assert key not in (tmp_path / "cli.sqlite3").read_bytes().decode("latin-1")  # only its hash
    op = ledgerline(env, "keys", "create", "--role", "operator")
    assert op.stdout.strip().splitlines()[-1].startswith("llk_")
    missing = ledgerline(env, "keys", "create", "--role", "customer", check=False)
    assert missing.returncode != 0 and "--account" in missing.stderr
    unknown = ledgerline(env, "keys", "create", "--role", "customer", "--account", "nope", check=False)
    assert unknown.returncode != 0 and "no account" in unknown.stderr


def test_extract_prints_one_document_per_file(tmp_path):
    files = [str(p) for p in corpus_pdfs(limit=2)]
    out = ledgerline(env_for(tmp_path), "extract", *files)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2
    docs = [json.loads(line) for line in lines]
    assert all(d["schema_version"] == "invoice-v1" for d in docs)
    assert not (tmp_path / "cli.sqlite3").exists()  # offline: no database touched


def test_extract_runs_the_configured_sandbox_and_reports_bad_files(tmp_path):
    from tests.hostile import corpus

    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(corpus.flate_bomb())
    good = corpus_pdfs(limit=1)[0]
    out = ledgerline(env_for(tmp_path), "extract", str(bomb), str(good), check=False)
    assert out.returncode == 1
    first, second = (json.loads(line) for line in out.stdout.strip().splitlines())
    assert first == {"file": str(bomb), "error": {"code": "pdf_too_large",
                                                  "message": first["error"]["message"]}}
    assert second["schema_version"] == "invoice-v1"


def test_account_lifecycle_commands_refuse_what_they_cannot_do(tmp_path):
    env = env_for(tmp_path)
    ledgerline(env, "db", "upgrade")
    ledgerline(env, "accounts", "create", "acme")
    usage = ledgerline(env, "accounts", "set-retention", "acme", check=False)
    assert usage.returncode == 2 and "--days N or --forever" in usage.stderr
    both = ledgerline(env, "accounts", "set-retention", "acme", "--days", "3", "--forever",
                      check=False)
    assert both.returncode == 2
    unknown = ledgerline(env, "accounts", "set-retention", "nope", "--days", "3", check=False)
    assert unknown.returncode == 1 and "no account" in unknown.stderr
    forever = ledgerline(env, "accounts", "set-retention", "acme", "--forever")
    assert "until deleted" in forever.stderr
    asked = ledgerline(env, "accounts", "delete", "acme", check=False)  # no terminal: no "yes"
    assert asked.returncode != 0 and "Aborted" in asked.stderr
    assert json.loads(ledgerline(env, "keys", "list", "--format", "json").stdout) == []
    bad = ledgerline(env, "keys", "rotate", "key_missing", check=False)
    assert bad.returncode == 1 and "no key" in bad.stderr
    assert json.loads(ledgerline(env, "accounts", "delete", "acme", "--yes").stdout) == {
        "deleted": "acme", "rows": 0, "objects": 0}
    assert ledgerline(env, "accounts", "create", "acme").returncode == 0  # the name is free
