"""Property: a recovered edit changes exactly the lines the model changed, nothing else.

A file is generated with the things models copy wrong (tabs or four-space indentation, trailing
blanks, curly quotes, dashes, no-break spaces, decomposed accents, ellipses), and with folds
that change lengths across characters that are not combining marks (decomposed Hangul, whose
three jamo compose into one syllable; a Bengali two-part vowel), so every column and
indentation must be mapped back through the fold. A clean edit
replaces some lines of a window and inserts others. The model's ``old_string`` and
``new_string`` are that edit seen through a noisy copy: trailing blanks dropped, indentation
retyped, look-alikes typed plainly, read_file's line-number prefixes pasted. The recovered edit
must leave every byte outside the changed lines as it was.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolbelt.files.folding import fold, split_clusters
from toolbelt.files.matching import find_and_replace
from toolbelt.files.patch_apply import apply_hunks
from toolbelt.files.patch_format import Hunk
from toolbelt.files.regions import starts

WORDS = [
    "alpha",
    "beta = 1",
    "“quoted”",
    "it’s",
    "a—b",
    "1–2",
    "x\u00a0y",
    "cafe\u0301",
    "\u1112\u1161\u11ab\u1100\u1173\u11af",  # 한글 decomposed: 6 characters fold to 2
    "ক\u09c7\u09be",  # কো with its vowel in two parts: 3 characters fold to 2
    "wait…",
    "'plain'",
    '"plain"',
    "x - y",
    "(call)",
]
TRAILS = ["", "", "", "  ", "\t", " "]


@dataclass(frozen=True)
class Noise:
    """How the model's copy differs from the file, applied line by line."""

    drop_trailing: bool
    retype_indent: bool
    plain: bool
    numbers: bool

    def line(self, text: str, *, tabs: bool) -> str:
        body = text.lstrip(" \t")
        indent = text[: len(text) - len(body)]
        if self.retype_indent:
            indent = indent.replace("\t", "    ") if tabs else indent.replace("    ", "  ")
        if self.drop_trailing:
            body = body.rstrip(" \t")
        if self.plain:
            body = fold(body)
        return indent + body


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, str, str, set[str]]:
    """(file, old_string, new_string, expected file, the fresh lines' bodies)."""
    tabs = draw(st.booleans())
    unit = "\t" if tabs else "    "
    count = draw(st.integers(3, 10))
    lines = []
    for index in range(count):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
        level = draw(st.integers(0, 3))
        lines.append(f"{unit * level}v{index} {' '.join(words)}{draw(st.sampled_from(TRAILS))}")
    start = draw(st.integers(0, count - 1))
    size = draw(st.integers(1, min(4, count - start)))
    window = lines[start : start + size]
    changed = draw(st.sets(st.integers(0, size - 1), max_size=size))
    inserted = draw(st.sets(st.integers(0, size), max_size=2))
    noise = Noise(*(draw(st.booleans()) for _ in range(4)))
    if not any(line.startswith(unit) for line in window):
        # quoted lines without indentation cannot show the model indents differently
        noise = dataclasses.replace(noise, retype_indent=False)
    clean_new: list[str] = []
    typed_new: list[str] = []
    fresh: set[str] = set()
    typed_old = [noise.line(line, tabs=tabs) for line in window]
    if noise.numbers:
        typed_old = [f"{start + k + 1}\t{line}" for k, line in enumerate(typed_old)]
    for k in range(size + 1):
        if k in inserted:
            level = draw(st.integers(0, 3))
            body = f"added{k} = {k}"
            fresh.add(body)
            clean_new.append(unit * level + body)
            typed_new.append(noise.line(unit * level + body, tabs=tabs))
        if k == size:
            break
        if k in changed:
            line = window[k]
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            body = f"changed{k} = {k}"
            fresh.add(body)
            clean_new.append(indent + body)
            typed_new.append(noise.line(indent + body, tabs=tabs))
        else:
            clean_new.append(window[k])
            typed_new.append(typed_old[k])
    text = "\n".join(lines) + "\n"
    expected = "\n".join(lines[:start] + clean_new + lines[start + size :]) + "\n"
    return text, "\n".join(typed_old), "\n".join(typed_new), expected, fresh


def strip_numbers(text: str) -> str:
    return "\n".join(re.sub(r"^\d+\t", "", line) for line in text.split("\n"))


@settings(max_examples=300, deadline=None)
@given(cases())
def test_a_recovered_edit_changes_only_the_lines_the_model_changed(
    case: tuple[str, str, str, str, set[str]],
) -> None:
    text, old, new, expected, fresh = case
    numbered = old.startswith(tuple(f"{n}\t" for n in range(1, 12)))
    if old == new:
        return
    splice = find_and_replace(text, old, new)
    bare_old, bare_new = (strip_numbers(old), strip_numbers(new)) if numbered else (old, new)
    if text.count(bare_old) == 1:  # an exact match: new_string goes in as the model typed it
        assert splice.text == text.replace(bare_old, bare_new)
        return
    got, want = splice.text.split("\n"), expected.split("\n")
    assert len(got) == len(want), (splice.text, expected)
    for got_line, want_line in zip(got, want, strict=True):
        if want_line.strip(" \t") in fresh:
            # a changed line keeps the trailing blanks of the line it rewrites
            assert got_line.rstrip(" \t") == want_line, (splice.text, expected)
        else:
            assert got_line == want_line, (splice.text, expected)


@st.composite
def inline_cases(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """An insertion inside part of one line, the part typed with plain look-alikes."""
    lines = [
        f"{draw(st.sampled_from(['', '    ', chr(9)]))}k{index} "
        + " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=4)))
        for index in range(draw(st.integers(1, 4)))
    ]
    number = draw(st.integers(0, len(lines) - 1))
    line = lines[number]
    clusters = split_clusters(line)
    folded = [k for k, cluster in enumerate(clusters) if fold(cluster) != cluster]
    if not folded:  # no look-alike on this line: give it one
        line += " a\u2014b"
        clusters = split_clusters(line)
        folded = [len(clusters) - 2]
    bounds = [sum(len(c) for c in clusters[:k]) for k in range(len(clusters) + 1)]
    lines[number] = line
    around = draw(st.sampled_from(folded))  # the part holds a look-alike: no exact match
    first = draw(st.integers(0, around))
    last = draw(st.integers(around + 1, len(clusters)))
    cut = draw(st.integers(first, last))
    part = line[bounds[first] : bounds[last]]
    head, tail = line[bounds[first] : bounds[cut]], line[bounds[cut] : bounds[last]]
    text = "\n".join(lines) + "\n"
    old = fold(part)
    new = fold(head) + "@@@" + fold(tail)
    edited = line[: bounds[first]] + head + "@@@" + tail + line[bounds[last] :]
    expected = "\n".join([*lines[:number], edited, *lines[number + 1 :]]) + "\n"
    return text, old, new, expected


@settings(max_examples=200, deadline=None)
@given(inline_cases())
def test_an_insertion_inside_a_line_keeps_every_character_around_it(
    case: tuple[str, str, str, str],
) -> None:
    text, old, new, expected = case
    # blanks at the ends, an exact match, or not one place once folded: not this property
    once = len(starts(fold(text), old)) == 1
    assume(old.strip(" \t") == old and not text.count(old) and once)
    assert find_and_replace(text, old, new).text == expected


@settings(max_examples=200, deadline=None)
@given(cases())
def test_a_recovered_patch_hunk_changes_only_the_lines_the_model_changed(
    case: tuple[str, str, str, str, set[str]],
) -> None:
    """The same noisy edit as a V4A hunk (apply_patch): the same recoveries, the same rule."""
    text, old, new, expected, fresh = case
    if old == new:
        return
    hunk = Hunk((), tuple(old.split("\n")), tuple(new.split("\n")), at_end=False, line=1)
    patched = apply_hunks(text, [hunk], label="f", quote=True).text
    numbered = old.startswith(tuple(f"{n}\t" for n in range(1, 12)))
    bare_old, bare_new = (strip_numbers(old), strip_numbers(new)) if numbered else (old, new)
    lines = text.split("\n")
    quoted = bare_old.split("\n")
    exact = [
        k for k in range(len(lines)) if lines[k : k + len(quoted)] == quoted
    ]  # whole lines, as typed
    if exact:  # the first exact place takes new lines as the model typed them
        k = exact[0]
        assert patched.split("\n") == lines[:k] + bare_new.split("\n") + lines[k + len(quoted) :]
        return
    got, want = patched.split("\n"), expected.split("\n")
    assert len(got) == len(want), (patched, expected)
    for got_line, want_line in zip(got, want, strict=True):
        if want_line.strip(" \t") in fresh:
            assert got_line.rstrip(" \t") == want_line, (patched, expected)
        else:
            assert got_line == want_line, (patched, expected)
