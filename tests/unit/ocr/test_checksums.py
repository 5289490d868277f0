"""A VAT id or IBAN that OCR misread by one confusable character, and that fails its checksum,
is read as the one valid identifier it can have been."""
from __future__ import annotations

from ledgerline.extraction.model import Line
from ledgerline.extraction.ocr.checksums import repair_line


def repaired(text: str) -> str:
    line = Line(1, 0, 0, 100, 10, text, [(k, k + 1) for k in range(len(text))],
                confidences=[0.9] * len(text))
    repair_line(line)
    assert len(line.text) == len(text) == len(line.chars)
    return line.text


def test_a_letter_read_as_a_digit_is_put_back_where_only_that_passes_the_checksum():
    assert repaired("VAT Registration Number: IE56435400") == "VAT Registration Number: IE5643540O"
    assert repaired("IBAN: FI33 3280 2333 3671 I5") == "IBAN: FI33 3280 2333 3671 15"


def test_valid_and_unknown_identifiers_are_left_as_read():
    assert repaired("USt-IdNr.: DE171138099") == "USt-IdNr.: DE171138099"
    assert repaired("IBAN: FI33 3280 2333 3671 15") == "IBAN: FI33 3280 2333 3671 15"
    assert repaired("Invoice INV20233460") == "Invoice INV20233460"


def test_an_identifier_no_single_confusion_makes_valid_stays_as_read():
    assert repaired("USt-IdNr.: DE171138098") == "USt-IdNr.: DE171138098"
