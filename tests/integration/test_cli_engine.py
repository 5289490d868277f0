"""The command line says clearly what is wrong with the configuration or the schema, and what
`db upgrade` did."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = str(Path(sys.executable).parent / "ledgerline")


def run(tmp_path, *args, **env):
    base = {**os.environ, "LEDGERLINE_DATABASE_URL": f"sqlite:///{tmp_path}/cli.sqlite3",
            "LEDGERLINE_STORAGE_URL": f"file://{tmp_path}/objects", **env}
    return subprocess.run([CLI, *args], env=base, capture_output=True, text=True, timeout=60)


def test_a_bad_setting_is_one_line_and_no_traceback(tmp_path):
    for command in (["worker"], ["serve"], ["accounts", "create", "acme"], ["db", "upgrade"]):
        done = run(tmp_path, *command, LEDGERLINE_LEASE_SECONDS="0")
        assert done.returncode == 2, command
        assert done.stderr.strip().splitlines() == [
            "ledgerline: LEDGERLINE_LEASE_SECONDS='0': must be a number of seconds, at least 1 "
            "(e.g. 30)"]


def test_plain_gunicorn_validates_the_settings_as_the_cli_does(tmp_path):
    env = {**os.environ, "LEDGERLINE_API_WORKERS": "two", "LEDGERLINE_BIND": "8000"}
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", "python:ledgerline.gunicorn_conf"]
    done = subprocess.run([*gunicorn, "--check-config", "ledgerline.wsgi:app"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert sorted(done.stderr.strip().splitlines()) == [
        "ledgerline: LEDGERLINE_API_WORKERS='two': must be a whole number, at least 1",
        "ledgerline: LEDGERLINE_BIND='8000': must be HOST:PORT (0.0.0.0:8000, [::]:8000) or "
        "unix:PATH"]


def test_a_database_never_migrated_says_what_to_run(tmp_path):
    (tmp_path / "cli.sqlite3").touch()  # there, but empty (a missing file: test_cli_settings)
    done = run(tmp_path, "accounts", "create", "acme")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "has no Ledgerline schema; run `ledgerline db upgrade`" in done.stderr


def test_db_upgrade_says_whether_it_created_or_found_the_schema(tmp_path):
    created = run(tmp_path, "db", "upgrade")
    assert created.returncode == 0 and "created the Ledgerline schema" in created.stderr
    again = run(tmp_path, "db", "upgrade")
    assert "already at the latest revision" in again.stderr
    assert run(tmp_path, "accounts", "create", "acme").returncode == 0


def test_db_upgrade_names_the_revisions_it_migrated_between(tmp_path):
    from ledgerline.adapters.db.migrate import upgrade

    upgrade(f"sqlite:///{tmp_path}/cli.sqlite3", "0002")
    done = run(tmp_path, "db", "upgrade")
    assert "from revision 0002 to" in done.stderr
