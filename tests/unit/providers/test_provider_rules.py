"""The rules about paid calls: cost, idempotency tokens, throttling, the shadow sample."""
from __future__ import annotations

import re
from decimal import Decimal

import pytest

from ledgerline.config import ConfigError, Settings
from ledgerline.domain.providers import (Agreement, Provider, client_request_token,
                                         compare_fields, image_tokens, in_shadow_sample,
                                         page_cost, throttle_delay, token_cost)


def test_cost_is_usage_times_the_configured_prices():
    assert token_cost(1_000_000, 0, input_per_mtok=Decimal("0.15"),
                      output_per_mtok=Decimal("0.60")) == Decimal("0.150000")
    assert token_cost(1200, 300, input_per_mtok=Decimal("0.15"),
                      output_per_mtok=Decimal("0.60")) == Decimal("0.000360")
    assert page_cost(3, Decimal("0.01")) == Decimal("0.030000")


def test_a_page_image_is_estimated_at_the_published_high_detail_rate():
    assert image_tokens(1024, 1024) == 765     # 768 x 768: 4 tiles
    assert image_tokens(2048, 4096) == 1105    # 1024 x 2048, then 768 x 1536: 6 tiles
    assert image_tokens(1241, 1754) == 1105    # an A4 page at 150 dpi
    assert image_tokens(300, 200) == 255       # small: one tile, never scaled up


def test_the_idempotency_token_belongs_to_the_job_not_the_attempt():
    token = client_request_token("job_abc", Provider.TEXTRACT)
    assert token == client_request_token("job_abc", Provider.TEXTRACT)  # every attempt
    assert token != client_request_token("job_abd", Provider.TEXTRACT)  # another job
    assert re.fullmatch(r"[a-zA-Z0-9-_]{1,64}", token)  # what Textract accepts


def test_throttling_waits_what_the_provider_asked_for_or_backs_off_capped():
    assert throttle_delay(1, retry_after=7.0) == 7.0
    assert [throttle_delay(n) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    assert throttle_delay(20) == throttle_delay(1, retry_after=3600) == 60.0


def test_fields_are_compared_exactly():
    serving = {"a": {"value": "100.00"}, "b": {"value": "X"}, "c": {"value": None},
               "d": {"value": "1"}, "e": {"value": None}}
    candidate = {"a": {"value": "100.00"}, "b": {"value": "x"}, "c": {"value": "2"},
                 "d": {"value": None}, "e": {"value": None}}
    assert compare_fields(serving, candidate, "abcde") == {
        "a": Agreement.AGREE, "b": Agreement.DIFFER, "c": Agreement.ONLY_CANDIDATE,
        "d": Agreement.ONLY_SERVING, "e": Agreement.NEITHER}


def test_the_shadow_sample_is_stable_per_job_and_about_the_rate():
    jobs = [f"job_{i:06d}" for i in range(4000)]
    picked = [j for j in jobs if in_shadow_sample(j, 0.1)]
    assert 300 < len(picked) < 500
    assert picked == [j for j in jobs if in_shadow_sample(j, 0.1)]
    assert not any(in_shadow_sample(j, 0.0) for j in jobs[:100])
    assert all(in_shadow_sample(j, 1.0) for j in jobs[:100])


def test_provider_settings_have_the_binding_names_and_defaults(tmp_path):
    settings = Settings.from_env({})
    assert settings.provider is Provider.RULES and settings.shadow_provider is None
    assert settings.textract_price_per_page == Decimal("0.01")
    key_file = tmp_path / "key"
    key_file.write_text("sk-from-file\n")
    chat = Settings.from_env({
        "LEDGERLINE_PROVIDER": "openai", "LEDGERLINE_OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        "LEDGERLINE_OPENAI_API_KEY_FILE": str(key_file), "LEDGERLINE_OPENAI_MODEL": "m",
        "LEDGERLINE_OPENAI_PRICE_INPUT_PER_MTOK": "2.5",
        "LEDGERLINE_OPENAI_PRICE_OUTPUT_PER_MTOK": "10", "LEDGERLINE_SHADOW_PROVIDER": "textract",
        "LEDGERLINE_SHADOW_SAMPLE_RATE": "0.25"})
    assert chat.openai_key() == "sk-from-file"
    assert (chat.openai_price_input_per_mtok, chat.shadow_provider, chat.shadow_sample_rate) == (
        Decimal("2.5"), Provider.TEXTRACT, 0.25)


@pytest.mark.parametrize("env, message", [
    ({"LEDGERLINE_PROVIDER": "gpt"}, "must be one of: rules, textract, openai"),
    ({"LEDGERLINE_PROVIDER": "openai"}, "needs LEDGERLINE_OPENAI_API_KEY"),
    ({"LEDGERLINE_SHADOW_SAMPLE_RATE": "1.5"}, "a share between 0 and 1"),
    ({"LEDGERLINE_TEXTRACT_PRICE_PER_PAGE": "-1"}, "0 or more"),
    ({"LEDGERLINE_SHADOW_PROVIDER": "rules"}, "must differ"),
])
def test_bad_provider_settings_stop_with_one_line(env, message):
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)


def test_a_secret_is_never_echoed_in_a_configuration_error():
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"LEDGERLINE_OPENAI_API_KEY_FILE": "/nonexistent/sk-secret"})
    assert "sk-secret" not in str(error.value)


def test_every_provider_setting_but_the_secret_changes_the_configuration_digest(monkeypatch):
    from ledgerline.bootstrap import configured_extractor

    base = {"LEDGERLINE_PROVIDER": "openai", "LEDGERLINE_OPENAI_API_KEY": "sk-one",
            "LEDGERLINE_OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}

    def digest(**more):
        settings = Settings.from_env({**base, **more})
        return configured_extractor(settings).versions.model_config_digest

    first = digest()
    assert digest(LEDGERLINE_OPENAI_API_KEY="sk-two") == first
    for name, value in [("LEDGERLINE_OPENAI_MODEL", "other"),
                        ("LEDGERLINE_OPENAI_BASE_URL", "http://127.0.0.1:2/v1"),
                        ("LEDGERLINE_OPENAI_PAGES_PER_CALL", "2"),
                        ("LEDGERLINE_OPENAI_VISION", "1"),
                        ("LEDGERLINE_OPENAI_PRICE_INPUT_PER_MTOK", "9"),
                        ("LEDGERLINE_EMBEDDED_XML", "0")]:
        assert digest(**{name: value}) != first, name
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    textract = configured_extractor(Settings.from_env({"LEDGERLINE_PROVIDER": "textract"}))
    priced = configured_extractor(Settings.from_env({
        "LEDGERLINE_PROVIDER": "textract", "LEDGERLINE_TEXTRACT_PRICE_PER_PAGE": "0.015"}))
    assert textract.versions.model_config_digest != priced.versions.model_config_digest
    assert textract.versions.model == "textract:textract-analyze-expense"
