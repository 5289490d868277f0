"""Generators for hostile (and a few benign but unusual) PDFs, built in memory in milliseconds.

Nothing here is downloaded: every file is written object by object, with a correct cross-reference
table unless breaking it is the point.
"""
from __future__ import annotations

import io
import zlib

TEXT = [
    "ACME Supplies GmbH",
    "Invoice number: INV-2026-0042",
    "Invoice date: 2026-11-29",
    "Net total: 100.00 EUR",
    "VAT 19%: 19.00 EUR",
    "Total due: 119.00 EUR",
]


class Pdf:
    """A tiny PDF writer: add objects by number, get bytes with a valid xref and trailer."""

    def __init__(self):
        self.objects: dict[int, bytes] = {}

    def add(self, body: bytes | str, num: int | None = None) -> int:
        num = num or (max(self.objects, default=0) + 1)
        self.objects[num] = body.encode("latin-1") if isinstance(body, str) else body
        return num

    def stream(self, data: bytes, extra: str = "", num: int | None = None) -> int:
        head = f"<< /Length {len(data)} {extra} >>\nstream\n".encode()
        return self.add(head + data + b"\nendstream", num)

    def bytes(self, root: int = 1, trailer_extra: str = "") -> bytes:
        out = io.BytesIO()
        out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        size = max(self.objects) + 1
        offsets = {}
        for num in sorted(self.objects):
            offsets[num] = out.tell()
            out.write(f"{num} 0 obj\n".encode() + self.objects[num] + b"\nendobj\n")
        xref = out.tell()
        out.write(f"xref\n0 {size}\n0000000000 65535 f \n".encode())
        for num in range(1, size):
            if num in offsets:
                out.write(f"{offsets[num]:010d} 00000 n \n".encode())
            else:
                out.write(b"0000000000 65535 f \n")
        out.write(f"trailer\n<< /Size {size} /Root {root} 0 R {trailer_extra} >>\n".encode())
        out.write(f"startxref\n{xref}\n%%EOF\n".encode())
        return out.getvalue()


def _content(lines=TEXT) -> bytes:
    ops = ["BT", "/F1 11 Tf", "14 TL", "50 780 Td"]
    for line in lines:
        ops.append(f"({line}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode()


def _invoice_skeleton(catalog_extra: str = "", page_extra: str = "",
                      resources_extra: str = "") -> Pdf:
    """Objects 1 catalog, 2 pages, 3 page, 4 font, 5 content."""
    pdf = Pdf()
    pdf.add(f"<< /Type /Catalog /Pages 2 0 R {catalog_extra} >>", 1)
    pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", 2)
    pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
            f"/Resources << /Font << /F1 4 0 R >> {resources_extra} >> {page_extra} >>", 3)
    pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", 4)
    pdf.stream(zlib.compress(_content()), "/Filter /FlateDecode", 5)
    return pdf


# -- benign ------------------------------------------------------------------------------------

def good_invoice() -> bytes:
    return _invoice_skeleton().bytes()


def with_javascript() -> bytes:
    pdf = _invoice_skeleton(catalog_extra="/OpenAction 6 0 R /Names << /JavaScript 7 0 R >>")
    pdf.add("<< /Type /Action /S /JavaScript /JS (app.alert\\('hello'\\); this.print\\(\\);) >>", 6)
    pdf.add("<< /Names [(init) 6 0 R] >>", 7)
    return pdf.bytes()


def with_embedded_file() -> bytes:
    pdf = _invoice_skeleton(catalog_extra="/Names << /EmbeddedFiles 8 0 R >>")
    pdf.stream(b"#!/bin/sh\necho not an invoice\n", "/Type /EmbeddedFile /Subtype /text#2Fplain", 6)
    pdf.add("<< /Type /Filespec /F (run.sh) /UF (run.sh) /EF << /F 6 0 R >> >>", 7)
    pdf.add("<< /Names [(run.sh) 7 0 R] >>", 8)
    return pdf.bytes()


def image_only() -> bytes:
    """A page with a (tiny) picture and no text at all: a scan without OCR."""
    pdf = _invoice_skeleton(resources_extra="/XObject << /Im1 6 0 R >>")
    pdf.stream(b"q 100 0 0 100 50 700 cm /Im1 Do Q", "", 5)
    pdf.stream(zlib.compress(bytes(16 * 16)), "/Type /XObject /Subtype /Image /Width 16 "
               "/Height 16 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", 6)
    return pdf.bytes()


# -- broken ------------------------------------------------------------------------------------

def truncated() -> bytes:
    """Cut inside the page tree: no trailer, no xref, and the catalog's /Pages never arrives."""
    data = good_invoice()
    return data[: data.index(b"2 0 obj") + 12]


def truncated_mid_stream() -> bytes:
    data = good_invoice()
    return data[: data.index(b"stream\n") + 20]


def corrupted() -> bytes:
    """A valid header followed by noise shaped like PDF tokens, and a lying startxref."""
    import random

    rnd = random.Random(42)
    noise = bytes(rnd.getrandbits(8) for _ in range(20_000))
    return (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\n" + noise
            + b"\nstartxref\n999999\n%%EOF\n")


def header_only() -> bytes:
    return b"%PDF-1.7\n"


def not_a_pdf() -> bytes:
    return b"PK\x03\x04" + bytes(200) + b"this is a zip archive, not a PDF\n"


def zero_bytes() -> bytes:
    return b""


# -- encrypted ---------------------------------------------------------------------------------

def encrypted(user_password: str = "secret", algorithm: str = "RC4-128") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(good_invoice())))
    writer.encrypt(user_password=user_password, owner_password="owner-" + user_password,
                   algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def encrypted_no_user_password() -> bytes:
    """Permissions-only encryption: every reader opens it without asking; so do we."""
    return encrypted(user_password="")


# -- decompression bombs -----------------------------------------------------------------------

def zlib_zeros(megabytes: int) -> bytes:
    """A zlib stream of `megabytes` MiB of zeros, built in milliseconds.

    After a full flush the compressor's history is empty, so every further MiB of zeros compresses
    to the same bytes; repeat them, then end with an empty final block and the right Adler-32.
    """
    c = zlib.compressobj(9)
    mib = bytes(1 << 20)
    first = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
    repeat = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
    adler = ((megabytes << 20) % 65521) << 16 | 1
    return first + repeat * (megabytes - 1) + b"\x03\x00" + adler.to_bytes(4, "big")


def flate_bomb(gigabytes: int = 2) -> bytes:
    """A page content stream that inflates to gigabytes of zeros (about 1 MB per GB on disk)."""
    pdf = _invoice_skeleton()
    pdf.stream(zlib_zeros(gigabytes * 1024), "/Filter /FlateDecode", 5)
    return pdf.bytes()


def nested_flate_bomb(gigabytes: int = 16) -> bytes:
    """Two FlateDecode stages: a few kilobytes on disk, gigabytes after the second stage."""
    pdf = _invoice_skeleton()
    inner = zlib_zeros(gigabytes * 1024)
    pdf.stream(zlib.compress(inner, 9), "/Filter [/FlateDecode /FlateDecode]", 5)
    return pdf.bytes()


def unreferenced_bomb(gigabytes: int = 2) -> bytes:
    """The bomb hangs off no page; a reader that decodes every stream still meets it."""
    pdf = _invoice_skeleton()
    pdf.stream(zlib_zeros(gigabytes * 1024), "/Filter /FlateDecode", 6)
    return pdf.bytes()


def object_stream_bomb(gigabytes: int = 2) -> bytes:
    """No usable xref, and an object stream that inflates to gigabytes: a reader rebuilding the
    xref opens every object stream while it scans, before any check of ours can look at it."""
    inner = zlib_zeros(gigabytes * 1024)
    head = f"1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length {len(inner)} >>"
    return (b"%PDF-1.7\n" + head.encode() + b"\nstream\n" + inner + b"\nendstream\nendobj\n"
            + b"2 0 obj\n<< /Type /Catalog /Pages 3 0 R >>\nendobj\ntrailer\n<< /Root 2 0 R >>\n"
            + b"%%EOF\n")


def catalog_in_object_stream_bomb(megabytes: int = 2048) -> bytes:
    """A valid cross-reference stream whose /Root lives in an object stream that inflates to
    gigabytes: pdfminer opens it to read the catalog while the document is being constructed."""
    catalog = b"<< /Type /Catalog /Pages 2 0 R >>"
    head = b"1 0 "
    body = head + catalog + b"\n"
    inner = _zlib_with_zeros(body, megabytes)
    pdf = _invoice_skeleton()
    del pdf.objects[1]
    pdf.stream(inner, f"/Type /ObjStm /N 1 /First {len(head)} /Filter /FlateDecode", 6)
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for num in sorted(pdf.objects):
        offsets[num] = out.tell()
        out.write(f"{num} 0 obj\n".encode() + pdf.objects[num] + b"\nendobj\n")
    xref_at = out.tell()
    rows = [b"\x00" + bytes(4) + b"\xff\xff", b"\x02" + (6).to_bytes(4, "big") + bytes(2)]
    rows += [b"\x01" + offsets[n].to_bytes(4, "big") + bytes(2) for n in range(2, 7)]
    rows.append(b"\x01" + xref_at.to_bytes(4, "big") + bytes(2))
    table = b"".join(rows)
    out.write(f"7 0 obj\n<< /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R /Length {len(table)} >>"
              "\nstream\n".encode() + table + b"\nendstream\nendobj\n")
    out.write(f"startxref\n{xref_at}\n%%EOF\n".encode())
    return out.getvalue()


def _zlib_with_zeros(prefix: bytes, megabytes: int) -> bytes:
    """zlib of `prefix` followed by `megabytes` MiB of zeros, built like zlib_zeros."""
    c = zlib.compressobj(9)
    start = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    mib = bytes(1 << 20)
    repeat = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
    # Zeros leave Adler-32's first sum alone and add it to the second once per byte.
    adler = zlib.adler32(prefix)
    a, b = adler & 0xFFFF, adler >> 16
    b = (b + a * (megabytes << 20)) % 65521
    return start + repeat * megabytes + b"\x03\x00" + ((b << 16) | a).to_bytes(4, "big")


# -- hostile structure -------------------------------------------------------------------------

def kids_loop() -> bytes:
    """The page tree lists itself among its own kids."""
    pdf = _invoice_skeleton()
    pdf.add("<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>", 2)
    pdf.add("<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>", 6)
    return pdf.bytes()


def parent_cycle() -> bytes:
    """A page whose /Parent chain loops without ever reaching the root."""
    pdf = _invoice_skeleton()
    pdf.add("<< /Type /Page /Parent 6 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
            "/Resources << /Font << /F1 4 0 R >> >> >>", 3)
    pdf.add("<< /Type /Pages /Parent 7 0 R /Kids [3 0 R] /Count 1 >>", 6)
    pdf.add("<< /Type /Pages /Parent 6 0 R /Kids [6 0 R] /Count 1 >>", 7)
    pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", 2)
    return pdf.bytes()


def deeply_nested_arrays(depth: int = 20_000) -> bytes:
    """An array inside an array, twenty thousand deep (a recursive reader stops at 1,000)."""
    pdf = _invoice_skeleton(page_extra="/Deep 6 0 R")
    pdf.add("[" * depth + "]" * depth, 6)
    return pdf.bytes()


def deeply_nested_dicts(depth: int = 20_000) -> bytes:
    pdf = _invoice_skeleton(resources_extra="/ExtGState 6 0 R")
    pdf.add("<< /A " * depth + "1" + " >>" * depth, 6)
    return pdf.bytes()


def many_pages(pages: int = 10_000, declared: int | None = None) -> bytes:
    """`pages` page objects sharing one content stream; /Count may lie (`declared`)."""
    pdf = _invoice_skeleton()
    first = 6
    kids = " ".join(f"{first + i} 0 R" for i in range(pages))
    count = pages if declared is None else declared
    pdf.add(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>", 2)
    del pdf.objects[3]
    for i in range(pages):
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
                "/Resources << /Font << /F1 4 0 R >> >> >>", first + i)
    return pdf.bytes()


def huge_image() -> bytes:
    """A 100,000 x 100,000 RGB image (30 GB decoded) declared over a few bytes of JPEG."""
    pdf = _invoice_skeleton(resources_extra="/XObject << /Im1 6 0 R >>")
    pdf.stream(_content() + b"\nq 500 0 0 500 50 100 cm /Im1 Do Q", "", 5)
    pdf.stream(b"\xff\xd8\xff\xe0" + bytes(64) + b"\xff\xd9", "/Type /XObject /Subtype /Image "
               "/Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8 "
               "/Filter /DCTDecode", 6)
    return pdf.bytes()


def huge_flate_image() -> bytes:
    """An image whose pixels really are there, compressed: 2 GB of zeros behind 2 MB."""
    pdf = _invoice_skeleton(resources_extra="/XObject << /Im1 6 0 R >>")
    pdf.stream(_content() + b"\nq 500 0 0 500 50 100 cm /Im1 Do Q", "", 5)
    pdf.stream(zlib_zeros(2048), "/Type /XObject /Subtype /Image /Width 32768 /Height 65536 "
               "/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", 6)
    return pdf.bytes()
