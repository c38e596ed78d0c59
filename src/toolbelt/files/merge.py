"""The one rule every recovery follows: the file keeps its own bytes wherever the model
changed nothing.

When ``old_string`` matched only after normalising (trailing blanks, indentation, Unicode
look-alikes), the model's ``new_string`` is not pasted as it is: that would rewrite the lines
the model only quoted as context — dropping a Markdown hard break's two trailing spaces, turning
tabs into spaces, straightening a curly quote the file holds on purpose. Instead ``merge``
aligns ``old_string`` with ``new_string``, first line by line and then, inside a changed line,
character by character. Whatever ``new_string`` copies unchanged from ``old_string`` is taken
from the matched region of the file as it is; only what the model changed is inserted, and that
is re-indented and quote-styled like the file where the file is unambiguous about it (it never
holds the model's spelling, anywhere in the file: ``files.style``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from toolbelt.files.folding import Line
from toolbelt.files.indent import IndentMap
from toolbelt.files.style import Style

__all__ = ["Difference", "merge", "opcodes"]


@dataclass(frozen=True, slots=True)
class Difference:
    """Where the file's text differs from what the model typed in ``old_string``."""

    line: int
    """1-based line of the file."""
    part: str
    """"char", "indent" or "trail"."""
    held: str
    """What the file holds there."""
    typed: str
    """What ``old_string`` had instead."""


def merge(
    old: str, new: str, region: str, *, first_line: int, whole: str | None = None
) -> tuple[str, list[Difference]]:
    """The text to put in place of ``region`` (which ``old`` matched once normalised).

    ``old`` and ``region`` have the same number of lines, pairwise equal once normalised.
    ``whole`` is the whole file (default: the region): inserted text keeps the model's
    spelling of anything the file holds that way anywhere. Returns the replacement and where
    the file differs from ``old``.
    """
    olds = [Line.of(text) for text in old.split("\n")]
    held = [Line.of(text) for text in region.split("\n")]
    style = Style(whole=region if whole is None else whole)
    differences: list[Difference] = []
    for number, (o, r) in enumerate(zip(olds, held, strict=True), first_line):
        differences += _compare(o, r, number, style)
    news = new.split("\n")
    quoted = [(o.indent, r.indent) for o, r in zip(olds, held, strict=True) if o.body and r.body]
    indents = IndentMap(quoted)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes([o.text for o in olds], news):
        if tag == "equal":
            out += [r.text for r in held[i1:i2]]
        elif tag != "delete":
            partners = _pair(olds[i1:i2], news[j1:j2]) if tag == "replace" else []
            for index, text in enumerate(news[j1:j2]):
                partner = partners[index] if partners else None
                if partner is None:
                    out.append(_inserted(Line.of(text), indents, style))
                else:
                    k = i1 + partner
                    out.append(_merged(olds[k], Line.of(text), held[k], indents, style))
    return "\n".join(out), differences


Opcode = tuple[str, int, int, int, int]


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """How ``b`` is ``a`` changed: the common head and tail first, then difflib between.

    difflib takes the first longest match, which in repetitive text can align an insertion's
    surroundings crosswise ("x's it's" → "x's it@'s": the inserted run swallows a quote the
    model kept); taking the common head and tail first keeps what the model kept aligned.
    """
    limit = min(len(a), len(b))
    head = 0
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    a_end, b_end = len(a) - tail, len(b) - tail
    middle = SequenceMatcher(None, a[head:a_end], b[head:b_end], autojunk=False)
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        ops.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        ops.append(("equal", a_end, len(a), b_end, len(b)))
    return ops


_MAX_PAIRING = 400
"""Old × new lines past which a changed block is not paired line by line (each pair costs a
``SequenceMatcher`` ratio): its new lines are taken as written."""


def _pair(olds: list[Line], news: list[str]) -> list[int | None]:
    """For each new line of a changed block, the old line it rewrites (None: a new line)."""
    if len(olds) == len(news):
        return list(range(len(news)))
    if len(olds) * len(news) > _MAX_PAIRING:
        return [None] * len(news)
    pairs: list[int | None] = []
    used: set[int] = set()
    for text in news:
        scored = [
            (SequenceMatcher(None, o.text, text, autojunk=False).ratio(), k)
            for k, o in enumerate(olds)
            if k not in used
        ]
        best = max(scored, default=(0.0, -1))
        if best[0] >= 0.5:
            pairs.append(best[1])
            used.add(best[1])
        else:
            pairs.append(None)
    return pairs


def _merged(o: Line, n: Line, r: Line, indents: IndentMap, style: Style) -> str:
    """A changed line: the file's indentation, trailing blanks and characters where kept."""
    if not n.body:
        return n.text if indents.identity else ""
    indent = r.indent if n.indent == o.indent else indents.convert(n.indent)
    trail = r.trail if n.trail == o.trail else n.trail
    return indent + _merged_body(o, n, r, style) + trail


def _inserted(n: Line, indents: IndentMap, style: Style) -> str:
    """A line the model added: its indentation in the file's style, its quotes too."""
    if not n.body:
        return n.text if indents.identity else ""
    return indents.convert(n.indent) + style.apply(n.body, 0, len(n.body)) + n.trail


def _folded_body(line: Line) -> str:
    return "".join(line.folds[line.body_start : line.body_end])


def _body_offsets(line: Line) -> dict[int, int]:
    """Offset in the line's body → offset in its folded body, at every unit boundary."""
    base, at, out = line.bounds[line.body_start], 0, {0: 0}
    for index in range(line.body_start, line.body_end):
        at += len(line.folds[index])
        out[line.bounds[index + 1] - base] = at
    return out


_SHORT = 3
"""Unchanged runs shorter than this, inside a changed line, are taken as typed."""


def _merged_body(o: Line, n: Line, r: Line, style: Style) -> str:
    ob, nb, rb = o.body, n.body, r.body
    if _folded_body(o) != _folded_body(r):
        return style.apply(nb, 0, len(nb))
    old_at = _body_offsets(o)
    held_at = {folded: at for at, folded in _body_offsets(r).items()}

    def mapped(at: int) -> int | None:
        folded = old_at.get(at)
        return None if folded is None else held_at.get(folded)

    pieces: list[str] = []

    def typed(b1: int, b2: int) -> None:
        if b2 > b1:
            pieces.append(style.apply(nb, b1, b2))

    for tag, a1, a2, b1, b2 in opcodes(ob, nb):
        anchored = (a1 == 0 and b1 == 0) or (a2 == len(ob) and b2 == len(nb))
        if tag != "equal" or (a2 - a1 < _SHORT and not anchored):
            typed(b1, b2)  # changed, or a chance match of a character or two in between
            continue
        start, end = a1, a2
        while start < end and mapped(start) is None:
            start += 1
        while end > start and mapped(end) is None:
            end -= 1
        held_start, held_end = mapped(start), mapped(end)
        if start == end or held_start is None or held_end is None:
            typed(b1, b2)
            continue
        typed(b1, b1 + start - a1)
        pieces.append(rb[held_start:held_end])
        typed(b1 + end - a1, b2)
    return "".join(pieces)


def _groups(o: Line, r: Line) -> Iterator[tuple[str, str]]:
    """Pairs (typed, held) of the smallest runs of units that fold to the same text."""
    i, j, end_i, end_j = o.body_start, r.body_start, o.body_end, r.body_end
    start_i, start_j, at_i, at_j = i, j, 0, 0
    while i < end_i or j < end_j:
        if j >= end_j or (i < end_i and at_i <= at_j):
            at_i += len(o.folds[i])
            i += 1
        else:
            at_j += len(r.folds[j])
            j += 1
        if at_i == at_j and i > start_i and j > start_j:
            yield (
                o.text[o.bounds[start_i] : o.bounds[i]],
                r.text[r.bounds[start_j] : r.bounds[j]],
            )
            start_i, start_j = i, j


def _compare(o: Line, r: Line, number: int, style: Style) -> list[Difference]:
    """Where line ``number`` of the file differs from the model's line; teaches ``style``."""
    found: list[Difference] = []
    if o.body and r.body and o.indent != r.indent:
        found.append(Difference(number, "indent", r.indent, o.indent))
    if o.trail != r.trail:
        found.append(Difference(number, "trail", r.trail, o.trail))
    if _folded_body(o) != _folded_body(r):
        return found
    for typed, held in _groups(o, r):
        style.learn(typed, held)
        if typed != held:
            found.append(Difference(number, "char", held, typed))
    return found
