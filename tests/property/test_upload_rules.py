"""Properties of the upload rules, over any sequence of uploads by any caller.

A model of the contract runs beside the real service (SQLite + directory, through HTTP):
- an Idempotency-Key names one operation per (account, caller): the same request under it
  replays the same invoice (200, `Idempotent-Replayed: true`), another request is 422;
- the quoted and the bare form of a key are the same key; another caller's key is another key;
- without a key every upload is a new invoice; a dashboard never uploads (403);
- customers and dashboards list everything in the account, suppliers only their own uploads.
"""
from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings, strategies as st

from ledgerline.domain.identity import Caller, Role
from ledgerline.domain.jobs import (MAX_IDEMPOTENCY_KEY, InvalidIdempotencyKey,
                                    parse_idempotency_key)
from tests.fakes import pdf_bytes
from tests.property.support import UPLOADERS, examples, fresh_account

SF_CHARS = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
TOKEN_CHARS = st.sampled_from("!#$%&'*+-.^_`|~:/0123456789abcdefghijklmnopqrstuvwxyzABCXYZ")


def sf_string(key: str) -> str:
    """RFC 8941 sf-string serialisation."""
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --- parse_idempotency_key ---------------------------------------------------------

@given(st.text(SF_CHARS, min_size=1, max_size=MAX_IDEMPOTENCY_KEY))
def test_any_printable_key_round_trips_through_its_sf_string(key):
    assert parse_idempotency_key(sf_string(key)) == key


@given(st.text(TOKEN_CHARS, min_size=1, max_size=MAX_IDEMPOTENCY_KEY))
def test_a_bare_token_is_the_same_key_as_its_quoted_form(token):
    assert parse_idempotency_key(token) == parse_idempotency_key(sf_string(token)) == token


@given(st.text(SF_CHARS, min_size=MAX_IDEMPOTENCY_KEY + 1, max_size=MAX_IDEMPOTENCY_KEY + 40))
def test_a_key_longer_than_255_characters_is_refused(key):
    for header in (sf_string(key), re.sub(r"[^A-Za-z0-9]", "x", key)):
        try:
            parse_idempotency_key(header)
        except InvalidIdempotencyKey:
            continue
        raise AssertionError(f"accepted a {len(key)}-character key")


@given(st.text(max_size=300))
def test_any_header_value_is_a_key_or_a_clean_refusal(header):
    try:
        key = parse_idempotency_key(header)
    except InvalidIdempotencyKey:
        return
    assert key and len(key) <= MAX_IDEMPOTENCY_KEY
    assert all(0x20 <= ord(c) <= 0x7E for c in key)


# --- grants --------------------------------------------------------------------------

ACCOUNTS = st.sampled_from(["acme", "globex", None])
CALLERS = st.builds(Caller, key_id=st.sampled_from(["key_a", "key_b"]),
                    role=st.sampled_from(list(Role)), account=ACCOUNTS)


@given(CALLERS, st.sampled_from(["acme", "globex"]), st.sampled_from(["key_a", "key_b"]))
def test_a_caller_reads_an_invoice_only_inside_its_own_account_and_grants(caller, account,
                                                                         uploader):
    allowed = caller.may_read_invoice(account, uploader)
    if caller.role is Role.OPERATOR or caller.account != account:
        assert not allowed
    elif caller.role is Role.SUPPLIER:
        assert allowed == (uploader == caller.key_id)
    else:
        assert allowed
    assert not (allowed and not caller.can_enter(account))


# --- the upload sequence, through HTTP ---------------------------------------------

KEYS = st.one_of(st.none(), st.tuples(st.sampled_from(["k1", "k2", "po/4711"]), st.booleans()))
STEP = st.one_of(
    st.tuples(st.just("upload"), st.sampled_from(UPLOADERS + ("dashboard",)), KEYS,
              st.integers(0, 2), st.booleans()),
    st.tuples(st.just("work")))


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=10))
def test_any_upload_sequence_follows_the_idempotency_and_visibility_rules(sqlite_app, steps):
    app = sqlite_app
    account = fresh_account("rules")
    tenant = app.tenant(account)
    operations: dict[tuple, tuple] = {}   # (caller, key) -> (request, invoice id)
    uploaded_by: dict[str, str] = {}      # invoice id -> role that uploaded it
    for step in steps:
        if step[0] == "work":
            app.work()
            continue
        _, role, key, body_no, fresh = step
        header = None if key is None else (f'"{key[0]}"' if key[1] else key[0])
        resp = app.upload(tenant.keys[role], account, pdf_bytes(f"{account}-{body_no}"),
                          key=header, fresh=fresh)
        if role == "dashboard":
            assert resp.status_code == 403 and resp.json["code"] == "forbidden"
            continue
        request = (body_no, fresh)
        earlier = operations.get((role, key[0])) if key else None
        if earlier and earlier[0] == request:
            assert resp.status_code == 200, resp.json
            assert resp.headers["Idempotent-Replayed"] == "true"
            assert resp.json["id"] == earlier[1]
        elif earlier:
            assert resp.status_code == 422 and resp.json["code"] == "idempotency_key_reused"
        else:
            assert resp.status_code in (201, 202), resp.json
            assert "Idempotent-Replayed" not in resp.headers
            assert resp.json["id"] not in uploaded_by
            assert resp.json["uploaded_by"]["key_id"] == app.key_ids[tenant.keys[role]]
            uploaded_by[resp.json["id"]] = role
            if key:
                operations[(role, key[0])] = (request, resp.json["id"])

    everything = set(uploaded_by)
    for role in ("customer", "dashboard"):
        assert set(app.listed_ids(tenant.keys[role], account, limit=3)) == everything
    for role in UPLOADERS[1:]:
        own = {i for i, by in uploaded_by.items() if by == role}
        assert set(app.listed_ids(tenant.keys[role], account, limit=3)) == own
