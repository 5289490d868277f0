"""Settings and errors as a person meets them at the command line: a typo is named, the data
directory is the same from anywhere, a command that only reads creates nothing, and every
error is one line with a non-zero exit status."""
from __future__ import annotations

import json
import os
import socket
import subprocess

from tests.e2e.service import BIN, ledgerline


def bare_env(tmp_path, **extra) -> dict:
    """A user's environment: none of this machine's LEDGERLINE_ settings, its own home."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LEDGERLINE_") and k != "XDG_DATA_HOME"}
    return {**env, "HOME": str(tmp_path / "home"), **extra}


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_misspelt_variable_stops_the_command_naming_the_right_one(tmp_path):
    typo = "LEDGERLINE_" + "DATABSE_URL"
    done = ledgerline(bare_env(tmp_path, **{typo: "sqlite:////tmp/x.sqlite3"}), "keys", "list",
                      check=False)
    assert done.returncode == 2
    assert one_line_error(done) == (f"ledgerline: {typo}: unknown variable; "
                                    "did you mean LEDGERLINE_DATABASE_URL?")


def test_the_default_data_directory_is_the_same_from_any_directory(tmp_path):
    env = bare_env(tmp_path)
    home_data = tmp_path / "home" / ".local" / "share" / "ledgerline"
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir(), second.mkdir()
    subprocess.run([str(BIN / "ledgerline"), "db", "upgrade"], cwd=first, env=env, check=True,
                   capture_output=True)
    subprocess.run([str(BIN / "ledgerline"), "accounts", "create", "acme"], cwd=first, env=env,
                   check=True, capture_output=True)
    shown = subprocess.run([str(BIN / "ledgerline"), "config", "--format", "json"], cwd=second,
                           env=env, check=True, capture_output=True, text=True)
    config = json.loads(shown.stdout)
    assert config["LEDGERLINE_DATA_DIR"] == str(home_data)
    assert config["LEDGERLINE_DATABASE_URL"] == f"sqlite:///{home_data}/ledgerline.sqlite3"
    listed = subprocess.run([str(BIN / "ledgerline"), "keys", "list", "--format", "json"],
                            cwd=second, env=env, capture_output=True, text=True)
    assert listed.returncode == 0 and json.loads(listed.stdout) == []  # the same database
    assert not (first / "var").exists() and not (second / "var").exists()
    plain = subprocess.run([str(BIN / "ledgerline"), "config"], cwd=second, env=env,
                           check=True, capture_output=True, text=True).stdout
    assert f"LEDGERLINE_DATA_DIR={home_data}\n" in plain


def test_a_command_that_only_reads_creates_no_database_and_names_the_path(tmp_path):
    env = bare_env(tmp_path, LEDGERLINE_DATA_DIR="data")
    done = subprocess.run([str(BIN / "ledgerline"), "keys", "list"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    expected = tmp_path / "data" / "ledgerline.sqlite3"
    assert done.returncode == 2
    assert one_line_error(done).startswith(f"ledgerline: no database at {expected}; run "
                                           "`ledgerline db upgrade`")
    assert not (tmp_path / "data").exists()
    for reading in (["report", "duplicates", "--day", "2026-11-29"],
                    ["keys", "create", "--role", "operator"]):
        again = subprocess.run([str(BIN / "ledgerline"), *reading], cwd=tmp_path, env=env,
                               capture_output=True, text=True)
        assert str(expected) in one_line_error(again)
    assert not (tmp_path / "data").exists()


def test_every_error_is_one_line(tmp_path):
    env = bare_env(tmp_path, LEDGERLINE_DATA_DIR=str(tmp_path / "data"))
    port = ledgerline(env, "serve", "--port", "99999", check=False)
    assert port.returncode == 2
    assert one_line_error(port).startswith("ledgerline serve: Invalid value for '--port': 99999")
    assert "Usage:" not in port.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port_taken = taken.getsockname()[1]
        busy = ledgerline(env, "serve", "--port", str(port_taken), check=False)
    assert one_line_error(busy) == (f"ledgerline: cannot listen on 127.0.0.1:{port_taken}: "
                                    "Address already in use")
    assert one_line_error(ledgerline(env, "no-such-command", check=False)).startswith(
        "ledgerline: No such command")
    assert one_line_error(ledgerline(env, "keys", "create", check=False)).startswith(
        "ledgerline keys create: Missing option '--role'")
    bad = ledgerline({**env, "LEDGERLINE_LEASE_SECONDS": "soon"}, "serve", check=False)
    assert one_line_error(bad).startswith("ledgerline: LEDGERLINE_LEASE_SECONDS='soon': must be")
    postgres = ledgerline({**env, "LEDGERLINE_DATABASE_URL":
                           "postgresql://nobody@127.0.0.1:1/none"}, "keys", "list", check=False)
    assert one_line_error(postgres).startswith(
        "ledgerline: cannot reach the database at postgresql+psycopg://nobody@127.0.0.1:1/none")
