"""Every language file is complete and its phrases keep their placeholders."""

from __future__ import annotations

import pytest

from ledgerline_tools.samples.languages import LANGUAGE_CODES, LANGUAGES, PLACEHOLDERS, WORD_KEYS


@pytest.mark.parametrize("code", LANGUAGE_CODES)
def test_language_defines_every_word_with_its_placeholders(code):
    lang = LANGUAGES[code]
    for key in WORD_KEYS:
        assert lang.words.get(key), f"{code}: {key} missing"
        for option in lang.words[key]:
            for placeholder in PLACEHOLDERS.get(key, ()):
                assert placeholder in option, f"{code}: {key} option {option!r}"
    for country in lang.countries:
        for key, options in country.words.items():
            assert key in WORD_KEYS and options, f"{code}/{country.code}: {key}"
    assert {item.unit for item in lang.items} <= set(lang.units)
    assert len({item.name for item in lang.items}) == len(lang.items) >= 20


@pytest.mark.parametrize("code", LANGUAGE_CODES)
def test_signatures_are_two_labels(code):
    for option in LANGUAGES[code].words["signatures"]:
        assert len(option.split("|")) == 2
