"""domain.text.printable: control characters become spaces, lone surrogates go, white space runs
become one space; its patterns match exactly Unicode's categories Cc and Cs."""
from __future__ import annotations

import sys
import unicodedata

from ledgerline.domain.text import CONTROL, SURROGATE, printable


def test_the_patterns_are_unicodes_control_and_surrogate_categories():
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        category = unicodedata.category(ch)
        assert bool(CONTROL.fullmatch(ch)) == (category == "Cc"), hex(code)
        assert bool(SURROGATE.fullmatch(ch)) == (category == "Cs"), hex(code)


def test_printable_cleans_free_text():
    assert printable("Acme\x00GmbH\n\t Invoice\x85 7\ud800") == "Acme GmbH Invoice 7"
    assert printable("\u00a0Müller\u3000& Söhne ") == "Müller & Söhne"
    assert printable("\x07\ud83d ") is None
    assert printable(12) is None
