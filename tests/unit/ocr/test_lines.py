"""Tesseract's words become lines of the positioned-text model as a text layer's would be: cells
split at wide gaps and at a table's vertical rules, which are no text."""
from __future__ import annotations

from ledgerline.extraction.ocr.engine import PageResult, Word
from ledgerline.extraction.ocr.lines import page_from_result

DPI = 72  # one pixel a point: boxes read as they are written
LINE_BOX = (0, 100, 600, 120)


def word(text: str, left: int, confidence: float = 0.95) -> Word:
    """A word of 8-pixel characters starting at ``left`` on the one text line."""
    symbols = [(ch, left + 8 * k, left + 8 * k + 7) for k, ch in enumerate(text)]
    return Word(text, confidence, (left, 102, left + 8 * len(text) - 1, 118), 0, LINE_BOX,
                symbols)


def cells(*words: Word) -> list[str]:
    page = page_from_result(PageResult(list(words), 600, 800, 0, 0.0, None), 1, DPI)
    return [line.text for line in page.lines]


def test_a_rule_between_two_words_ends_a_cell_however_narrow_the_gap():
    assert cells(word("Delhi,", 10), word("|", 70), word("0001/25-26", 90)) == [
        "Delhi,", "0001/25-26"]


def test_a_rule_glued_to_a_value_is_dropped_and_ends_the_cell():
    assert cells(word("Delhi,", 10), word("|0001/25-26", 70)) == ["Delhi,", "0001/25-26"]
    assert cells(word("1.00!", 10), word("Pcs.", 60)) == ["1.00", "Pcs."]
    assert cells(word("1.00]", 10), word("NA.", 60)) == ["1.00", "NA."]


def test_the_characters_of_a_value_keep_their_places_without_the_rule():
    page = page_from_result(PageResult([word("|0001", 10)], 600, 800, 0, 0.0, None), 1, DPI)
    (line,) = page.lines
    assert line.text == "0001" and line.x0 == 18 and line.chars[0] == (18, 25)


def test_punctuation_beside_letters_is_text():
    assert cells(word("Thanks!", 10)) == ["Thanks!"]
    assert cells(word("[Seller", 10), word("name]", 74)) == ["[Seller name]"]
    assert cells(word("[2]", 10)) == ["[2]"]


def test_without_a_rule_cells_split_at_wide_gaps_only():
    assert cells(word("Total", 10), word("due", 58)) == ["Total due"]
    assert cells(word("Total", 10), word("12.00", 200)) == ["Total", "12.00"]


def test_a_number_grouped_by_thin_spaces_gets_back_the_space_ocr_dropped():
    assert cells(word("1543", 10), word("622,19", 50)) == ["1 543 622,19"]
    assert cells(word("€12345", 10), word("622.00", 64)) == ["€12 345 622.00"]


def test_a_number_followed_by_anything_but_a_group_stays_as_read():
    assert cells(word("2024", 10), word("117", 50)) == ["2024 117"]
    assert cells(word("1543", 10), word("62,19", 50)) == ["1543 62,19"]
    assert cells(word("INV1543", 10), word("622,19", 80)) == ["INV1543 622,19"]
    assert cells(word("1500", 10), word("100,00", 58)) == ["1500 100,00"]  # a column apart


def test_words_of_han_or_kana_are_joined_without_spaces_as_a_text_layer_has_them():
    # Tesseract gives each Han character as a word: "发 票 号 码"
    assert cells(word("发", 10), word("票", 20), word("号码", 30), word(":", 48),
                 word("07007198", 58)) == ["发票号码 : 07007198"]
    assert cells(word("お支払", 10), word("期限", 36)) == ["お支払期限"]
    assert cells(word("2018", 10), word("年", 44)) == ["2018 年"]
