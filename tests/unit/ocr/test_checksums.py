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


def test_a_zero_between_capital_letters_of_an_identifier_is_the_letter_o():
    assert repaired("INV NO: P0S01/00012379") == "INV NO: POS01/00012379"
    assert repaired("Ref: AB0CD-17") == "Ref: ABOCD-17"


def test_zeros_beside_digits_in_lower_case_words_and_in_postcodes_stay_zeros():
    assert repaired("Invoice INV20233460") == "Invoice INV20233460"  # beside digits
    assert repaired("Ab0Cd 12") == "Ab0Cd 12"  # a word with lower-case letters is no code
    assert repaired("Ottawa ON K0A 1B0") == "Ottawa ON K0A 1B0"  # letters and digits alternate
    assert repaired("Ref: NL004495445B01") == "Ref: NL004495445B01"  # B, then a digit
