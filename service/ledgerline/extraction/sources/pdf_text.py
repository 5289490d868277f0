"""The PDF text-layer source: one pdfminer pass per document, positioned lines for every page.

The same :class:`~pdfminer.pdfdocument.PDFDocument` serves the layout analysis and the lookup of
embedded files (:mod:`.pdf_attachments`), so a document is parsed exactly once.  Layout analysis
runs with ``boxes_flow=None``: we read positioned lines, not pdfminer's reading order of text
boxes, and skipping the hierarchical box grouping saves about a tenth of the analysis time.
The values of a filled-in form's text fields are lines of their page too (:mod:`.pdf_form_fields`).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass

from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import LAParams, LTChar, LTFigure, LTTextBox, LTTextLine
from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFNoValidXRef
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import PDFException
from pdfminer.psparser import PSException

from ..errors import ExtractionError
from ..model import Line, Page
from ..text import normalise_text
from .pdf_attachments import Attachment, find_attachments
from .pdf_form_fields import field_lines
from .pdf_layout import LAYOUT_PARAMS, MAX_PAGES

log = logging.getLogger(__name__)
# pdfminer warns about every broken operator and font in a damaged file, quoting the content
# stream; invoice content must not end up in logs, so only its errors pass.
logging.getLogger("pdfminer").setLevel(logging.ERROR)

MIN_TEXT_CHARS = 20  # fewer printed characters than this: no text layer to read
# Glyphs pdfminer cannot map to text come out as "(cid:NN)"; a page with more than one in this
# many characters has a text layer that cannot be read.
CID_SHARE = 6


@dataclass(slots=True)
class ParsedPdf:
    """A PDF read once: its pages in the positioned-text model and its embedded files."""

    pages: list[Page]
    attachments: list[Attachment]

    @property
    def text_chars(self) -> int:
        return sum(len(ln.text.strip()) for p in self.pages for ln in p.lines)

    @property
    def has_text_layer(self) -> bool:
        """Enough readable text to extract from (not a scan, not unmapped glyphs)."""
        chars = cid = 0
        for page in self.pages:
            for ln in page.lines:
                cid += ln.text.count("(cid:")
                chars += len(ln.text.strip())
        return chars >= MIN_TEXT_CHARS and cid * CID_SHARE < chars


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
    text = normalise_text("".join(parts))
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


def parse_pdf(path: str | os.PathLike, *, max_pages: int = MAX_PAGES,
              pdf_document: PDFDocument | None = None) -> ParsedPdf:
    """Parse the PDF at ``path`` once; raise ExtractionError for unusable input. ``pdf_document``:
    that file's PDFDocument, parsed already (by the sandbox's pre-flight, whose checks it
    passed) and open for the call, to read instead of parsing the file again."""
    if pdf_document is not None:
        return _read_document(pdf_document, max_pages)
    try:
        fp = open(path, "rb")  # noqa: SIM115 - closed by `with fp` below, once open errors are told apart
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
        return _read_document(doc, max_pages)


def _read_document(doc: PDFDocument, max_pages: int) -> ParsedPdf:
    """The pages and embedded files of a parsed PDF, whose file is open."""
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
            lines.extend(field_lines(pdf_page, i))
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
