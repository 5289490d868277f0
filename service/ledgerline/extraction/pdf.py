"""One pdfminer pass per document: positioned text lines for every page, plus attachments.

The same :class:`~pdfminer.pdfdocument.PDFDocument` serves the layout analysis and the lookup of
embedded files, so a document is parsed exactly once.  Layout analysis runs with
``boxes_flow=None``: we read positioned lines, not pdfminer's reading order of text boxes, and
skipping the hierarchical box grouping saves about a tenth of the analysis time.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field

from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import LAParams, LTChar, LTFigure, LTTextBox, LTTextLine
from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFNoValidXRef
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import PDFException, PDFObjRef, PDFStream, resolve1
from pdfminer.psparser import PSException, PSLiteral

from .errors import ExtractionError
from .numbers import normalise_spaces

log = logging.getLogger(__name__)
# pdfminer warns about every broken operator and font in a damaged file, quoting the content
# stream; invoice content must not end up in logs, so only its errors pass.
logging.getLogger("pdfminer").setLevel(logging.ERROR)

LAYOUT_PARAMS = {
    "line_margin": 0.5,
    "char_margin": 2.0,
    "word_margin": 0.15,
    "boxes_flow": None,
    "all_texts": True,
}
MAX_PAGES = 200
MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024
MIN_TEXT_CHARS = 20


@dataclass(slots=True)
class Line:
    """One text line as pdfminer grouped it (a run of characters on one baseline)."""

    page: int  # 1-based
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    chars: list = field(default_factory=list, repr=False)  # (x0, x1) per character of text
    height: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.height = max(self.y1 - self.y0, 1.0)

    @property
    def bbox(self) -> list[float]:
        return [round(self.x0, 2), round(self.y0, 2), round(self.x1, 2), round(self.y1, 2)]

    def span_bbox(self, start: int, end: int) -> list[float]:
        """Bounding box of text[start:end] (falls back to the whole line)."""
        xs = self.chars[start:end]
        xs = [c for c in xs if c is not None]
        if not xs:
            return self.bbox
        return [round(xs[0][0], 2), round(self.y0, 2), round(xs[-1][1], 2), round(self.y1, 2)]


@dataclass(slots=True)
class Page:
    number: int
    width: float
    height: float
    lines: list[Line]


@dataclass(slots=True)
class Attachment:
    name: str
    data: bytes
    relationship: str | None = None
    subtype: str | None = None


@dataclass(slots=True)
class ParsedPdf:
    pages: list[Page]
    attachments: list[Attachment]

    @property
    def text_chars(self) -> int:
        return sum(len(ln.text.strip()) for p in self.pages for ln in p.lines)


_GAP = re.compile(r" {3,}")


def _lines_from_lt(lt: LTTextLine, page_no: int) -> list[Line]:
    """Lines of one pdfminer text line; runs of 3+ spaces (tabular text) split it into cells."""
    chars: list = []
    parts: list[str] = []
    for obj in lt:
        t = obj.get_text()
        if not t:
            continue
        box = (obj.x0, obj.x1) if isinstance(obj, LTChar) else None
        for ch in t:
            parts.append(ch)
            chars.append(box)
    text = normalise_spaces("".join(parts))
    if len(text) != len(chars):  # NFC changed the length: per-character positions are lost
        chars = [None] * len(text)
    out: list[Line] = []
    pos = 0
    pieces = []
    for m in _GAP.finditer(text):
        pieces.append((pos, m.start()))
        pos = m.end()
    pieces.append((pos, len(text)))
    for a, b in pieces:
        seg = text[a:b]
        lead = len(seg) - len(seg.lstrip())
        seg = seg.strip()
        if not seg:
            continue
        a += lead
        b = a + len(seg)
        boxes = [c for c in chars[a:b] if c is not None]
        if len(pieces) > 1 and boxes:
            x0, x1 = boxes[0][0], boxes[-1][1]
        else:
            x0, x1 = lt.x0, lt.x1
        out.append(Line(page_no, x0, lt.y0, x1, lt.y1, seg, chars[a:b]))
    return out


def _collect_lines(container, page_no: int, out: list[Line]) -> None:
    for obj in container:
        if isinstance(obj, LTTextBox):
            for lt in obj:
                if isinstance(lt, LTTextLine):
                    out.extend(_lines_from_lt(lt, page_no))
        elif isinstance(obj, LTTextLine):
            out.extend(_lines_from_lt(obj, page_no))
        elif isinstance(obj, LTFigure):
            _collect_lines(obj, page_no, out)


def _name_of(filespec: dict, key_name: str | None) -> str:
    for k in ("UF", "F"):
        v = resolve1(filespec.get(k))
        if isinstance(v, bytes):
            for enc in ("utf-16" if v[:2] in (b"\xfe\xff", b"\xff\xfe") else "latin-1",):
                try:
                    return v.decode(enc)
                except UnicodeDecodeError:
                    pass
        if isinstance(v, str):
            return v
    return key_name or ""


def _literal(v) -> str | None:
    v = resolve1(v)
    if isinstance(v, PSLiteral):
        n = v.name
        return n.decode("latin-1") if isinstance(n, bytes) else str(n)
    return None


def _filespec_attachment(spec, key_name: str | None) -> Attachment | None:
    spec = resolve1(spec)
    if not isinstance(spec, dict):
        return None
    ef = resolve1(spec.get("EF"))
    if not isinstance(ef, dict):
        return None
    stream = resolve1(ef.get("F") or ef.get("UF"))
    if not isinstance(stream, PDFStream):
        return None
    length = resolve1(stream.attrs.get("Length"))
    if isinstance(length, int) and length > MAX_ATTACHMENT_BYTES:
        return None
    try:
        data = stream.get_data()
    except Exception as exc:  # a broken filter in an attachment must not sink the document
        log.debug("unreadable attachment: %s", exc)
        return None
    if data is None or len(data) > MAX_ATTACHMENT_BYTES:
        return None
    return Attachment(
        name=_name_of(spec, key_name),
        data=data,
        relationship=_literal(spec.get("AFRelationship")),
        subtype=_literal(stream.attrs.get("Subtype")),
    )


def _walk_name_tree(node, out: list, depth: int = 0) -> None:
    node = resolve1(node)
    if not isinstance(node, dict) or depth > 32:
        return
    names = resolve1(node.get("Names"))
    if isinstance(names, list):
        for i in range(0, len(names) - 1, 2):
            key = resolve1(names[i])
            key = key.decode("latin-1", "replace") if isinstance(key, bytes) else None
            out.append((key, names[i + 1]))
    kids = resolve1(node.get("Kids"))
    if isinstance(kids, list):
        for kid in kids:
            _walk_name_tree(kid, out, depth + 1)


def find_attachments(doc: PDFDocument) -> list[Attachment]:
    """Embedded files from the /EmbeddedFiles name tree and the catalog's /AF array."""
    catalog = doc.catalog
    specs: list = []
    try:
        names = resolve1(catalog.get("Names"))
        if isinstance(names, dict):
            _walk_name_tree(names.get("EmbeddedFiles"), specs)
        af = resolve1(catalog.get("AF"))
        if isinstance(af, list):
            specs.extend((None, s) for s in af)
    except RecursionError:
        log.debug("attachment name tree nests too deeply")
    except Exception as exc:  # a broken name tree must not sink the document
        log.debug("attachment lookup failed: %s", type(exc).__name__)
    seen: set = set()
    out: list[Attachment] = []
    for key, spec in specs:
        ident = spec.objid if isinstance(spec, PDFObjRef) else id(spec)
        if ident in seen:
            continue
        seen.add(ident)
        try:
            att = _filespec_attachment(spec, key)
        except Exception as exc:  # one broken attachment must not hide the others
            log.debug("attachment skipped: %s", type(exc).__name__)
            att = None
        if att is not None and all(a.data != att.data for a in out):
            out.append(att)
    return out


def parse_pdf(path: str | os.PathLike, *, max_pages: int = MAX_PAGES) -> ParsedPdf:
    """Parse the PDF at ``path`` once; raise ExtractionError for unusable input."""
    try:
        fp = open(path, "rb")
    except FileNotFoundError as exc:
        raise ExtractionError("file_not_found", f"no such file: {os.fspath(path)!r}") from exc
    except OSError as exc:
        raise ExtractionError("io_error", str(exc), transient=True) from exc
    with fp:
        head = fp.read(1024)
        if b"%PDF-" not in head:
            raise ExtractionError("pdf_malformed", "not a PDF file (no %PDF- header)")
        fp.seek(0)
        try:
            parser = PDFParser(fp)
            doc = PDFDocument(parser, password="")
        except PDFEncryptionError as exc:  # includes PDFPasswordIncorrect
            raise ExtractionError("pdf_encrypted", "the PDF is encrypted with a password") from exc
        except RecursionError as exc:
            raise ExtractionError("pdf_malformed", "the PDF nests too deeply") from exc
        except (PDFNoValidXRef, PDFException, PSException) as exc:
            raise ExtractionError("pdf_malformed", f"cannot parse the PDF: {exc}") from exc
        except MemoryError:
            raise
        except Exception as exc:  # pdfminer raises many plain errors on broken files
            raise ExtractionError(
                "pdf_malformed", f"cannot parse the PDF: {type(exc).__name__}"
            ) from exc
        try:
            attachments = find_attachments(doc)
            rsrc = PDFResourceManager(caching=True)
            device = PDFPageAggregator(rsrc, laparams=LAParams(**LAYOUT_PARAMS))
            interpreter = PDFPageInterpreter(rsrc, device)
            pages: list[Page] = []
            for i, pdf_page in enumerate(PDFPage.create_pages(doc), start=1):
                if i > max_pages:
                    raise ExtractionError("pdf_too_large", f"more than {max_pages} pages")
                interpreter.process_page(pdf_page)
                layout = device.get_result()
                lines: list[Line] = []
                _collect_lines(layout, i, lines)
                lines.sort(key=lambda ln: (-ln.y1, ln.x0))
                pages.append(Page(i, layout.width, layout.height, lines))
        except ExtractionError:
            raise
        except PDFEncryptionError as exc:
            raise ExtractionError("pdf_encrypted", "the PDF is encrypted") from exc
        except RecursionError as exc:
            raise ExtractionError("pdf_malformed", "the PDF nests too deeply") from exc
        except (PDFException, PSException) as exc:
            raise ExtractionError("pdf_malformed", f"cannot read the PDF pages: {exc}") from exc
        except MemoryError:
            raise
        except Exception as exc:  # pdfminer raises many plain errors on broken content streams
            raise ExtractionError(
                "pdf_malformed", f"cannot read the PDF pages: {type(exc).__name__}"
            ) from exc
    if not pages:
        raise ExtractionError("pdf_malformed", "the PDF has no pages")
    return ParsedPdf(pages=pages, attachments=attachments)
