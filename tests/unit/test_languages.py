"""The language registry (ledgerline.extraction.languages) and everything else that names the
languages agree: the vocabulary's modules, the sample generator's, and the Tesseract data the
image and the development machine install. Adding a language and forgetting one of them fails
here, naming it."""
from __future__ import annotations

import re
from pathlib import Path

import ledgerline.extraction.vocabulary as vocabulary
import ledgerline_tools.samples.languages as sample_languages
from ledgerline.extraction.languages import CODES, LANGUAGES, VOCABULARY_ORDER
from ledgerline_tools.samples.languages import LANGUAGES as SAMPLE_LANGUAGES
from tests.conftest import REPO


def _modules(package) -> set[str]:
    return {p.stem for p in Path(package.__file__).parent.glob("*.py")} - {"__init__"}


def test_every_language_has_a_vocabulary_module_and_every_module_a_language():
    assert _modules(vocabulary) - {"common"} == set(CODES)
    assert sorted(VOCABULARY_ORDER) == sorted(CODES)


def test_the_sample_generator_writes_exactly_the_registrys_languages():
    assert _modules(sample_languages) - {"base"} == set(CODES)
    assert list(SAMPLE_LANGUAGES) == list(CODES)
    assert {code: language.code for code, language in SAMPLE_LANGUAGES.items()} == {
        code: code for code in CODES}


def test_the_image_and_the_system_dependencies_install_every_languages_tesseract_data():
    wanted = {language.tesseract for language in LANGUAGES.values()} | {"osd"}
    dockerfile = (REPO / "Dockerfile").read_text()
    assert wanted <= set(re.findall(r"tesseract-ocr-([a-z_]+)", dockerfile))
    script = (REPO / "scripts" / "install-system-deps").read_text()
    listed = re.search(r"^OCR_LANGUAGES=\(([^)]*)\)", script, re.M)
    assert listed and wanted == set(listed.group(1).split())


def test_sample_invoice_offers_every_language_in_its_help():
    from ledgerline_tools.commands import sample_invoice

    offered = next(option.help for option in sample_invoice.params if option.name == "lang")
    assert re.split(r", | or ", offered) == list(CODES)
