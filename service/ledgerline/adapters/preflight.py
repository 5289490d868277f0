"""Cheap structural checks that run before full parsing, inside the sandboxed child.

A hostile PDF is cheapest to refuse before layout analysis starts: a page tree that loops or
declares ten thousand pages, an encryption dictionary we cannot open, or a stream that inflates to
gigabytes. Streams are measured, never kept: each filter chain is decoded incrementally against a
budget shared by the whole document, so a decompression bomb stops at the budget, not at the
end of its output. That includes the streams pdfminer itself inflates while it opens the
document (object streams holding the catalog, cross-reference streams, the object streams a
rebuilt cross-reference scans): while the pre-flight runs, every decode pdfminer starts is
measured against the budget first.

The document the pre-flight parsed is the one the extraction then reads (`checked_pdf`): one
parse of the file, not two. A stream the pre-flight inflated whole, and that pdfminer would
inflate to the same bytes (one Flate filter, no predictor, a clean end), keeps its bytes for the
extraction instead of being inflated a second time, within MAX_KEPT_BYTES a document.

Images get the same treatment from their headers: pages are counted up to the limit and each
page's pixels weighed before anything is decoded (see ``extraction/ocr/images.py``).
"""
from __future__ import annotations

import contextlib
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from pdfminer.ascii85 import ascii85decode, asciihexdecode
from pdfminer.lzw import LZWDecoder
from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import (
    LITERALS_ASCII85_DECODE,
    LITERALS_ASCIIHEX_DECODE,
    LITERALS_CCITTFAX_DECODE,
    LITERALS_FLATE_DECODE,
    LITERALS_LZW_DECODE,
    LITERALS_RUNLENGTH_DECODE,
    PDFException,
    PDFObjRef,
    PDFStream,
    resolve1,
)
from pdfminer.psparser import PSException, PSLiteral

from ..extraction.errors import ExtractionError
from ..extraction.ocr.options import DEFAULT_MAX_PIXELS

CHUNK = 1024 * 1024
# Inflated stream bytes kept for the extraction, a document: content streams, fonts and
# embedded files, which the extraction reads; past this the rest is inflated again if read.
MAX_KEPT_BYTES = 32 * 1024 * 1024
MAX_TREE_NODES = 200_000  # page-tree nodes visited before we call the tree malformed
MAX_PARENT_CHAIN = 64


@dataclass(frozen=True)
class PreflightLimits:
    max_pages: int
    max_decompressed_bytes: int
    max_pixels: int = DEFAULT_MAX_PIXELS  # of one image page, before it is decoded


@dataclass(frozen=True)
class PreflightReport:
    pages: int
    decompressed_bytes: int
    streams: int


@dataclass
class _Budget:
    limit: int
    used: int = 0
    measured: dict = field(default_factory=dict)  # id → stream, each charged once
    kept: int = 0  # inflated bytes kept on their streams for the extraction

    @property
    def left(self) -> int:
        return self.limit - self.used

    def spend(self, n: int) -> None:
        self.used += n
        if self.used > self.limit:
            raise _over_budget(self.limit)

    def measure(self, stream: PDFStream) -> None:
        if id(stream) in self.measured:
            return
        self.measured[id(stream)] = stream  # kept, so that its id is not reused
        size = decoded_size(stream, self.left, keep_up_to=MAX_KEPT_BYTES - self.kept)
        self.spend(size)
        if stream.rawdata is None:  # inflated and kept for the extraction
            self.kept += size


@contextlib.contextmanager
def _bounded_decoding(budget: _Budget):
    """Every stream pdfminer decodes in this block is measured against the budget first.

    pdfminer inflates some streams while a PDFDocument is being constructed, before any of our
    checks can look at the document; only a measurement at the decode itself can come first.
    """
    decode = PDFStream.decode

    def measured_decode(stream: PDFStream) -> None:
        if stream.rawdata is not None:
            budget.measure(stream)
        if stream.data is None:  # not inflated by the measurement itself
            decode(stream)

    PDFStream.decode = measured_decode
    try:
        yield
    finally:
        PDFStream.decode = decode


def _over_budget(limit: int) -> ExtractionError:
    return ExtractionError(
        "pdf_too_large", f"streams decompress to more than {limit // (1024 * 1024)} MB")


def check_pdf(path: str, limits: PreflightLimits) -> PreflightReport:
    """Raise ExtractionError (pdf_malformed, pdf_encrypted, pdf_too_large) or report sizes."""
    with checked_pdf(path, limits) as (_, report):
        return report


@contextlib.contextmanager
def checked_pdf(path: str, limits: PreflightLimits) -> Iterator[tuple[PDFDocument,
                                                                       PreflightReport]]:
    """The checks of `check_pdf`, then the parsed document (its file open for the block) and
    its sizes, for the extraction to read instead of parsing the file again."""
    budget = _Budget(limits.max_decompressed_bytes)
    with open(path, "rb") as fp:
        with _bounded_decoding(budget):
            doc, report = _check(fp, budget, limits)
        yield doc, report


def _check(fp, budget: _Budget, limits: PreflightLimits) -> tuple[PDFDocument, PreflightReport]:
    if b"%PDF-" not in fp.read(1024):
        raise ExtractionError("pdf_malformed", "not a PDF file (no %PDF- header)")
    fp.seek(0)
    try:
        doc = PDFDocument(PDFParser(fp), password="")
    except PDFEncryptionError as exc:
        raise ExtractionError("pdf_encrypted", "the PDF is encrypted with a password") from exc
    except (PDFException, PSException, ValueError, KeyError, TypeError, IndexError) as exc:
        raise ExtractionError("pdf_malformed", f"cannot parse the PDF: {exc}") from exc
    except RecursionError as exc:
        raise ExtractionError("pdf_malformed", "the PDF nests too deeply") from exc
    try:
        check_declared_pages(doc, limits.max_pages)
        # Object streams first: resolving a page inside one makes pdfminer inflate it whole.
        containers = _object_stream_ids(doc)
        streams = measure_streams(doc, budget, containers)
        pages = count_pages(doc, limits.max_pages)
        streams += measure_streams(doc, budget, _top_level_objids(doc), skip=containers)
    except ExtractionError:
        raise
    except PDFEncryptionError as exc:
        raise ExtractionError("pdf_encrypted", "the PDF is encrypted") from exc
    except (PDFException, PSException, ValueError, KeyError, TypeError, IndexError,
            AssertionError, zlib.error) as exc:
        raise ExtractionError("pdf_malformed", f"cannot read the PDF: {exc}") from exc
    except RecursionError as exc:
        raise ExtractionError("pdf_malformed", "the PDF nests too deeply") from exc
    return doc, PreflightReport(pages=pages, decompressed_bytes=budget.used, streams=streams)


# -- the page tree ---------------------------------------------------------------------------

def _type_name(node: dict) -> str | None:
    t = resolve1(node.get("Type"))
    return t.name if isinstance(t, PSLiteral) else None


def _page_tree_root(doc: PDFDocument):
    root_ref = doc.catalog.get("Pages")
    if not isinstance(resolve1(root_ref), dict):
        raise ExtractionError("pdf_malformed", "the catalog has no page tree")
    return root_ref


def check_declared_pages(doc: PDFDocument, max_pages: int) -> None:
    """The catalog's own /Count: cheap, and only ever trusted to refuse."""
    declared = resolve1(resolve1(_page_tree_root(doc)).get("Count"))
    if isinstance(declared, int) and declared > max_pages:
        raise ExtractionError("pdf_too_large", f"{declared} pages; the limit is {max_pages}")


def count_pages(doc: PDFDocument, max_pages: int) -> int:
    """Leaves of the page tree, walked iteratively; loops are malformed, too many is too large."""
    root_ref = _page_tree_root(doc)
    pages = 0
    on_path: set[int] = set()  # indirect objects on the current root-to-node path
    seen: set[int] = set()  # a DAG that lists a subtree many times must not blow up
    stack: list = [(root_ref, False)]
    visited = 0
    while stack:
        ref, leaving = stack.pop()
        objid = ref.objid if isinstance(ref, PDFObjRef) else None
        if leaving:
            on_path.discard(objid)
            continue
        visited += 1
        if visited > MAX_TREE_NODES:
            raise ExtractionError("pdf_malformed", "the page tree is implausibly large")
        if objid is not None:
            if objid in on_path:
                raise ExtractionError("pdf_malformed", "the page tree contains a cycle")
            if objid in seen:
                continue  # listed twice: count it once, as pdfminer does
            on_path.add(objid)
            seen.add(objid)
            stack.append((ref, True))
        node = resolve1(ref)
        if not isinstance(node, dict):
            continue
        kids = resolve1(node.get("Kids"))
        if _type_name(node) == "Page" or (kids is None and "Contents" in node):
            pages += 1
            if pages > max_pages:
                raise ExtractionError("pdf_too_large", f"more than {max_pages} pages")
            _check_parent_chain(node)
        elif isinstance(kids, list):
            stack.extend((kid, False) for kid in reversed(kids))
    if pages == 0:
        raise ExtractionError("pdf_malformed", "the PDF has no pages")
    return pages


def _check_parent_chain(page: dict) -> None:
    """Attributes are inherited up /Parent; a loop there hangs any reader that follows it."""
    seen: set[int] = set()
    ref = page.get("Parent")
    for _ in range(MAX_PARENT_CHAIN):
        if ref is None:
            return
        if isinstance(ref, PDFObjRef):
            if ref.objid in seen:
                raise ExtractionError("pdf_malformed", "the page tree's /Parent links loop")
            seen.add(ref.objid)
        node = resolve1(ref)
        if not isinstance(node, dict):
            return
        ref = node.get("Parent")
    raise ExtractionError("pdf_malformed", "the page tree nests too deeply")


# -- streams -----------------------------------------------------------------------------------

def _top_level_objids(doc: PDFDocument):
    """Objects stored directly in the file; streams can never live inside object streams."""
    seen: set[int] = set()
    for xref in doc.xrefs:
        for objid in xref.get_objids():
            if objid in seen:
                continue
            seen.add(objid)
            try:
                strmid, _, _ = xref.get_pos(objid)
            except KeyError:
                continue
            if strmid is None:
                yield objid


def _object_stream_ids(doc: PDFDocument) -> set[int]:
    """Streams that hold other objects, read from the xref alone (nothing is parsed)."""
    ids: set[int] = set()
    for xref in doc.xrefs:
        for objid in xref.get_objids():
            try:
                strmid, _, _ = xref.get_pos(objid)
            except KeyError:
                continue
            if strmid is not None:
                ids.add(strmid)
    return ids


def measure_streams(doc: PDFDocument, budget: _Budget, objids, skip=frozenset()) -> int:
    count = 0
    for objid in objids:
        if objid in skip:
            continue
        try:
            obj = doc.getobj(objid)
        except (PDFException, PSException):
            continue  # a dangling xref entry; the parser skips it the same way
        if isinstance(obj, PDFStream):
            count += 1
            _check_image_size(obj, budget.limit)
            budget.measure(obj)
    return count


def _check_image_size(stream: PDFStream, limit: int) -> None:
    if _name(stream.get("Subtype")) != "Image":
        return
    w, h = resolve1(stream.get("Width")), resolve1(stream.get("Height"))
    bpc = resolve1(stream.get("BitsPerComponent")) or 8
    if not all(isinstance(v, int) for v in (w, h, bpc)):
        return
    if w < 0 or h < 0:
        raise ExtractionError("pdf_malformed", "an image has negative dimensions")
    if w * h * max(bpc, 1) * 4 // 8 > limit:  # at most four components
        raise ExtractionError("pdf_too_large", f"an image of {w}x{h} pixels")


def _name(v) -> str | None:
    v = resolve1(v)
    return v.name if isinstance(v, PSLiteral) else None


def _keepable(stream: PDFStream, filters: list) -> bool:
    """Whether the stream's inflated bytes are what pdfminer's own decode would make of it:
    one Flate filter without a predictor. Images are never kept: pdfminer leaves their pixels
    alone while it reads the text."""
    if len(filters) != 1 or _name(stream.get("Subtype")) == "Image":
        return False
    f, params = filters[0]
    return f in LITERALS_FLATE_DECODE and not (isinstance(params, dict) and "Predictor" in params)


def decoded_size(stream: PDFStream, limit: int, *, keep_up_to: int = 0) -> int:
    """Size of the stream after its filter chain, decoding at most `limit` bytes of output.

    A stream that `_keepable` allows, inflated cleanly to at most `keep_up_to` bytes, keeps them
    as pdfminer's decode would have left them, so that the extraction does not inflate it again.
    """
    if stream.rawdata is None:  # pdfminer decoded it already (an xref stream): just count
        return len(stream.data or b"")
    data = stream.rawdata
    declared = resolve1(stream.get("DL"))
    if isinstance(declared, int) and declared > limit:
        raise _over_budget_left(limit)
    if stream.decipher and stream.objid is not None:
        data = stream.decipher(stream.objid, stream.genno, data, stream.attrs)
    size = len(data)
    filters = stream.get_filters()
    whole = keep_up_to > 0 and _keepable(stream, filters)
    for i, (f, params) in enumerate(filters):
        keep = whole or i < len(filters) - 1  # else the last stage is only counted, not held
        if f in LITERALS_FLATE_DECODE:
            data, size, clean = _inflate(data, limit, keep)
            if whole and clean and size <= keep_up_to:  # PDFStream.decode's own ending
                stream.data, stream.rawdata = data, None
            continue
        if f in LITERALS_LZW_DECODE:
            data = _lzw(data, limit)
        elif f in LITERALS_RUNLENGTH_DECODE:
            data = _runlength(data, limit)
        elif f in LITERALS_ASCII85_DECODE:
            data = ascii85decode(data)  # output is smaller than input
        elif f in LITERALS_ASCIIHEX_DECODE:
            data = asciihexdecode(data)
        elif f in LITERALS_CCITTFAX_DECODE:
            _check_ccitt(params, limit)
            break  # pdfminer decodes fax data only when asked; its size is now bounded
        else:
            break  # images (DCT, JPX, JBIG2) and unknown filters: pdfminer does not inflate them
        size = len(data)
        if size > limit:
            raise _over_budget_left(limit)
    return size


def _over_budget_left(limit: int) -> ExtractionError:
    return ExtractionError("pdf_too_large", "a stream decompresses past the size limit "
                           f"({limit // (1024 * 1024)} MB left of the document's budget)")


def _inflate(data: bytes, limit: int, keep: bool) -> tuple[bytes, int, bool]:
    """Inflate at most `limit` bytes, a chunk at a time; keep the output only if asked. Also
    whether the data ended cleanly: pdfminer recovers what it can from the rest in its own way,
    so only a clean output is what its decode would make."""
    d = zlib.decompressobj()
    out = bytearray()
    size = 0
    chunk = data
    clean = False
    try:
        while chunk:
            piece = d.decompress(chunk, min(CHUNK, limit + 1 - size))
            size += len(piece)
            if size > limit:
                raise _over_budget_left(limit)
            if keep:
                out += piece
            chunk = d.unconsumed_tail
            if d.eof:
                break
        tail = d.flush()
        size += len(tail)
        if keep:
            out += tail
        clean = d.eof
    except zlib.error:
        pass  # pdfminer recovers what it can from corrupt data, and so do we
    if size > limit:
        raise _over_budget_left(limit)
    return bytes(out), size, clean


def _lzw(data: bytes, limit: int) -> bytes:
    out = bytearray()
    for piece in LZWDecoder(io.BytesIO(data)).run():
        out += piece
        if len(out) > limit:
            raise _over_budget_left(limit)
    return bytes(out)


def _runlength(data: bytes, limit: int) -> bytes:
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        length = data[i]
        if length == 128:
            break
        if length < 128:
            out += data[i + 1 : i + 2 + length]
            i += length + 2
        else:
            out += data[i + 1 : i + 2] * (257 - length)
            i += 2
        if len(out) > limit:
            raise _over_budget_left(limit)
    return bytes(out)


def _check_ccitt(params, limit: int) -> None:
    params = resolve1(params) if params else {}
    if not isinstance(params, dict):
        return
    cols, rows = resolve1(params.get("Columns", 1728)), resolve1(params.get("Rows", 0))
    if isinstance(cols, int) and isinstance(rows, int) and cols * rows // 8 > limit:
        raise _over_budget_left(limit)


# -- images ------------------------------------------------------------------------------------

def check_image(path: str, limits: PreflightLimits) -> PreflightReport:
    """Raise ExtractionError (image_malformed, image_too_large, image_too_many_pages) from the
    headers alone, or report the page count."""
    from ..extraction.ocr.images import check_frames
    from ..extraction.ocr.options import OcrOptions

    pages = check_frames(path, OcrOptions(max_pixels=limits.max_pixels,
                                          max_pages=limits.max_pages))
    return PreflightReport(pages=pages, decompressed_bytes=0, streams=0)
