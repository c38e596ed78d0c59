"""What to show when ``old_string`` is nowhere in the file: the region most like it.

The quote is file content: the caller leaves it out when a read of the file would not have
been allowed without asking (a read-deny rule, a ``.env`` file, a path outside the workspace),
so a failed edit never shows what a read would not have shown.
"""

from __future__ import annotations

import difflib
import re

__all__ = ["closest_region", "not_found_message"]

HINT = "Read the file again and copy old_string exactly, including whitespace."


def not_found_message(text: str, old: str, label: str, *, quote: bool = True) -> str:
    """The refusal of an edit whose old_string is nowhere in ``text``; ``quote`` shows lines."""
    if not quote:
        return (
            f"old_string was not found in {label}. Its lines are not shown here because reading "
            f"{label} is not allowed without asking; read it with read_file (which asks, or says "
            "it is denied) and copy old_string exactly from what it shows."
        )
    closest = closest_region(text, old)
    if closest is None:
        return f"old_string was not found in {label}. {HINT}"
    line, region = closest
    return (
        f"old_string was not found in {label}. The closest match is near line {line}:\n"
        f"{region}\n{HINT}"
    )


def closest_region(text: str, old: str) -> tuple[int, str] | None:
    """The 1-based line most like ``old``'s first line, and the lines around it as
    ``N<TAB>line``; None when no line is alike."""
    first = next((line.strip() for line in old.split("\n") if line.strip()), old.strip())
    at = _closest_line(text, first)
    if at is None:
        return None
    lines = text.split("\n")
    start, end = max(at - 2, 0), min(at + 3, len(lines))
    return at + 1, "\n".join(f"{n + 1}\t{lines[n]}" for n in range(start, end))


def _closest_line(text: str, first: str, *, limit: int = 2000) -> int | None:
    """Index of the line most like ``first``, found without comparing every line.

    Candidates are the lines holding the rarest of ``first``'s words (counted in C with
    ``str.count``), at most ``limit`` of them; difflib ranks only those. On a 100k-line file
    this takes milliseconds, where ranking every line takes seconds.
    """
    words = sorted(set(re.findall(r"\w{3,}", first)), key=len, reverse=True)[:8]
    counts = [(text.count(word), word) for word in words]
    present = sorted((count, word) for count, word in counts if count)
    candidates: dict[int, str] = {}  # line start offset -> stripped line
    for _, word in present[:2]:
        position = text.find(word)
        while position != -1 and len(candidates) < limit:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            end = len(text) if end == -1 else end
            candidates.setdefault(start, text[start:end].strip())
            position = text.find(word, end)
    if not candidates:
        return None
    best = difflib.get_close_matches(first, list(candidates.values()), n=1, cutoff=0.5)
    if not best:
        return None
    offset = next(start for start, line in candidates.items() if line == best[0])
    return text.count("\n", 0, offset)
