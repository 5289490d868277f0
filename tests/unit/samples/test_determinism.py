"""The same seed gives the same bytes; nothing in the file depends on the clock."""

from __future__ import annotations

import pytest

from ledgerline_tools.samples import TEMPLATE_NAMES, generate


@pytest.mark.parametrize("template", TEMPLATE_NAMES)
def test_same_seed_gives_byte_identical_pdf_and_truth(template):
    first = generate(11, lang="de", template=template)
    second = generate(11, lang="de", template=template)
    assert first[0] == second[0]
    assert first[1] == second[1]


def test_different_seeds_give_different_invoices():
    numbers = {generate(seed, lang="fr", template="letterhead")[1]["invoice_number"]
               for seed in range(8)}
    assert len(numbers) > 4


def test_a_drawn_language_and_template_equal_asking_for_them():
    pdf, truth = generate(23)
    lang, template = truth["_generator"]["lang"], truth["_generator"]["template"]
    assert generate(23, lang=lang, template=template)[0] == pdf


def test_the_file_carries_no_creation_time_and_its_id_is_a_digest_of_the_content():
    pdf, _ = generate(5, lang="en", template="footer_seller")
    assert b"/CreationDate (D:20000101000000+00'00')" in pdf   # reportlab's invariant date
    other, _ = generate(6, lang="en", template="footer_seller")
    file_id = pdf[pdf.index(b"/ID"):].split(b"]")[0]
    assert file_id not in other   # not a constant, yet the same bytes for the same seed


def test_unknown_language_and_template_are_refused_by_name():
    with pytest.raises(KeyError, match="unknown language 'xx'"):
        generate(1, lang="xx")
    with pytest.raises(KeyError, match="unknown template 'fancy'"):
        generate(1, template="fancy")
