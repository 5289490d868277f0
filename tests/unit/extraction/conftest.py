"""Shared fixtures for the extraction tests: import path, corpus location, schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
try:  # the package may not be installed in the test environment
    import ledgerline  # noqa: F401
except ImportError:  # pragma: no cover - depends on how the venv was set up
    sys.path.insert(0, str(ROOT / "service"))

CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
SCHEMA_PATH = ROOT / "schemas" / "invoice-v2.schema.json"


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip(f"invoice corpus not available at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def schema_validator():
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


# --------------------------------------------------------------------------- synthetic PDFs
def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _rc4(key: bytes, data: bytes) -> bytes:
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


def build_pdf(
    pages: list[list[tuple[float, float, str]]],
    *,
    attachments: dict[str, bytes] | None = None,
    user_password: str | None = None,
    font_size: float = 10,
) -> bytes:
    """A small valid PDF: each page a list of (x, y, text) in Helvetica; optional embedded files
    (registered in /EmbeddedFiles and /AF) and RC4-40 encryption with a user password."""
    import hashlib

    objects: list[tuple[bytes, bytes | None]] = []  # (dictionary, stream data)

    def add(body: bytes, stream: bytes | None = None) -> int:
        objects.append((body, stream))
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    pages_id = add(b"")  # the page tree, filled in below
    kids = []
    for items in pages:
        ops = b"".join(
            b"BT /F1 %g Tf %g %g Td %s Tj ET\n" % (font_size, x, y, _pdf_string(t))
            for x, y, t in items
        )
        content = add(b"<< >>", ops)
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842]"
                b" /Resources << /Font << /F1 %d 0 R >> >>"
                b" /Contents %d 0 R >>" % (pages_id, font, content)
            )
        )
    objects[pages_id - 1] = (
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)),
        None,
    )
    extra = b""
    if attachments:
        specs = []
        for name, data in attachments.items():
            stream = add(b"<< /Type /EmbeddedFile /Subtype /text#2Fxml >>", data)
            specs.append(
                (
                    name,
                    add(
                        b"<< /Type /Filespec /F %s /UF %s /AFRelationship /Alternative"
                        b" /EF << /F %d 0 R >> >>" % (_pdf_string(name), _pdf_string(name), stream)
                    ),
                )
            )
        names = b" ".join(_pdf_string(n) + b" %d 0 R" % ref for n, ref in specs)
        extra = b" /Names << /EmbeddedFiles << /Names [%s] >> >> /AF [%s]" % (
            names,
            b" ".join(b"%d 0 R" % ref for _, ref in specs),
        )
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R%s >>" % (pages_id, extra))
    file_id = hashlib.md5(b"ledgerline-test").digest()
    trailer_extra = b""
    key = None
    if user_password is not None:
        if attachments:
            raise ValueError("encrypted test PDFs carry no attachments")
        # Standard security handler, revision 2 (RC4, 40-bit key); streams are encrypted per object
        owner = hashlib.md5((b"owner" + _PAD)[:32]).digest()[:5]
        o_value = _rc4(owner, (user_password.encode() + _PAD)[:32])
        perms = -4
        key = hashlib.md5(
            (user_password.encode() + _PAD)[:32]
            + o_value
            + perms.to_bytes(4, "little", signed=True)
            + file_id
        ).digest()[:5]
        u_value = _rc4(key, _PAD)
        encrypt = add(
            b"<< /Filter /Standard /V 1 /R 2 /Length 40 /O <%s> /U <%s> /P %d >>"
            % (o_value.hex().encode(), u_value.hex().encode(), perms)
        )
        trailer_extra = b" /Encrypt %d 0 R" % encrypt
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, (body, stream) in enumerate(objects, start=1):
        offsets.append(len(out))
        if stream is None:
            out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
            continue
        if key is not None:
            obj_key = hashlib.md5(key + n.to_bytes(3, "little") + b"\x00\x00").digest()[:10]
            stream = _rc4(obj_key, stream)
        head = body[:-2].rstrip() + b" /Length %d >>" % len(stream)
        out += b"%d 0 obj\n" % n + head + b"\nstream\n" + stream + b"\nendstream\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R /ID [<%s> <%s>]%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        file_id.hex().encode(),
        file_id.hex().encode(),
        trailer_extra,
        xref,
    )
    return bytes(out)


@pytest.fixture
def make_pdf(tmp_path):
    counter = iter(range(10_000))

    def _make(pages, **kw) -> Path:
        path = tmp_path / f"doc{next(counter)}.pdf"
        path.write_bytes(build_pdf(pages, **kw))
        return path

    return _make
