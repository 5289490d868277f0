"""The duplicate-work report over HTTP and on the command line: operators only, bad input 400."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import model_calls
from ledgerline.cli import main
from ledgerline.http.app import create_app
from tests.conftest import make_tenant, operator_key
from tests.fakes import ControlledExtractor

from .test_report_sql import PRICE, at


@pytest.fixture
def env(tmp_path, migrated_sqlite):
    from ledgerline.bootstrap import bootstrap
    from ledgerline.config import Settings

    url = migrated_sqlite(tmp_path / "api.sqlite3")
    services = bootstrap(Settings(database_url=url, storage_url=f"file://{tmp_path}/objects"),
                         extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    with transaction(services.engine, write=True) as conn:
        conn.execute(model_calls.insert(), [dict(
            operation="extract_invoice", account="acme", job_id="job_x", request_hash=h,
            started_at=at(start), finished_at=at(start + 5), outcome="published", cost=PRICE,
            worker="w", fencing_token=1) for h, start in [("a", 0), ("a", 2), ("b", 100)]])
    yield services, tenant, operator_key(services), url
    services.engine.dispose()


def get(services, key, query):
    client = create_app(services).test_client()
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return client.get(f"/v1/reports/duplicates?{query}", headers=headers)


def test_operators_get_the_day_report(env):
    services, _, operator, _ = env
    resp = get(services, operator, "day=2026-11-29")
    assert resp.status_code == 200
    assert list(resp.json) == ["day", "operations", "spend", "requests"]
    [op] = resp.json["operations"]
    assert list(op)[:9] == ["operation", "calls", "distinct_hashes", "repeat_calls",
                            "repeat_share", "cost", "repeat_cost", "overlapping_calls",
                            "overlapping_cost"]
    assert (op["calls"], op["repeat_calls"], op["overlapping_calls"]) == (3, 1, 2)
    assert op["cost"] == 0.012 and op["overlapping_cost"] == 0.008


def test_a_range_gives_one_row_per_day(env):
    services, _, operator, _ = env
    resp = get(services, operator, "from=2026-11-28&to=2026-11-30")
    assert resp.status_code == 200
    assert resp.json["from"] == "2026-11-28" and resp.json["to"] == "2026-11-30"
    assert [d["day"] for d in resp.json["days"]] == ["2026-11-28", "2026-11-29", "2026-11-30"]
    assert [d["requests"]["model_calls"] for d in resp.json["days"]] == [0, 3, 0]


@pytest.mark.parametrize("query, code", [
    ("day=29.11.2026", "invalid_day"), ("day=2026-02-30", "invalid_day"), ("day=20261129", "invalid_day"),
    ("", "invalid_day"), ("from=2026-01-01", "invalid_day"),
    ("from=2026-01-02&to=2026-01-01", "invalid_range"),
    ("from=2025-01-01&to=2026-01-02", "invalid_range"),
    ("day=2026-11-29&from=2026-11-29&to=2026-11-30", "invalid_range"),
    ("date=2026-11-29", "bad_request"), ("day=2026-11-29&format=table", "bad_request"),
])
def test_bad_days_are_400_problems(env, query, code):
    services, _, operator, _ = env
    resp = get(services, operator, query)
    assert resp.status_code == 400
    assert resp.mimetype == "application/problem+json"
    assert resp.json["code"] == code and resp.json["detail"]


def test_a_full_leap_year_is_the_longest_range(env):
    services, _, operator, _ = env
    assert get(services, operator, "from=2028-01-01&to=2028-12-31").status_code == 200


@pytest.mark.parametrize("role", ["customer", "supplier", "dashboard"])
def test_non_operators_do_not_see_reports(env, role):
    services, tenant, _, _ = env
    resp = get(services, tenant.keys[role], "day=2026-11-29")
    assert resp.status_code == 404 and resp.mimetype == "application/problem+json"


def test_no_key_is_401(env):
    services, *_ = env
    assert get(services, None, "day=2026-11-29").status_code == 401


def test_the_command_line_prints_json_and_tables(env, monkeypatch):
    url = env[3]
    monkeypatch.setenv("LEDGERLINE_DATABASE_URL", url)
    runner = CliRunner()
    out = runner.invoke(main, ["report", "duplicates", "--day", "2026-11-29"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["day"] == "2026-11-29" and doc["operations"][0]["repeat_calls"] == 1
    table = runner.invoke(main, ["report", "duplicates", "--from", "2026-11-28", "--to",
                                 "2026-11-29", "--format", "table"])
    assert table.exit_code == 0, table.output
    assert "extract_invoice" in table.output and "33.3 %" in table.output
    bad = runner.invoke(main, ["report", "duplicates", "--day", "tomorrow"])
    assert bad.exit_code == 2 and "YYYY-MM-DD" in bad.output
