"""Every Prometheus series the service exports is in the operations page's table."""
from __future__ import annotations

import re

from tests.conftest import REPO

DECLARED = re.compile(r"(?:Counter|Histogram|Gauge|GaugeMetricFamily)\(\s*\"(ledgerline_\w+)\"")


def test_every_series_is_documented():
    names = set()
    for path in (REPO / "service" / "ledgerline").rglob("*.py"):
        names |= set(DECLARED.findall(path.read_text()))
    assert {"ledgerline_http_requests_total", "ledgerline_build_info",
            "ledgerline_webhook_deliveries_total", "ledgerline_queue_depth"} <= names
    page = (REPO / "docs" / "operations.md").read_text()
    table = {m for m in re.findall(r"^\| `(ledgerline_\w+)` \|", page, re.M)}
    assert sorted(names - table) == []
    assert sorted(table - names) == []  # and nothing documented that is gone
