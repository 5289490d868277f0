"""The operator dashboard in a real headless browser (Debian `chromium` + `chromium-driver`):
sign in through the form, see the charts drawn with data, and keep the key in a strict cookie."""
from __future__ import annotations

import io
import os
import shutil
import threading
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerline.adapters.db.migrate import upgrade
from ledgerline.bootstrap import bootstrap
from ledgerline.config import Settings
from ledgerline.http import charts
from ledgerline.http.app import create_app
from ledgerline_tools.synthetic_day import Shape, generate, synthetic_caller, write
from tests.conftest import make_tenant, operator_key
from tests.fakes import ControlledExtractor

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SERIES = [charts.UNIQUE, charts.REPEAT, charts.OVERLAP, charts.SPENT, charts.AVOIDED,
          charts.WOULD_BE, charts.HIT_RATE]

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
    reason="needs Debian chromium and chromium-driver (apt-get install chromium chromium-driver)")


@pytest.fixture
def service(tmp_path):
    """The app on a real HTTP socket, with a month of generated traffic in its database."""
    from werkzeug.serving import make_server

    url = f"sqlite:///{tmp_path}/dashboard.sqlite3"
    upgrade(url)
    services = bootstrap(Settings(database_url=url, storage_url=f"file://{tmp_path}/objects"),
                         extractor=ControlledExtractor())
    tenant = make_tenant(services, "acme")
    caller = synthetic_caller(services.engine, "synthetic")
    today = datetime.now(timezone.utc).date()
    for back in range(1, 29):
        shadow = back > 14  # the older half before the cache was trusted
        calls = 300 + 11 * (back % 7) * 10
        shape = (Shape(calls=calls, repeats=calls * 15 // 100, overlapping_pairs=calls // 60,
                       shadow=True) if shadow else
                 Shape(calls=calls, repeats=3, bypass=3, hits=calls * 12 // 100,
                       joined=calls // 100))
        write(services.engine, generate(today - timedelta(days=back), shape,
                                        price=Decimal("0.004"), account="synthetic",
                                        caller_id=caller, seed=back))
    server = make_server("127.0.0.1", 0, create_app(services), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_port}", tenant, operator_key(services)
    server.shutdown()
    thread.join(5)
    services.engine.dispose()


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 "--window-size=1280,1900", "--hide-scrollbars", "--force-device-scale-factor=1",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def sign_in(browser, base: str, key: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{base}/dashboard")
    field = browser.find_element(By.ID, "key")
    field.clear()
    field.send_keys(key)
    browser.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()


def coloured_pixels(png: bytes) -> dict[str, int]:
    """How many pixels of each series colour an image holds (within a little tolerance)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    targets = {c: tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in SERIES}
    counts = dict.fromkeys(SERIES, 0)
    for count, rgb in image.getcolors(maxcolors=1 << 20):
        for colour, target in targets.items():
            if all(abs(a - b) <= 6 for a, b in zip(rgb, target)):
                counts[colour] += count
    return counts


def test_an_operator_signs_in_and_sees_the_month_charted(service, browser, tmp_path):
    from selenium.webdriver.common.by import By

    base, tenant, operator = service
    sign_in(browser, base, tenant.keys["supplier"])
    assert "A supplier key cannot sign in" in browser.find_element(By.CSS_SELECTOR, ".error").text
    assert browser.get_cookies() == []

    sign_in(browser, base, operator)
    assert browser.current_url == f"{base}/dashboard"
    assert "duplicate work" in browser.title
    [cookie] = browser.get_cookies()
    assert cookie["name"] == "ledgerline_operator"
    # Plain http: a Secure cookie would be one the browser keeps from pages served over http
    # only on localhost; the cookie is Secure on https (tests/integration/test_review_screen).
    assert cookie["httpOnly"] and not cookie["secure"] and cookie["sameSite"] == "Strict"
    assert cookie["path"] == "/dashboard"

    rows = browser.find_elements(By.CSS_SELECTOR, "#operations tbody tr")
    assert [r.find_element(By.TAG_NAME, "td").text for r in rows] == ["extract_invoice"]
    # 28 days with traffic; today and a day without uploads each as one row
    assert len(browser.find_elements(By.CSS_SELECTOR, "#days tbody tr")) == 30

    screenshot = browser.get_screenshot_as_png()
    keep = Path(os.environ.get("LEDGERLINE_SCREENSHOT_DIR", tmp_path))
    keep.mkdir(parents=True, exist_ok=True)
    (keep / "dashboard.png").write_bytes(screenshot)

    calls = coloured_pixels(browser.find_element(By.ID, "calls-chart").screenshot_as_png)
    assert calls[charts.UNIQUE] > 5_000, calls        # every day has unique calls
    assert calls[charts.REPEAT] > 1_000, calls        # the shadow half repeats 15 %
    assert calls[charts.OVERLAP] > 20, calls          # and some of it overlapped
    cost = coloured_pixels(browser.find_element(By.ID, "cost-chart").screenshot_as_png)
    assert min(cost[charts.SPENT], cost[charts.AVOIDED], cost[charts.WOULD_BE]) > 300, cost
    rate = coloured_pixels(browser.find_element(By.ID, "hit-rate-chart").screenshot_as_png)
    assert rate[charts.HIT_RATE] > 200, rate

    from selenium.webdriver.support.ui import WebDriverWait

    browser.find_element(By.CSS_SELECTOR, "header form button[type=submit]").click()
    # The click returns before the next page has loaded: wait for the sign-in form.
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.ID, "key"))
    assert browser.get_cookies() == []
