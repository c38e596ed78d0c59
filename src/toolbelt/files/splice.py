"""An edit's result — the new content and where the change landed — and its refusal.

Shared by the text path (``files.matching``) and the exact byte path (``files.exact``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AnyStr, Generic

from toolbelt.core.errors import ToolError

__all__ = ["EditMatchError", "Splice", "splice_all", "splice_at"]


class EditMatchError(ToolError):
    """``old_string`` was not found (or not uniquely); the message shows where to look.

    ``kind`` says why, for a caller that words its own refusal (apply_patch names the hunk):
    ``not_found``, ``ambiguous`` (``lines`` holds the candidates' lines, ``ignored`` what the
    match ignored), ``indent`` (indentation does not follow the file's), ``unchanged`` (the
    file already reads that way, at ``lines[0]``), ``same`` or ``empty``.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "not_found",
        lines: tuple[int, ...] = (),
        ignored: str = "",
    ) -> None:
        super().__init__(message)
        self.kind, self.lines, self.ignored = kind, lines, ignored


@dataclass(frozen=True, slots=True)
class Splice(Generic[AnyStr]):
    """The edited content and where the change landed (1-based lines of the new content).

    The content is ``str`` on the text path and the file's stored ``bytes`` on the exact
    fast path (``files.exact``); offsets count in the same unit.
    """

    text: AnyStr
    replacements: int
    first_line: int
    last_line: int
    recovery: str | None = None
    offset: int = 0
    """Index in ``text`` where the first replacement starts."""
    replaced: int | None = None
    """Length of what a single replacement took out (None for several), so the diff can go
    straight to the changed region."""
    notes: tuple[str, ...] = ()
    """Where the file's text differs from what ``old_string`` had (after a recovery)."""


def splice_at(
    text: AnyStr, start: int, old: AnyStr, new: AnyStr, recovery: str | None = None
) -> Splice[AnyStr]:
    """Replace the ``old`` found at ``start`` in ``text`` by ``new``."""
    nl, end = _newline(text), start + len(old)
    if isinstance(text, bytes):  # join straight from views: one copy of a big file, not three
        view = memoryview(text)
        edited = b"".join((view[:start], new, view[end:]))
    else:
        edited = "".join((text[:start], new, text[end:]))
    first = text.count(nl, 0, start) + 1
    last = first + max(new.count(nl) - (1 if new.endswith(nl) else 0), 0)
    return Splice(edited, 1, first, last, recovery, start, len(old))


def splice_all(text: AnyStr, old: AnyStr, new: AnyStr) -> Splice[AnyStr]:
    """Replace every ``old`` in ``text`` (which holds at least one) by ``new``."""
    nl, start, count = _newline(text), text.find(old), text.count(old)
    first = text.count(nl, 0, start) + 1
    edited = text.replace(old, new)
    last_start = edited.rfind(new)
    last = edited.count(nl, 0, last_start) + 1 + max(new.count(nl) - new.endswith(nl), 0)
    return Splice(edited, count, first, last, None, start, len(old) if count == 1 else None)


def _newline(sample: AnyStr) -> AnyStr:
    return "\n" if isinstance(sample, str) else b"\n"
