"""Seller and buyer names from the text layer.

Evidence, strongest first: a party label ("Seller", "Rechnungsempfänger", "Bill to", ...) heading
a block whose first name-like line (or its "Name:" line) is the party; the sender line printed
above the address window ("Firma GmbH · Straße 1 · 12345 Ort") and the recipient block below it;
the account holder of the bank details; a company name with a legal form (GmbH, B.V., SARL,
Inc., ...) in the letterhead or footer; the first line of the letterhead.  A name found in the
buyer's block is never taken for the seller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..candidates import BELOW, RIGHT, SAME_LINE, Candidate, Evidence
from ..geometry import DocText
from ..text import fold
from ..values.dates import find_dates
from ..vocabulary import VOCABULARY as V

_SEP = re.compile(r"\s+[-–|·•●]\s+|\s*[|·•●]\s*|\s{2,}")
# "Muster AB, 23145, Storgatan 10", "Exemplo, z.s., Americká 23, 120 00 Praha": a comma and then
# a figure (postcode, street number) or a street and its number end the name of a line that goes
# on with the address.
_ADDRESS_AFTER_COMMA = re.compile(r",\s*(?=\d|[^\W\d_]{2,}\.?\s+\d{1,4}[^\W\d_]?(?:,|$))")
_SENDER_SEP = re.compile(r"\s+[-–|·•●]\s+|\s*[|·•●]\s*")


# A legal form of two letters is printed in capitals ("AG", "BA", "SA"), of three with at least
# a capital first ("Inc", "LLC"): "Ba" ending a line of an item's description, "ab" or "sa" in
# running text are words. Finland's "Oy" is the exception that proves it.
_TITLE_CASE_FORMS = frozenset({"oy"})


def printed_legal_form(text: str) -> bool:
    """Does the printed text carry a legal form, in the case legal forms are printed in, and
    where a form stands (after the name it belongs to, or before it if it may lead one)?"""
    folded = fold(text)
    for m in V.legal_form.finditer(folded):
        if _leads_nothing(folded, m):
            continue
        printed = text[m.start() : m.end()]
        letters = re.sub(r"[\W\d_]", "", printed)
        if "." in printed or len(letters) > 3:
            return True
        if len(letters) == 2 and (letters.isupper() or (letters.lower() in _TITLE_CASE_FORMS
                                                        and letters[0].isupper())):
            return True
        if len(letters) == 3 and letters[0].isupper():
            return True
    return False


_WORD = re.compile(r"\w")


def _leads_nothing(folded: str, m: re.Match) -> bool:
    """Is the legal form ``m`` the text's first word, and one printed only after a name ("SE",
    "GmbH", "Ltd", "S.L.")? Then it is no company's form: a footer misread by OCR ("SE
    BUENOS"), a word of running text. The forms that may lead a name ("SARL Dupont", "Oy
    Hartwall Ab", "I/S Vestforbrænding", "株式会社…") are the vocabulary's leading ones."""
    return (not _WORD.search(folded, 0, m.start())
            and not V.leading_legal_form.fullmatch(m.group()))


def _is_party_label(folded: str) -> bool:
    return bool(V.seller_label.match(folded) or V.buyer_label.match(folded))


def _clean(text: str) -> str | None:
    t = re.sub(r"\s+", " ", text.strip(" ,;:-–|·•●\t"))
    t = re.sub(r"^logo\s+", "", t, flags=re.IGNORECASE)  # a logo placeholder printed as text
    if len(t) < 2 or len(t) > 80 or not re.search(r"[^\W\d_]{2,}", t):
        return None
    if sum(c.isdigit() for c in t) > len(t) / 4:
        return None
    if _LOGO_PLACEHOLDER.fullmatch(t) or _ENCODED.fullmatch(t):
        return None
    if not _LETTERS.search(V.legal_form.sub(" ", fold(t))):
        return None  # a legal form alone ("SE" read off a stamp): no company's name
    return t


# A template's "YOUR LOGO (HERE)" where the issuer's logo goes: the place of a name, not one.
# Printed on two lines ("YOUR LOGO" over "HERE"), the second is the placeholder's too.
_LOGO_PLACEHOLDER = re.compile(r"(?:your|company|insert|place)?\s*logo(?:\s+here)?|here",
                               re.IGNORECASE)
# Base64 text (a digital seal's last line, "uS3mW/sLQOHHBUheLQ=="): one word of letters and
# digits with the signs only that encoding prints; no name is written so.
_ENCODED = re.compile(r"(?=\S*[+/=])(?=\S*[a-z])(?=\S*[A-Z])(?=\S*\d)[A-Za-z0-9+/]{16,}={0,2}")


_LETTERS = re.compile(r"[^\W\d_]{2,}")

# A name's last word, and the letters digits in it stand for in a legal form ("1/S" is "I/S").
_LAST_WORD = re.compile(r"(?<=\s)\S+$")
_DIGIT_LETTERS = str.maketrans("10", "IO")


def with_form_letters(name: str) -> str:
    """The name with its last word as the legal form it reads as with letters for its digits
    ("Christoffersen 1/S": no legal form has a digit); else as printed."""
    return _LAST_WORD.sub(_form_letters, name)


def _form_letters(m: re.Match) -> str:
    word = m.group()
    letters = word.translate(_DIGIT_LETTERS)
    if letters == word or any(c.isdigit() for c in letters):
        return word
    found = V.legal_form.fullmatch(fold(letters))
    return letters if found and not V.legal_form.fullmatch(fold(word)) else word


def _namelike(dt: DocText, j: int) -> bool:
    f = dt.folded[j]
    return (
        bool(_clean(dt.lines[j].text))
        and not V.not_name.search(f)
        and not V.not_in_block.match(f)
        and not f.startswith("(")
        and not f.rstrip().endswith(":")  # "Recebemos de:", "Issued by:": a label, not a name
        # "Bereiche ohne Inhalte werden nicht dargestellt!", "… csak tájékoztatásra!": an
        # exclamation or a question is a sentence of the page, never a party's name
        and not f.rstrip().endswith(("!", "?"))
        and not _label_only(f)  # "Szállító/Sold by", "Vendeur": the label, not the party
        and not _STREET_FIRST.match(f)  # "35 rue d'ici, …": a house number opens an address
        and not _running_text(dt.lines[j].text)
        and not _garbled(dt.lines[j].confidences)
    )


# OCR read the line this unsure on average: letters guessed from a script it has no data for
# ("Lill ga" for a line of Arabic) or from a logo's drawing ("vw"), not a name.
GARBLED_BELOW = 0.5


def _garbled(confidences: list | None) -> bool:
    known = [c for c in confidences or () if c is not None]
    return bool(known) and sum(known) / len(known) < GARBLED_BELOW


SENTENCE_WORDS, SENTENCE_LOWER_WORDS = 6, 4


def _running_text(text: str) -> bool:
    """Is the line a sentence of the page ("We warrant that the actual broadcast information
    ...")? A name of six words or more has few words of four letters or more in lower case
    besides its particles ("Communauté de communes du Val de Loire"). Only the line's leading
    part is asked: an address or a description may follow the name."""
    got = _first_part(text)
    words = got[0].split() if got else []
    return (len(words) >= SENTENCE_WORDS
            and sum(w[:1].islower() and len(w) >= 4 for w in words) >= SENTENCE_LOWER_WORDS)


# A house number and a street word: an address line, which no party's name starts like.
_STREET_FIRST = re.compile(r"\d{1,4}[a-z]?,?\s+[^\W\d_]{2,}")


def _label_only(folded: str) -> bool:
    """Is the line a party label and nothing else?"""
    m = V.seller_label.match(folded) or V.buyer_label.match(folded)
    return m is not None and m.end() >= len(folded.rstrip())


def _first_part(text: str) -> tuple[str, int, int] | None:
    """The leading name part of a line that may continue with an address after a separator."""
    m = _SEP.search(text)
    part = text[: m.start()] if m else text
    m = _ADDRESS_AFTER_COMMA.search(part)
    part = part[: m.start()] if m else part
    name = _clean(part)
    if not name:
        return None
    s = text.find(name)
    return name, s, s + len(name)


def _cand(
    dt: DocText, field: str, lines: list[int], kind: str, span=None, relation=None, **facts
) -> Candidate:
    first = dt.lines[lines[0]]
    if span is not None:
        s, e = span
        text = first.text[s:e]
        bbox = first.span_bbox(s, e)
    else:
        text = " ".join(dt.lines[j].text for j in lines)
        bbox = first.bbox
        if len(lines) > 1:
            last = dt.lines[lines[-1]]
            bbox = [min(first.x0, last.x0), last.y0, max(first.x1, last.x1), first.y1]
    evidence = Evidence(kind, relation=relation, relative_y=dt.relative_y(lines[0]), facts=facts)
    value = with_form_letters(_clean(text) or text.strip())
    return Candidate(field, value, text, first.page, bbox, lines[0], evidence)


# Party blocks, in points or line heights.
RIGHT_CELL_HEIGHTS = 7  # the name in the cell right of a label, at most this far
BLOCK_LINES, BLOCK_GAP, BLOCK_X_SLACK = 6, 2.4, 6.0  # lines read down a block under its label
SUB_LABEL_REACH = 250  # "Name:" with the name in a cell this far right of it
ALIGNED = 4  # a name's second line starts within this many points of its first
SECOND_LINE_GAP = 2.2
CONTINUATION_ABOVE, CONTINUATION_OVERLAP = 1.2, 0.2


def _continuation_above(dt: DocText, j: int) -> int | None:
    """A name-like line right above value cell j, aligned with it and with no label to its left."""
    ln = dt.lines[j]
    for k in dt.by_page[ln.page]:
        other = dt.lines[k]
        gap = other.y0 - ln.y1
        if (
            k == j
            or gap < -CONTINUATION_OVERLAP * ln.height
            or gap > CONTINUATION_ABOVE * ln.height
        ):
            continue
        if abs(other.x0 - ln.x0) > ALIGNED:
            continue
        if any(dt.lines[m].x1 < other.x0 for m in dt.row_of(k)):
            continue
        f = dt.folded[k]
        if _namelike(dt, k) and not any(c.isdigit() for c in f) and not V.legal_form.search(f):
            return k
    return None


def _second_line(dt: DocText, j: int) -> int | None:
    """The line under name cell j when the name is printed on two lines."""
    more = dt.below(j, max_lines=SECOND_LINE_GAP, x_slack=ALIGNED)[:1]
    if not more or V.legal_form.search(dt.folded[j]):
        return None
    k = more[0]
    if (
        _namelike(dt, k)
        and not any(c.isdigit() for c in dt.folded[k])
        and abs(dt.lines[k].x0 - dt.lines[j].x0) < ALIGNED
        and not [m for m in dt.row_of(k) if dt.lines[m].x1 < dt.lines[k].x0]
    ):
        return k
    return None


def _after_sub_label(dt: DocText, j: int, sub, field: str) -> Candidate | None:
    """The name after a "Name:" / "Firma:" sub-label on line j, or in the cell right of it."""
    value = dt.lines[j].text[sub.end() :]
    # "Nom du vendeur:" is a longer sub-label, its name in the cell to the right
    if _clean(value) and not value.rstrip().endswith(":"):
        return _cand(dt, field, [j], PARTY_LABEL, (sub.end(), len(dt.lines[j].text)), BELOW)
    right = dt.right_of(j, max_gap=SUB_LABEL_REACH)[:1]
    if not (right and _clean(dt.lines[right[0]].text)):
        return None
    lines = list(right)
    up = _continuation_above(dt, right[0])
    if up is not None:
        lines.insert(0, up)  # "MVM Musterhafter" / "Name: Versicherungsverein ... a.G."
    else:
        second = _second_line(dt, right[0])
        if second is not None:
            lines.append(second)  # a name printed on two lines
    return _cand(dt, field, lines, PARTY_LABEL, relation=BELOW)


def _beside_label(dt: DocText, i: int, field: str) -> Candidate | None:
    """The name after the label on its own line ("Seller: Muster GmbH") or in the next cell."""
    m = V.seller_label.match(dt.folded[i]) or V.buyer_label.match(dt.folded[i])
    rest = dt.lines[i].text[m.end() :] if m else ""
    if rest.strip():
        got = _first_part(rest)
        if got and not V.not_name.search(got[0].lower()):
            off = m.end()
            return _cand(dt, field, [i], PARTY_LABEL, (off + got[1], off + got[2]), SAME_LINE)
    for j in dt.right_of(i, max_gap=RIGHT_CELL_HEIGHTS * dt.lines[i].height)[:1]:
        if _namelike(dt, j) and not _is_party_label(dt.folded[j]):
            got = _first_part(dt.lines[j].text)  # "Name, Street 23, 120 00 City"
            span = (got[1], got[2]) if got else None
            return _cand(dt, field, [j], PARTY_LABEL, span, relation=RIGHT)
    return None


def _block_name(dt: DocText, i: int, field: str) -> Candidate | None:
    """The party name in the block under (or beside) the label on line i."""
    beside = _beside_label(dt, i, field)
    if beside is not None:
        return beside
    cur, taken = i, []
    for _ in range(BLOCK_LINES):
        nxt = dt.below(cur, max_lines=BLOCK_GAP, x_slack=BLOCK_X_SLACK)[:1]
        if cur == i and len(dt.row_of(i)) == 1:
            # a heading alone on its row, centred over its box ("EMITENTE" over "NOME: …"),
            # heads the line right under it wherever that starts
            page_width = dt.page_size[dt.lines[i].page][0]
            first = dt.below(i, max_lines=BLOCK_GAP, xr=(0.0, page_width))[:1]
            if first and (not nxt or dt.lines[first[0]].y0 > dt.lines[nxt[0]].y1):
                nxt = first
        if not nxt:
            break
        j = nxt[0]
        f = dt.folded[j]
        if _is_party_label(f):
            break
        sub = V.name_label.match(f)
        if sub and not taken:
            got = _after_sub_label(dt, j, sub, field)
            if got is not None:
                return got
        if taken:
            if (
                _namelike(dt, j)
                and not any(c.isdigit() for c in f)
                and not V.person_prefix.match(f)
                and not V.legal_form.search(dt.folded[taken[0]])
            ):
                if _company_under_person(dt, taken[0], j):
                    taken = [j]  # "John Smith" over "Smug Cat Law Firm": the party is the firm
                else:
                    taken.append(j)  # the name's second line
            break
        if _namelike(dt, j):
            taken.append(j)
            if V.legal_form.search(f):
                break
        elif taken:
            break
        cur = j
    if taken:
        return _cand(dt, field, taken, PARTY_LABEL, relation=BELOW)
    return None


# A business's own name besides its legal form and trade words: this many words at least.
OWN_NAME_WORDS = 2


def _company_under_person(dt: DocText, first: int, second: int) -> bool:
    """Is line ``second`` of a party block the business and ``first`` a person over it (its
    contact, "John Smith" over "Smug Cat Law Firm")? The second names a business by itself: a
    legal form or a trade word ends it, with a name of its own before them ("Smug Cat Law");
    the first has neither. A name's second line that only completes the first ("Acme Widgets"
    over "International Ltd") has no name of its own."""
    if not _person_name(dt.lines[first].text) or _trade_word_in(dt.folded[first]):
        return False
    text = dt.lines[second].text
    if not _names_business(text):
        return False
    own = [w for w in re.findall(r"[^\W\d_]+", V.legal_form.sub(" ", dt.folded[second]))
           if not V.trade_word.fullmatch(w) and w not in _TRADE_CONNECTORS]
    return len(own) >= OWN_NAME_WORDS


PERSON_WORDS = (2, 3)  # a given name (or two) and a surname


def _person_name(text: str) -> bool:
    """Is the line printed as a person's name is: two or three words, each a capital and then
    small letters, or an initial ("John Smith", "Jane Q. Doe")? An acronym ("MVM Musterhafter"),
    a legal form or a figure makes it a business's."""
    words = text.split()
    return (PERSON_WORDS[0] <= len(words) <= PERSON_WORDS[1]
            and all(_name_word(w) for w in words)
            and not printed_legal_form(text))


def _name_word(word: str) -> bool:
    """A capital and then letters, some of them small ("Smith", "McDonald"), or an initial."""
    rest = word[1:]
    return word[0].isupper() and (rest == "." or (rest.isalpha() and not rest.isupper()))


def _names_business(text: str) -> bool:
    """Does the line end as a business's name ends: with its legal form or a trade word?"""
    words = re.findall(r"[^\W\d_]+", fold(text))
    return printed_legal_form(text) or bool(words and V.trade_word.fullmatch(words[-1]))


def _trade_word_in(folded: str) -> bool:
    return any(V.trade_word.fullmatch(w) for w in re.findall(r"[^\W\d_]+", folded))


SENDER_TOP, SENDER_CHARS = 0.55, 110  # the sender line: upper part of page 1, one short row
_POSTCODE = re.compile(r"\b\d{4,5}\b")
_CONTACT = re.compile(r"(?:tel|fax|phone|www|@|iban|bic)")


def _sender_line(dt: DocText) -> int | None:
    """The small return-address line above the address window: 'Firma · Straße 1 · 12345 Ort'."""
    for i in dt.by_page.get(1, []):
        row = dt.row_of(i)
        text = " ".join(dt.lines[j].text for j in row)
        if dt.relative_y(i) < SENDER_TOP or len(text) > SENDER_CHARS:
            continue
        if len(_SENDER_SEP.findall(text)) >= 2 and _postcode(text) and row[0] == i:
            priced = any(a[3] for j in row[1:] for a in dt.amounts(j))
            if not _CONTACT.search(dt.folded[i]) and not priced:
                return i  # (a row with a price is an item's, "Membership - Monthly - …")
    return None


def _postcode(text: str) -> bool:
    """A postcode on the line, not a year of a date ("(06/23/2018 - 07/23/2018)")."""
    dates = [(s, e) for _d, s, e in find_dates(text)]
    return any(not any(s <= m.start() < e for s, e in dates) for m in _POSTCODE.finditer(text))


PARTY_LABEL = "party_label"  # the name under (or beside) a "Seller" / "Bill to" label
SENDER_LINE = "sender_line"  # the return-address line above the address window
BELOW_SENDER_LINE = "below_sender_line"  # the recipient block under it
ACCOUNT_HOLDER = "account_holder"  # the holder named with the bank details
LEGAL_FORM = "legal_form"  # a company name with a legal form, facts: margin, name_key
LETTERHEAD = "letterhead"  # the first name-like line at the top of page 1
RECIPIENT_BLOCK = "recipient_block"  # an unlabelled address block, facts: key
SIGNATURE_BLOCK = "signature_block"  # "For Muster Ltd" over "Authorised Signatory"
# A legal-form name this close to the top or the bottom of a page is in the letterhead or footer.
LETTERHEAD_ZONE, FOOTER_ZONE = 0.72, 0.2
LABEL_LINE_CHARS = 60  # a party label heads a short line
LETTERHEAD_LINES = 6  # the first lines of page 1 that may hold the letterhead's name
LETTERHEAD_TOP = 0.8
# ... or, over its address, this high (under a title and the invoice's number and date)
ADDRESS_BLOCK_TOP = 0.6
# The address under a party's name: on one of the next few lines of its block.
ADDRESS_REACH_HEIGHTS, ADDRESS_LINES = 4.5, 3
# A postcode, or a street and its number ("Polní 1", "12 rue …", "Main St. 5b").
ADDRESS = re.compile(
    r"\b\d{4,5}\b|\b\d{1,4}[a-z]?,?\s+[^\W\d_]{2,}|[^\W\d_]{2,}\.?\s+\d{1,4}[a-z]?\b"
)
# The buyer's block: these many lines within this many line heights under its label.
BUYER_BLOCK_LINES, BUYER_BLOCK_HEIGHTS = 6, 8
# The recipient under the sender line: this many line heights down, this many points aside.
RECIPIENT_BELOW_SENDER, RECIPIENT_X_SLACK = 3.5, 20
# An unlabelled address block: in the upper part of page 1, up to this many lines above its
# postcode line, left edges aligned within this many points, lines this close together.
RECIPIENT_TOP, RECIPIENT_LINES, RECIPIENT_ALIGN, RECIPIENT_SPACING = 0.45, 4, 3, 1.2


@dataclass
class PartyCandidates:
    seller: list[Candidate]
    buyer: list[Candidate]
    recipients: list[Candidate]  # unlabelled address blocks, for an invoice without a buyer label


def party_candidates(dt: DocText) -> PartyCandidates:
    seller: list[Candidate] = []
    buyer: list[Candidate] = []
    buyer_lines: set[int] = set()
    for i, folded in enumerate(dt.folded):
        if len(folded) > LABEL_LINE_CHARS:
            continue
        if V.buyer_label.match(folded):
            c = _block_name(dt, i, "buyer_name")
            if c is not None:
                buyer.append(c)
                buyer_lines.update(dt.below(i, max_lines=BUYER_BLOCK_HEIGHTS)[:BUYER_BLOCK_LINES])
                buyer_lines.add(c.line)
        elif V.seller_label.match(folded):
            c = _block_name(dt, i, "seller_name")
            if c is not None:
                seller.append(c)
    sender = _sender_line(dt)
    if sender is not None:
        text = dt.lines[sender].text
        got = _first_part(text)
        if got and not V.not_name.search(got[0].lower()):
            seller.append(_cand(dt, "seller_name", [sender], SENDER_LINE, (got[1], got[2])))
        under = dt.below(sender, max_lines=RECIPIENT_BELOW_SENDER, x_slack=RECIPIENT_X_SLACK)
        below = [j for j in under[:1] if _namelike(dt, j)]
        if below:
            buyer.append(_cand(dt, "buyer_name", below, BELOW_SENDER_LINE))
            buyer_lines.update(below)
    for i, folded in enumerate(dt.folded):
        m = V.account_holder_label.search(folded)
        if m:
            got = _first_part(dt.lines[i].text[m.end() :])
            if got and not V.not_name.search(got[0].lower()):
                span = (m.end() + got[1], m.end() + got[2])
                seller.append(_cand(dt, "seller_name", [i], ACCOUNT_HOLDER, span))
    seller.extend(_legal_form_names(dt, buyer_lines))
    seller.extend(_letterhead_name(dt, buyer_lines))
    seller.extend(_signature_names(dt))
    return PartyCandidates(seller, buyer, _unlabelled_recipients(dt))


def _legal_form_names(dt: DocText, buyer_lines: set[int]) -> list[Candidate]:
    """Company names with a legal form anywhere outside the buyer's block; a seller label glued
    to the name ("REMIT TO Muster Inc") or a name label before it is not part of it, a buyer
    label puts it in the buyer's block."""
    out = []
    for i, folded in enumerate(dt.folded):
        if (
            i in buyer_lines
            or not printed_legal_form(dt.lines[i].text)
            or V.buyer_label_lead.match(folded)
        ):
            continue
        # "Name: Muster GmbH" on its own line of a block the finders did not see as one
        lead = V.seller_label_lead.match(folded) or V.name_label.match(folded)
        off = lead.end() if lead else 0
        got = _first_part(dt.lines[i].text[off:])
        if not got or not printed_legal_form(got[0]) or V.not_name.search(got[0].lower()):
            continue
        got = (got[0], got[1] + off, got[2] + off)
        ry = dt.relative_y(i)
        margin = ry > LETTERHEAD_ZONE or ry < FOOTER_ZONE
        key = got[0].lower()
        out.append(
            _cand(dt, "seller_name", [i], LEGAL_FORM, (got[1], got[2]), margin=margin, name_key=key)
        )
    return out


def address_follows(dt: DocText, i: int) -> bool:
    """Does an address (a postcode, a street and its number) follow line i in its block, as it
    follows a party's name?"""
    top = dt.lines[i]
    for j in dt.below(i, max_lines=ADDRESS_REACH_HEIGHTS, x_slack=0)[:ADDRESS_LINES]:
        ln = dt.lines[j]
        aligned = abs(ln.x0 - top.x0) < ALIGNED or abs(ln.x1 - top.x1) < ALIGNED  # or right-aligned
        if aligned and ADDRESS.search(dt.folded[j]):
            return True
    return False


# "Version: 2", "Ref.: 4711": a field and its value, never a letterhead
_FIELD_AND_VALUE = re.compile(r"^[^\W\d_]{2,20}\.?\s?:\s*\S")


def _letterhead_name(dt: DocText, buyer_lines: set[int]) -> list[Candidate]:
    """The issuer's name at the head of page 1: the first name-like line over an address (the
    letterhead is a name and its address), else the first name-like line."""
    found = []
    for i in dt.by_page.get(1, [])[:LETTERHEAD_LINES]:
        f = dt.folded[i]
        if i in buyer_lines or V.page_title.match(f) or not _namelike(dt, i):
            continue
        if _FIELD_AND_VALUE.match(f) and not V.name_label.match(f):
            continue
        ry = dt.relative_y(i)
        addressed = ry >= ADDRESS_BLOCK_TOP and address_follows(dt, i)
        if ry < LETTERHEAD_TOP and not addressed:
            continue
        found.append((not addressed, _reading_order(dt, i), i))
    for _, _, i in sorted(found)[:1]:
        got = _first_part(dt.lines[i].text)
        if not got:
            return []
        lines = _stacked_name(dt, i)
        if len(lines) > 1:
            return [_cand(dt, "seller_name", lines, LETTERHEAD)]
        return [_cand(dt, "seller_name", [i], LETTERHEAD, (got[1], got[2]))]
    return []


def _reading_order(dt: DocText, i: int) -> tuple[int, float]:
    """Where line i is read: its row (the first line of it), then from the left. The cells of
    one row may sit a point apart ("WPXI" beside "Advertiser" | "Pol/T Murphy ..." in a form's
    header): the leftmost is read first, whichever baseline is a point higher."""
    return min(dt.row_of(i)), dt.lines[i].x0


# A name's two lines printed one right under the other: at most this many line heights apart
# (or overlapping this much), their heights this close (the same type), each line's middle
# within the other's width (centred on each other, as a letterhead's or a receipt's head is).
STACKED_GAP, STACKED_OVERLAP, STACKED_HEIGHT = 0.6, 0.3, 0.2
_TRADE_CONNECTORS = frozenset({"&", "+", "and"})


def trade_words_only(folded: str) -> bool:
    """Is the line only words that say what kind of business a name is ("bistro & cafe",
    "restaurant and bar")? Such a line says which trade, not which business: the name is the
    line over it, and the two lines together."""
    words = re.findall(r"[^\W\d_]+|[&+]", folded)
    trades = [w for w in words if V.trade_word.fullmatch(w)]
    return bool(trades) and all(w in _TRADE_CONNECTORS or w in trades for w in words)


def _stacked(dt: DocText, upper: int, lower: int) -> bool:
    """Are lines upper and lower one name's two lines, the second right under the first in the
    same type and case?"""
    u, lo = dt.lines[upper], dt.lines[lower]
    if u.page != lo.page or upper == lower:
        return False
    height = max(u.height, lo.height)
    gap = u.y0 - lo.y1
    if not -STACKED_OVERLAP * height <= gap <= STACKED_GAP * height:
        return False
    if abs(u.height - lo.height) > STACKED_HEIGHT * height:
        return False
    if not (u.x0 <= (lo.x0 + lo.x1) / 2 <= u.x1 and lo.x0 <= (u.x0 + u.x1) / 2 <= lo.x1):
        return False
    return u.text.isupper() == lo.text.isupper()


def _stacked_name(dt: DocText, i: int) -> list[int]:
    """Line i with the line that completes its name: a line of trade words only ("BISTRO &
    CAFE") right under a name ("THREE STOOGES"), in the same type and case, centred on it."""
    page = dt.by_page[dt.lines[i].page]
    if trade_words_only(dt.folded[i]):
        above = [k for k in page if _stacked(dt, k, i) and _namelike(dt, k)
                 and not trade_words_only(dt.folded[k])
                 and not any(c.isdigit() for c in dt.folded[k])]
        return [above[0], i] if len(above) == 1 else [i]
    below = [j for j in page if _stacked(dt, i, j) and trade_words_only(dt.folded[j])]
    return [i, below[0]] if len(below) == 1 and not V.legal_form.search(dt.folded[i]) else [i]


# The signatory line: at most this many line heights under the "For …" line (the space left
# for the signature and the stamp), overlapping it across.
SIGNATORY_BELOW = 16


def _signature_names(dt: DocText) -> list[Candidate]:
    """The issuer named in the signature block: "For Muster Ltd" with "Authorised Signatory"
    a few lines under it (invoices from India and the UK sign for the company so)."""
    out = []
    for i, folded in enumerate(dt.folded):
        m = V.signed_for.match(folded)
        if not m or len(folded) > LABEL_LINE_CHARS:
            continue
        ln = dt.lines[i]
        signed = any(
            V.signatory.search(dt.folded[k])
            and 0 <= ln.y0 - dt.lines[k].y1 <= SIGNATORY_BELOW * ln.height
            and dt.lines[k].x0 < ln.x1
            and ln.x0 < dt.lines[k].x1
            for k in dt.by_page[ln.page]
        )
        got = _first_part(ln.text[m.end() :]) if signed else None
        if got and not V.not_name.search(got[0].lower()):
            span = (m.end() + got[1], m.end() + got[2])
            out.append(_cand(dt, "seller_name", [i], SIGNATURE_BLOCK, span))
    return out


_POSTCODE_CITY = re.compile(
    r"^(?:[a-z]{1,2}[- ]?)?"  # country prefix: D-12345, F-75001
    r"(?:\d{4,5}|\d{2}-\d{3}|\d{4}\s?[a-z]{2}|[a-z]\d[a-z]\s?\d[a-z]\d)"  # DE/FR/PL/NL/CA codes
    r"\s+[^\W\d_]{2,}"
)


def _unlabelled_recipients(dt: DocText) -> list[Candidate]:
    """Address blocks (name, street, postcode + city) in the upper part of page 1 that are not a
    delivery address: the recipient's, unless it is the seller's (the choice step knows).
    ``evidence.facts["key"]`` is the folded first line without punctuation."""
    out = []
    for i in dt.by_page.get(1, []):
        if dt.relative_y(i) < RECIPIENT_TOP or not _POSTCODE_CITY.match(dt.folded[i]):
            continue
        block = [i]
        cur = i
        for _ in range(RECIPIENT_LINES):  # walk up the block: same left edge, tight line spacing
            ln = dt.lines[cur]
            ups = [
                k
                for k in dt.by_page[ln.page]
                if abs(dt.lines[k].x0 - ln.x0) < RECIPIENT_ALIGN
                and 0 <= dt.lines[k].y0 - ln.y1 < RECIPIENT_SPACING * ln.height
            ]
            if not ups:
                break
            cur = min(ups, key=lambda k: dt.lines[k].y0)
            block.insert(0, cur)
        first = block[0]
        if len(block) < 2 or not _namelike(dt, first):
            continue
        context = dt.line_above(first)
        if V.delivery_label.search(context) or V.delivery_label.search(dt.folded[first]):
            continue
        if V.seller_label.match(context):
            continue
        key = re.sub(r"\W", "", dt.folded[first])
        out.append(_cand(dt, "buyer_name", [first], RECIPIENT_BLOCK, key=key))
    return out
