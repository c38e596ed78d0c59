"""A small PDF whose pages are slow to read: each content stream is a zlib bomb within
pypdf's own limits (a few MB of text operators from ~18 KB), so ``extract_text`` takes seconds
per page on a fast machine. ``python -m tests.support.pdf_bomb PAGES MB OUT`` writes one."""

from __future__ import annotations

import sys
import zlib

__all__ = ["bomb_pdf"]


def bomb_pdf(pages: int, ops_mb: int, *, text: bytes = b"x") -> bytes:
    """A PDF of ``pages`` pages, each drawing ``ops_mb`` MB of text operators showing
    ``text`` (``b""``: slow to read and yielding no text, so only the time bound stops it,
    however fast the machine)."""
    op = b"BT /F1 12 Tf 72 720 Td (%s) Tj ET\n" % text
    ops = op * (ops_mb * 1024 * 1024 // len(op))
    stream = zlib.compress(ops, 9)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages)).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
    ]
    font = 3 + 2 * pages
    for i in range(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (4 + 2 * i, font)
        )
        objects.append(
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(stream), stream)
        )
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


if __name__ == "__main__":
    with open(sys.argv[3], "wb") as handle:
        handle.write(bomb_pdf(int(sys.argv[1]), int(sys.argv[2])))
