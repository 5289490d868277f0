"""The language registry (ledgerline.extraction.languages) and everything else that names the
languages agree: the vocabulary's modules, the sample generator's, and the Tesseract data the
image and the development machine install. Adding a language and forgetting one of them fails
here, naming it."""
from __future__ import annotations

import re
from pathlib import Path

import ledgerline.extraction.vocabulary as vocabulary
import ledgerline_tools.samples.languages as sample_languages
from ledgerline.extraction.languages import (
    BY_SCRIPT,
    CODES,
    LANGUAGES,
    SCRIPT_CODES,
    VOCABULARY_ORDER,
)
from ledgerline_tools.samples.languages import LANGUAGES as SAMPLE_LANGUAGES
from tests.conftest import REPO


def _modules(package) -> set[str]:
    return {p.stem for p in Path(package.__file__).parent.glob("*.py")} - {"__init__"}


def test_every_language_has_a_vocabulary_module_and_every_module_a_language():
    assert _modules(vocabulary) - {"common"} == set(CODES) | set(SCRIPT_CODES)
    assert sorted(VOCABULARY_ORDER) == sorted(CODES + SCRIPT_CODES)
    assert not set(CODES) & set(SCRIPT_CODES)


def test_the_languages_read_by_script_are_not_given_to_every_pages_reading():
    from ledgerline.extraction.ocr.options import CJK_TESSERACT_LANGUAGES, OcrOptions

    every_page = OcrOptions().tesseract_languages.split("+")
    assert not {language.tesseract for language in BY_SCRIPT.values()} & set(every_page)
    assert CJK_TESSERACT_LANGUAGES.split("+") == [
        *(language.tesseract for language in BY_SCRIPT.values()), "eng"]


def test_the_sample_generator_writes_exactly_the_registrys_languages():
    assert _modules(sample_languages) - {"base"} == set(CODES)
    assert list(SAMPLE_LANGUAGES) == list(CODES)
    assert {code: language.code for code, language in SAMPLE_LANGUAGES.items()} == {
        code: code for code in CODES}


def test_the_image_and_the_system_dependencies_install_every_languages_tesseract_data():
    wanted = {language.tesseract for language in [*LANGUAGES.values(), *BY_SCRIPT.values()]}
    wanted |= {"osd"}
    dockerfile = (REPO / "Dockerfile").read_text()
    # Debian's package names write "_" as "-": chi_sim is tesseract-ocr-chi-sim
    packaged = {name.replace("-", "_") for name in re.findall(r"tesseract-ocr-([a-z-]+)", dockerfile)}
    assert wanted <= packaged
    script = (REPO / "scripts" / "install-system-deps").read_text()
    listed = re.search(r"^OCR_LANGUAGES=\(([^)]*)\)", script, re.M)
    assert listed and wanted == set(listed.group(1).split())


def test_sample_invoice_offers_every_language_in_its_help():
    from ledgerline_tools.commands import sample_invoice

    offered = next(option.help for option in sample_invoice.params if option.name == "lang")
    assert re.split(r", | or ", offered) == list(CODES)
