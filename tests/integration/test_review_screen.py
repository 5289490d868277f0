"""The review screen and the dashboard's sign-in over HTTP, on every backend: who may sign in
and what the form says when not, when the cookie is Secure, the queue, the invoice page with
its page image, corrections by form with CSRF and If-Match, and the same authorisation as the
API."""
from __future__ import annotations

import re

import pytest

from ledgerline.http.app import create_app
from ledgerline_tools.samples import generate
from tests.conftest import make_tenant, operator_key
from tests.integration.test_corrections import Env
from tests.integration.test_rechecks import CheckedExtractor

PDF = generate(1)[0]


@pytest.fixture
def env(make_services):
    # A correct total read from the page, but an IBAN that fails its checksum: to review.
    env = Env(make_services(extractor=CheckedExtractor(iban="DE00370400440532013000")))
    env.invoice_id = env.completed("supplier", PDF)
    return env


def sign_in(client, key, base="http://localhost", **headers):
    return client.post("/dashboard/login", data={"key": key}, base_url=base, headers=headers)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_a_failed_sign_in_says_why(env):
    client = env.client
    assert "Enter an API key." in sign_in(client, "").text
    unknown = sign_in(client, "llk_not_a_key")
    assert unknown.status_code == 401 and "unknown, revoked or expired" in unknown.text
    supplier = sign_in(client, env.acme.keys["supplier"])
    assert supplier.status_code == 401 and "A supplier key cannot sign in" in supplier.text
    assert "Set-Cookie" not in supplier.headers


@pytest.mark.parametrize("base, headers, setting, secure", [
    ("http://ledgerline.internal", {}, False, False),
    ("https://ledgerline.example", {}, False, True),
    ("http://ledgerline.internal", {"X-Forwarded-Proto": "https"}, False, True),
    ("http://ledgerline.internal", {}, True, True),
])
def test_the_cookie_is_secure_when_the_request_is_https_or_the_setting_says(
        make_services, base, headers, setting, secure):
    services = make_services(trusted_proxy_hops=1, dashboard_secure_cookie=setting)
    client = create_app(services).test_client()
    resp = sign_in(client, operator_key(services), base=base, **headers)
    assert resp.status_code == 303
    assert ("; Secure" in resp.headers["Set-Cookie"]) is secure
    # The session works on the next request over the same scheme.
    assert client.get("/dashboard", base_url=base, headers=headers).status_code == 200


def test_a_customer_works_the_queue_and_corrects_a_field(env):
    client = env.client
    resp = sign_in(client, env.acme.keys["customer"])
    assert resp.status_code == 303 and resp.headers["Location"] == "/dashboard/review"
    assert client.get("/dashboard").headers["Location"] == "/dashboard/review"
    assert client.get("/dashboard/review").headers["Location"] == "/dashboard/review/acme"
    queue = client.get("/dashboard/review/acme")
    assert queue.status_code == 200
    assert "unsafe-inline" not in queue.headers["Content-Security-Policy"]
    assert "<style" not in queue.text and "style=" not in queue.text
    assert f'data-invoice="{env.invoice_id}"' in queue.text
    assert "LL-IBAN failed: IBAN fails its checksum" in queue.text

    page = client.get(f"/dashboard/review/acme/invoices/{env.invoice_id}")
    assert page.status_code == 200
    assert 'class="box failing" data-field="iban"' in page.text  # its box, drawn on the page
    assert re.search(r'<li class="check-fail" data-rule="LL-IBAN">', page.text)
    image = client.get(f"/dashboard/review/acme/invoices/{env.invoice_id}/pages/1.png")
    assert image.status_code == 200 and image.data.startswith(b"\x89PNG")
    assert client.get(f"/dashboard/review/acme/invoices/{env.invoice_id}/pages/2.png"
                      ).status_code == 404

    form = {"field": "iban", "value": "DE89370400440532013000", "version": "0"}
    refused = client.post(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                          data={**form, "csrf": "forged"})
    assert refused.status_code == 403
    cross = client.post(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                        data={**form, "csrf": csrf_of(page.text)},
                        headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403
    done = client.post(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                       data={**form, "csrf": csrf_of(page.text)})
    assert done.status_code == 303
    after = client.get(f"/dashboard/review/acme/invoices/{env.invoice_id}").text
    assert '<li class="check-pass" data-rule="LL-IBAN">' in after
    assert "Nothing waits for review." in client.get("/dashboard/review/acme").text
    # The form of a version since corrected changes nothing and says why.
    stale = client.post(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                        data={**form, "value": "DE00370400440532013000",
                              "csrf": csrf_of(page.text)})
    assert stale.status_code == 412 and "current version" in stale.text
    # The script's PATCH: the API's body and If-Match, with the session's CSRF token.
    patch = client.patch(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                         json={"fields": {"purchase_order": "PO-9"}},
                         headers={"If-Match": '"1"', "X-CSRF-Token": csrf_of(after)})
    assert patch.status_code == 200 and patch.headers["ETag"] == '"2"'
    no_token = client.patch(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                            json={"fields": {"purchase_order": "PO-10"}})
    assert no_token.status_code == 403


def test_the_screen_grants_what_the_api_grants(env):
    globex = make_tenant(env.services, "globex")
    other = create_app(env.services).test_client()
    sign_in(other, globex.keys["customer"])
    for path in (f"/dashboard/review/acme/invoices/{env.invoice_id}",
                 f"/dashboard/review/acme/invoices/{env.invoice_id}/pages/1.png",
                 "/dashboard/review/acme"):
        assert other.get(path).status_code == 404
    viewer = create_app(env.services).test_client()
    sign_in(viewer, env.acme.keys["dashboard"])
    page = viewer.get(f"/dashboard/review/acme/invoices/{env.invoice_id}")
    assert page.status_code == 200 and "field-form" not in page.text  # it reads, never writes
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
    denied = viewer.patch(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                          json={"fields": {"iban": None}}, headers={"X-CSRF-Token": token})
    assert denied.status_code == 403
    anonymous = create_app(env.services).test_client()
    assert anonymous.get("/dashboard/review/acme").headers["Location"] == "/dashboard"
    assert anonymous.get(f"/dashboard/review/acme/invoices/{env.invoice_id}/pages/1.png"
                         ).status_code == 303
    bearer = anonymous.get("/dashboard/review/acme",
                           headers={"Authorization": f"Bearer {env.acme.keys['customer']}"})
    assert bearer.status_code == 200


def test_the_report_collapses_runs_of_empty_days(env):
    operator = operator_key(env.services)
    html = env.client.get("/dashboard", headers={"Authorization": f"Bearer {operator}"}).text
    table = html[html.index('<table id="days">'):]
    table = table[:table.index("</table>")]
    rows = table.count("<tr>") + table.count('<tr class="empty-days">') - 1  # minus the head
    assert rows == 2  # today's upload, then one row for 29 days without any
    assert "29 days without uploads" in table


def test_the_operator_dashboard_counts_copies_of_a_file_per_account(env):
    env.upload("customer", PDF)  # the supplier's file again, from another party
    operator = operator_key(env.services)
    html = env.client.get("/dashboard", headers={"Authorization": f"Bearer {operator}"}).text
    table = html[html.index('<table id="review-queue">'):]
    row = table[table.index("<tr><td>acme</td>"):]
    row = row[:row.index("</tr>")]
    assert row.count('<td class="n">') == 2 and row.endswith('<td class="n">1</td>')


def test_a_credit_note_is_marked_as_one(env):
    from tests.bulk_invoices import insert_completed

    customer = env.acme.caller(env.services, "customer").key_id
    [credit] = insert_completed(env.services.engine, "acme", customer, 1, credit_every=1)
    headers = {"Authorization": f"Bearer {env.acme.keys['customer']}"}
    page = env.client.get(f"/dashboard/review/acme/invoices/{credit}", headers=headers).text
    assert 'id="credit-note">credit note</span>' in page
    plain = env.client.get(f"/dashboard/review/acme/invoices/{env.invoice_id}",
                           headers=headers).text
    assert 'id="credit-note"' not in plain
