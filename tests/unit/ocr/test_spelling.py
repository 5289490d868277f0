"""The places a page prints an OCR'd seller name again: read with the same letters and accents,
they confirm it; read with the same letters and other accents, they speak against it. The
second recogniser reading the name's own place confirms its letters, and no accent it did not
read itself."""
from __future__ import annotations

from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.model import Line, Page
from ledgerline.extraction.ocr.spelling import (
    identifier_read_again_vote,
    letters,
    read_again_vote,
    spelling_votes,
)


CHAR = 5.0  # points a character of page()'s lines is wide


def page(*texts: str, ocr: bool = True) -> DocText:
    lines = [Line(1, 50.0, 800.0 - 20 * k, 50.0 + CHAR * len(text), 810.0 - 20 * k, text,
                  [(50.0 + CHAR * n, 50.0 + CHAR * (n + 1)) for n in range(len(text))],
                  confidences=[0.95] * len(text) if ocr else None)
             for k, text in enumerate(texts)]
    return DocText([Page(1, 595.0, 842.0, lines)])


class SecondReading:
    """What a second recogniser reads in the name's place (the page's first line), and the
    ink there: each letter's columns reach its kind's height (upper case and tall letters 8
    points above the baseline, short ones 6, descenders 2 below it), those in ``marks`` 2 points
    further ("above") or below the baseline ("below")."""

    def __init__(self, text: str, sure: float = 0.98, marks: dict | None = None):
        self.text, self.sure, self.marks = text, sure, marks or {}
        self.asked: list = []

    def read(self, bbox):
        self.asked.append(bbox)
        return self.text, self.sure

    def ink(self, bbox):
        out = []
        for n, ch in enumerate(self.text):
            if not ch.isalnum():
                continue
            top = 800.0 + (6.0 if ch in "acemnorsuvwxz" else 8.0)
            bottom = 798.0 if ch in "gjpqy" else 800.0
            top += 2.0 if self.marks.get(n) == "above" else 0.0
            bottom -= 2.0 if self.marks.get(n) == "below" else 0.0
            out += [(50.0 + CHAR * n + dx, top, bottom) for dx in (1.5, 2.5, 3.5)]
        return out


def vote(dt: DocText, name: str, again: SecondReading | None) -> float:
    """The second reading's vote on the name printed as the page's first line."""
    return read_again_vote(dt, name, 0, dt.lines[0].bbox, again)


def test_a_names_letters_keep_their_accents_and_lose_punctuation():
    assert letters("Nyström Rådgivning AB") == ("nyströmrådgivningab", "nystromradgivningab")
    assert letters("Williams & Harper Co.", legal_form=False) == ("williamsharper",
                                                                 "williamsharper")


def test_the_name_read_again_elsewhere_confirms_it():
    dt = page("Nyström Rådgivning AB", "Bill to: Berg & Son",
              "NYSTRÖM RÅDGIVNING AB - Storgatan 4 - 111 22 Stockholm")
    assert spelling_votes(dt, "Nyström Rådgivning AB", 0) == (1.0, 0.0)


def test_the_same_letters_with_other_accents_speak_against_it():
    dt = page("Nystrém Rådgivning AB", "Nyström Rådgivning AB - Storgatan 4",
              "Kontoinnehavare: Nyström Rådgivning AB")
    assert spelling_votes(dt, "Nystrém Rådgivning AB", 0) == (0.0, 2.0)
    assert spelling_votes(dt, "Nyström Rådgivning AB", 1) == (1.0, 1.0)
    dropped = page("Nystrom Radgivning AB", "Nyström Rådgivning AB - Storgatan 4")
    assert spelling_votes(dropped, "Nystrom Radgivning AB", 0) == (0.0, 1.0)


def test_a_word_of_the_name_printed_with_other_accents_speaks_against_it():
    dt = page("Servicos Pinho Lda.", "Serviços de consultoria   1 200,00")
    assert spelling_votes(dt, "Servicos Pinho Lda.", 0) == (0.0, 1.0)


def test_a_domain_confirms_only_a_name_without_accents_and_only_all_of_it():
    dt = page("Planung Hamann OHG", "E-Mail: billing@planung-hamann.de", "www.planung.de")
    assert spelling_votes(dt, "Planung Hamann OHG", 0) == (1.0, 0.0)
    dt = page("Nyström Rådgivning AB", "E-post: info@nystrom-radgivning.se",
              "www.nystrom-radgivning.se")
    assert spelling_votes(dt, "Nyström Rådgivning AB", 0) == (0.0, 0.0)


def test_a_text_layer_says_nothing():
    text_layer = page("Nyström Rådgivning AB", "Nyström Rådgivning AB", ocr=False)
    assert spelling_votes(text_layer, "Nyström Rådgivning AB", 0) == (0.0, 0.0)


def test_the_second_reading_of_a_name_printed_once_confirms_its_letters():
    dt = page("Williams & Harper Co.", "Invoice 4711", "Total due 1,234.00")
    again = SecondReading("Williams & Harper Co")
    assert vote(dt, "Williams & Harper Co.", again) == 1.0
    assert again.asked == [dt.lines[0].bbox]


def test_a_second_reading_with_other_letters_speaks_against_the_name():
    """Tesseract's "Holmavists" on a blurred photo, read "Holmqvists" by the other engine; its
    "Nystrém" (a misread "ö") is another letter than the other engine's "o"."""
    dt = page("Holmavists Teknik AB", "Faktura 4711")
    assert vote(dt, "Holmavists Teknik AB", SecondReading("Holmqvists Teknik AB")) == -1.0
    dt = page("Nystrém Rådgivning AB", "Faktura 4711")
    assert vote(dt, "Nystrém Rådgivning AB", SecondReading("Nystrom Radgivning AB")) == -1.0


def test_an_unsure_or_missing_second_reading_says_nothing():
    dt = page("Williams & Harper Co.", "Invoice 4711")
    assert vote(dt, "Williams & Harper Co.", SecondReading("Williams & Harper Co.", 0.8)) == 0.0
    assert vote(dt, "Williams & Harper Co.", None) == 0.0
    assert read_again_vote(dt, "Williams & Harper Co.", None, dt.lines[0].bbox,
                           SecondReading("Williams & Harper Co.")) == 0.0


def test_the_second_reading_confirms_no_accent_it_did_not_read_itself():
    """It reads "Nystrom" for "Nyström" (it has no "ö") and "Uslugi" for "Usługi": the
    letters agree, the accents are not confirmed; an accent it reads too is."""
    dt = page("Nyström Rådgivning AB", "Faktura 4711")
    assert vote(dt, "Nyström Rådgivning AB", SecondReading("Nystrom Radgivning AB")) == 0.0
    dt = page("Klyta Usługi sp.k.", "Faktura 4711")
    assert vote(dt, "Klyta Usługi sp.k.", SecondReading("Klyta Uslugi sp.k.")) == 0.0
    dt = page("Café Müller", "Rechnung 4711")
    assert vote(dt, "Café Müller", SecondReading("Café Müller")) == 1.0


def test_a_plain_letter_the_page_writes_with_an_accent_is_in_doubt_under_a_mark():
    """Both engines read "Batiment" for a photo's "Bâtiment": where the page prints "â" or
    "à" elsewhere, an "a" of the name whose ink rises above the other short letters' says its
    accent was dropped; without, or over a letter the page never accents, the name stands."""
    dt = page("WBH Batiment SASU", "Facture à régler avant le 12 décembre")
    name = "WBH Batiment SASU"
    a, m = name.index("a"), name.index("m")
    assert vote(dt, name, SecondReading(name, marks={a: "above"})) == 0.0
    assert vote(dt, name, SecondReading(name, marks={m: "above"})) == 1.0
    assert vote(dt, name, SecondReading(name)) == 1.0


def test_a_cedilla_or_an_ogonek_takes_the_letter_below_the_baseline():
    dt = page("Servicos Pinho Lda.", "Condições de pagamento: 30 dias")
    name = "Servicos Pinho Lda."
    assert vote(dt, name, SecondReading(name, marks={name.index("c"): "below"})) == 0.0
    assert vote(dt, name, SecondReading(name)) == 1.0


def test_an_upper_case_letter_is_compared_with_the_other_upper_case_letters():
    dt = page("SIVERTSEN & BREKKE ANS", "Beløp å betale")
    name = "SIVERTSEN & BREKKE ANS"
    assert vote(dt, name, SecondReading(name)) == 1.0
    assert vote(dt, name, SecondReading(name, marks={name.index("A"): "above"})) == 0.0


def test_a_lost_stroke_counts_as_a_lost_accent_and_an_i_cannot_be_told():
    """The dot of an "i" and an accent in its place are the same ink: a page that prints "í"
    leaves every "i" of a name in doubt."""
    dt = page("Lunde Consult AS", "Beløp å betale")
    name = "Lunde Consult AS"
    assert vote(dt, name, SecondReading(name, marks={name.index("o"): "above"})) == 0.0
    assert vote(page("Pinto Silva Lda.", "Período 11/2025"), "Pinto Silva Lda.",
                SecondReading("Pinto Silva Lda.")) == 0.0


def test_accents_count_only_where_the_pages_other_ocr_read_lines_print_them():
    """A rising "a" of a name on a page that prints no accented "a" elsewhere (its own line
    and a text layer's lines do not count) is no doubt."""
    name = "Planung Hamann OHG"
    marked = SecondReading(name, marks={name.index("a"): "above"})
    assert vote(page(name, "Summe 1.200,00"), name, marked) == 1.0
    lines = [Line(1, 50.0, 800.0, 140.0, 810.0, name,
                  [(50.0 + CHAR * n, 50.0 + CHAR * (n + 1)) for n in range(len(name))],
                  confidences=[0.95] * len(name)),
             Line(1, 50.0, 780.0, 300.0, 790.0, "Fälligkeit: 12.12.2025")]
    assert vote(DocText([Page(1, 595.0, 842.0, lines)]), name, marked) == 1.0
    assert vote(page(name, "Fälligkeit: 12.12.2025"), name, marked) == 0.0


# -- an identifier's place read again ----------------------------------------------------------

def identifier_vote(raw: str, again: SecondReading | None) -> float:
    return identifier_read_again_vote(raw, [50.0, 800.0, 90.0, 810.0], again)


def test_an_identifier_read_alike_by_the_second_recogniser_is_confirmed():
    """Spaces aside ("FT 8405/23" read "FT8405/23"), at least as sure as a name's reading."""
    assert identifier_vote("F04543", SecondReading("F04543")) == 1.0
    assert identifier_vote("FT 8405/23", SecondReading("FT8405/23")) == 1.0
    assert identifier_vote("F04543", SecondReading("F04543", sure=0.8)) == 0.0


def test_an_identifier_read_with_other_characters_is_spoken_against():
    """Tesseract read "704543" at 300 dpi where the page prints "F04543"; PP-OCR read it right."""
    assert identifier_vote("704543", SecondReading("F04543")) == -1.0
    assert identifier_vote("704543", SecondReading("F04543", sure=0.5)) == -1.0


def test_an_identifier_that_cannot_be_read_again_gets_no_vote():
    assert identifier_vote("F04543", None) == 0.0
    assert identifier_vote("F04543", SecondReading("")) == 0.0
    assert identifier_read_again_vote("F04543", None, SecondReading("F04543")) == 0.0
