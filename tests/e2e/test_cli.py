"""The command line, as an operator types it."""
from __future__ import annotations

import json
import os

from tests.conftest import corpus_pdfs
from tests.e2e.service import ledgerline


def env_for(tmp_path):
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
    lines = [json.loads(line) for line in out.stdout.strip().splitlines()]
    assert [line["file"] for line in lines] == files
    assert all(line["document"]["schema_version"] == "invoice-v2" for line in lines)
    assert out.stderr == ""  # on a pipe: no progress bar
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
    assert second["file"] == str(good) and second["document"]["schema_version"] == "invoice-v2"


def _invoice_tree(root):
    """Sample invoices in nested folders, with the notes and truth files a real folder has."""
    from ledgerline_tools.samples import generate

    truths = {}
    for seed, (rel, lang) in enumerate([("b/2024/march.pdf", "de"), ("a.pdf", "pl"),
                                        ("b/no-suffix", "sv"), ("b/2024/readme.txt", "fi")]):
        pdf, truth = generate(seed, lang=lang, template="letterhead")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pdf)  # "no-suffix" and "readme.txt" are PDFs too: content decides
        truths[str(path)] = truth
    (root / "b" / "notes.txt").write_text("paid on the 3rd\n")
    (root / "b" / "2024" / "march.json").write_text("{}")
    (root / "b" / "2024" / "scan.jpg").write_text("not an image at all")
    os.mkfifo(root / "b" / "pipe")  # reading it would block: never opened
    (root / "b" / "gone.pdf").symlink_to(root / "nowhere.pdf")
    return truths


def _by_path(paths):
    return sorted(paths, key=lambda p: p.split("/"))


def test_extract_walks_directories_by_content_and_names_every_file(tmp_path):
    root = tmp_path / "inbox"
    truths = _invoice_tree(root)
    out = ledgerline(env_for(tmp_path), "extract", str(root))
    lines = [json.loads(line) for line in out.stdout.strip().splitlines()]
    # every accepted file, recursively, sorted by path; the rest is skipped
    assert [line["file"] for line in lines] == _by_path(truths)
    for line in lines:
        truth = truths[line["file"]]
        fields = line["document"]["fields"]
        assert fields["issue_date"]["value"] == truth["issue_date"], line["file"]
    assert out.stderr == ""


def test_extract_answers_for_every_file_named(tmp_path):
    root = tmp_path / "inbox"
    truths = _invoice_tree(root)
    notes, pdf = root / "b" / "notes.txt", _by_path(truths)[0]
    missing_dir = tmp_path / "empty"
    missing_dir.mkdir()
    out = ledgerline(env_for(tmp_path), "extract", str(notes), pdf, str(missing_dir), check=False)
    assert out.returncode == 1
    first, second = (json.loads(line) for line in out.stdout.strip().splitlines())
    assert first["file"] == str(notes) and first["error"]["code"] == "unsupported_media_type"
    assert "application/pdf" in first["error"]["message"]
    assert second["file"] == pdf and "document" in second
    fifo = ledgerline(env_for(tmp_path), "extract", str(root / "b" / "pipe"), check=False)
    assert json.loads(fifo.stdout)["error"]["code"] == "file_unreadable"
    nothing = ledgerline(env_for(tmp_path), "extract", str(missing_dir))
    assert nothing.stdout == "" and "no accepted files" in nothing.stderr


def test_extract_shows_a_progress_bar_on_a_terminal_only(tmp_path):
    import fcntl
    import pty
    import struct
    import subprocess
    import termios

    from tests.e2e.service import BIN

    root = tmp_path / "inbox"
    truths = _invoice_tree(root)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    proc = subprocess.Popen([str(BIN / "ledgerline"), "extract", str(root)],
                            env=env_for(tmp_path), stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    terminal = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        terminal += chunk
    stdout, _ = proc.communicate(timeout=120)
    os.close(leader)
    assert proc.returncode == 0
    bar = terminal.decode()
    assert f"{len(truths)}/{len(truths)}" in bar and "100%" in bar and "5 skipped" in bar
    # the lines themselves stay clean JSON, one per file
    lines = [json.loads(line) for line in stdout.decode().splitlines()]
    assert [line["file"] for line in lines] == _by_path(truths)


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
