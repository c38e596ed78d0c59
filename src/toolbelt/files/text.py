"""Decode a file's bytes to text and encode it back exactly as it was stored.

Models see text with ``\\n`` line endings; the file keeps whatever it had: UTF-8 with or
without a BOM, UTF-16 with its BOM, a legacy encoding found by charset-normalizer (GBK,
Latin-1...), and CRLF or CR line endings. ``DecodedText`` remembers all of that so a write or
an edit round-trips every byte it did not mean to change — never ``errors="replace"``.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from toolbelt.core.errors import ToolError

__all__ = ["DecodedText", "decode_text", "encode_text", "looks_binary"]

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"\x7fELF", "an ELF executable"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"SQLite format 3\x00", "a SQLite database"),
    (b"\xca\xfe\xba\xbe", "a Java class file or Mach-O binary"),
    (b"MZ", "a Windows executable"),
)


@dataclass(frozen=True, slots=True)
class DecodedText:
    """Text with ``\\n`` newlines plus what is needed to store it back unchanged."""

    text: str
    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"


def looks_binary(sample: bytes) -> str | None:
    """A short description when ``sample`` (the first KBs) is not text, else None."""
    for magic, what in _MAGIC:
        if sample.startswith(magic):
            return what
    if any(sample.startswith(bom) for bom, _ in _BOMS[1:]):
        return None  # UTF-16/32 text is full of NUL bytes
    if b"\x00" in sample:
        return "binary data (it contains NUL bytes)"
    return None


def decode_text(data: bytes) -> DecodedText:
    """Decode ``data``; raise ToolError when no encoding fits."""
    bom, encoding = b"", "utf-8"
    for candidate, name in _BOMS:
        if data.startswith(candidate):
            bom, encoding = candidate, name
            break
    body = data[len(bom) :]
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        if bom:
            raise ToolError(
                f"The file starts with a {encoding} BOM but is not valid {encoding}."
            ) from exc
        encoding, text = _detect(body)
    newline = _dominant_newline(text)
    if newline != "\n":
        text = text.replace("\r\n", "\n") if newline == "\r\n" else text.replace("\r", "\n")
    return DecodedText(text, encoding, bom, newline)


def encode_text(text: str, like: DecodedText) -> bytes:
    """``text`` (with ``\\n`` newlines) in the stored form of ``like``."""
    if like.newline != "\n":
        text = text.replace("\n", like.newline)
    try:
        return like.bom + text.encode(like.encoding)
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise ToolError(
            f"The file is stored as {like.encoding}, which cannot hold {bad!r}; use characters "
            f"that exist in {like.encoding} or convert the file to UTF-8 first."
        ) from exc


def _detect(body: bytes) -> tuple[str, str]:
    from charset_normalizer import from_bytes

    best = from_bytes(body).best()
    if best is None:
        raise ToolError(
            "The file is not valid UTF-8 and its encoding could not be recognised, so it is "
            "treated as binary; inspect it with bash (`file`, `iconv`)."
        )
    return best.encoding, str(best)


def _dominant_newline(text: str) -> str:
    if "\r" not in text:  # the common case, decided by one fast scan
        return "\n"
    crlf = text.count("\r\n")
    lone_cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    if crlf > lf and crlf >= lone_cr:
        return "\r\n"
    if lone_cr > lf and lone_cr > crlf:
        return "\r"
    return "\n"
