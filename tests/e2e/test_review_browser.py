"""The review screen in a real headless browser (Debian `chromium` + `chromium-driver`), on
every backend: a customer signs in, opens the queue, goes to a field by its box on the page,
corrects it by keyboard (Enter sends a PATCH with If-Match), sees its check turn green and the
invoice leave the queue. Screenshots are kept (LEDGERLINE_SCREENSHOT_DIR)."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from ledgerline.http.app import create_app
from ledgerline_tools.samples import generate
from tests.e2e.test_dashboard_browser import CHROMEDRIVER, CHROMIUM, browser, sign_in  # noqa: F401
from tests.integration.test_corrections import Env
from tests.integration.test_rechecks import CheckedExtractor

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
    reason="needs Debian chromium and chromium-driver (apt-get install chromium chromium-driver)")
BAD_IBAN, GOOD_IBAN = "DE00370400440532013000", "DE89370400440532013000"


@pytest.fixture
def service(make_services):
    """Two invoices waiting for review (an IBAN that fails its checksum), served on a socket."""
    from werkzeug.serving import make_server

    env = Env(make_services(extractor=CheckedExtractor(iban=BAD_IBAN)))
    older = env.completed("supplier", generate(1)[0])
    # another seller: the two bill different things (no possible duplicate to review)
    env.patch("customer", older, {"fields": {"seller_name": "Älteste Lieferungen GmbH"}})
    newer = env.completed("supplier", generate(2)[0])
    server = make_server("127.0.0.1", 0, create_app(env.services), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_port}", env, newer, older
    server.shutdown()
    thread.join(5)


def _keep(browser, tmp_path, name: str) -> None:
    keep = Path(os.environ.get("LEDGERLINE_SCREENSHOT_DIR", tmp_path))
    keep.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(keep / f"{name}.png"))


def test_a_customer_corrects_an_invoice_by_keyboard_and_it_leaves_the_queue(
        service, browser, tmp_path, backend):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    base, env, newer, older = service
    from selenium.common.exceptions import StaleElementReferenceException

    # the page reloads under the test after each correction
    wait = WebDriverWait(browser, 15, ignored_exceptions=(StaleElementReferenceException,))
    sign_in(browser, base, env.acme.keys["customer"])
    wait.until(lambda b: b.current_url == f"{base}/dashboard/review/acme")
    rows = browser.find_elements(By.CSS_SELECTOR, "#queue tbody tr[data-invoice]")
    assert [r.get_attribute("data-invoice") for r in rows] == [newer, older]  # newest first
    assert "LL-IBAN failed" in rows[0].text
    _keep(browser, tmp_path, f"review-queue-{backend.name}")

    rows[0].find_element(By.CSS_SELECTOR, "a.open").click()
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#fields"))
    check = browser.find_element(By.CSS_SELECTOR, 'li[data-rule="LL-IBAN"]')
    assert "check-fail" in check.get_attribute("class")
    # The page is drawn, with the IBAN's box on it: a click on the box goes to the field.
    image = browser.find_element(By.CSS_SELECTOR, "svg.page image")
    assert browser.execute_script(
        "return fetch(arguments[0].getAttribute('href')).then(r => r.status)", image) == 200
    box = browser.find_element(By.CSS_SELECTOR, 'rect.box[data-field="iban"]')
    assert "failing" in box.get_attribute("class")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    box.click()
    field = browser.switch_to.active_element
    assert field.get_attribute("id") == "field-iban"
    _keep(browser, tmp_path, f"review-invoice-before-{backend.name}")

    # Escape puts the value back; typing and Enter saves it.
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("nonsense", Keys.ESCAPE)
    assert browser.find_element(By.ID, "field-iban").get_attribute("value") == BAD_IBAN
    field = browser.find_element(By.ID, "field-iban")
    field.click()
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(GOOD_IBAN, Keys.ENTER)
    wait.until(lambda b: "check-pass" in b.find_element(
        By.CSS_SELECTOR, 'li[data-rule="LL-IBAN"]').get_attribute("class"))
    assert browser.find_element(By.ID, "review-state").text == "not_required"
    assert browser.find_element(By.ID, "field-iban").get_attribute("value") == GOOD_IBAN
    assert env.invoice("customer", newer).json["version"] == 1
    _keep(browser, tmp_path, f"review-invoice-after-{backend.name}")

    # Tab goes on to the next field, Escape leaves it, and "n" opens the next invoice.
    from selenium.webdriver.common.action_chains import ActionChains

    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("id") == "field-net_total"
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    ActionChains(browser).send_keys("n").perform()
    wait.until(lambda b: b.current_url.endswith(f"/invoices/{older}"))

    browser.get(f"{base}/dashboard/review/acme")
    remaining = browser.find_elements(By.CSS_SELECTOR, "#queue tbody tr[data-invoice]")
    assert [r.get_attribute("data-invoice") for r in remaining] == [older]
    _keep(browser, tmp_path, f"review-queue-after-{backend.name}")
