"""Binary command output, summarised instead of sent: ``cat`` of an image or ``head -c 30000
/dev/zero`` prints bytes no model can use, and each NUL becomes six characters (``\\u0000``)
in the JSON a client receives — 30,000 NULs were a 180 KB result.

``BinarySniffer`` watches the raw bytes as they arrive (one ``bytes.translate`` per chunk, C
speed) and keeps the first few KB; when most of the output is control bytes it is called
binary and the model gets its size, where the whole output is, a short hex dump and the
printable strings found in it. ``json_size`` is what a text costs once JSON-escaped, so text
output with scattered control characters is also held to a byte budget, not only a
character one.
"""

from __future__ import annotations

import re

__all__ = ["PROGRESS_DROPS", "BinarySniffer", "binary_text_summary", "json_size"]

# C0 controls that do not occur in ordinary text (tab, newline, CR, form feed, backspace and
# ESC for colours do), plus DEL
_CONTROL = bytes([*range(0x08), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
_TEXT = bytes(sorted(set(range(256)) - set(_CONTROL)))
PROGRESS_DROPS = dict.fromkeys(_CONTROL)
"""``str.translate`` table deleting those control characters (from progress text)."""
_BINARY_SHARE = 0.3
_SMALL = 512  # shorter output is shown as it is: a few escapes cost less than a summary
_KEEP = 4096
_STRINGS = re.compile(rb"[\x20-\x7e]{4,}")
_ESCAPED = re.compile("[\x00-\x07\x0b\x0e-\x1f]")  # \u00XX in JSON
_SHORT_ESCAPED = re.compile("[\b\t\n\f\r]")  # \n and the like


class BinarySniffer:
    """Counts control bytes and invalid UTF-8 in a stream; keeps its first ``_KEEP`` bytes."""

    __slots__ = ("control", "first", "total")

    def __init__(self) -> None:
        self.control = 0
        self.total = 0
        self.first = b""

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self.control += len(data.translate(None, _TEXT))  # what is left: control bytes
        if len(self.first) < _KEEP:
            self.first += data[: _KEEP - len(self.first)]

    def is_binary(self, replaced: int) -> bool:
        """Whether the output is mostly binary; ``replaced`` counts bytes that were not UTF-8
        (U+FFFD in the decoded text)."""
        return self.total >= _SMALL and self.control + replaced >= _BINARY_SHARE * self.total

    def summary(self, where: str) -> str:
        """What the model reads instead of the bytes."""
        hex_dump = " ".join(f"{byte:02x}" for byte in self.first[:32])
        found = [match.decode() for match in _STRINGS.findall(self.first)[:20]]
        strings = ", ".join(repr(text[:60]) for text in found) or "none"
        return (
            f"[binary output: {self.total:,} bytes, {self.control:,} of them control bytes "
            f"(NUL and the like), not shown. The whole output is in {where}; inspect it with "
            f"`xxd {where} | head` or `strings {where}`, or pipe the command through `xxd`, "
            f"`strings` or `file -` next time.\nfirst bytes: {hex_dump}"
            f"{' …' if self.total > 32 else ''}\nprintable strings at the start: {strings}]"
        )


def json_size(text: str) -> int:
    """Bytes ``text`` takes in a JSON string: control characters escape to ``\\u00XX``."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    return size + 5 * len(_ESCAPED.findall(text)) + len(_SHORT_ESCAPED.findall(text))


def binary_text_summary(text: str, where: str) -> str | None:
    """A summary instead of ``text`` (already decoded, e.g. a background job's new output)
    when it is mostly binary; None when it is text to show as it is."""
    sniffer = BinarySniffer()
    sniffer.feed(text.encode("utf-8", errors="surrogatepass"))
    return sniffer.summary(where) if sniffer.is_binary(text.count("\ufffd")) else None
