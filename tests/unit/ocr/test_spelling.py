"""The places a page prints an OCR'd seller name again: read with the same letters and accents,
they confirm it; read with the same letters and other accents, they speak against it."""
from __future__ import annotations

from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.model import Line, Page
from ledgerline.extraction.ocr.spelling import letters, spelling_votes


def page(*texts: str, ocr: bool = True) -> DocText:
    lines = [Line(1, 50.0, 800.0 - 20 * k, 300.0, 810.0 - 20 * k, text,
                  confidences=[0.95] * len(text) if ocr else None)
             for k, text in enumerate(texts)]
    return DocText([Page(1, 595.0, 842.0, lines)])


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
