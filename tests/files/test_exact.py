"""The exact fast path (bytes of a plain UTF-8 file) gives what the text path gives, always."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolbelt.files.diff import Hunk, Region, region_diff, snippet
from toolbelt.files.exact import is_plain_utf8, replace_exact
from toolbelt.files.matching import EditMatchError, find_and_replace

WORDS = ["a", "b", "é", "😀", " ", "\t", "\n", "x = 1\n", "ünï", "中文\n", "'", "“"]


def patched(old: str, hunks: list[Hunk]) -> str:
    """``old`` with unified-diff ``hunks`` applied, checking every context and removed line."""
    lines, out, at = old.splitlines(keepends=True), [], 0
    for hunk in hunks:
        start = hunk.old_start - 1 if hunk.old_lines else hunk.old_start
        out += lines[at:start]
        at = start
        body = hunk.lines
        for index, line in enumerate(body):
            if line.startswith("\\"):
                continue
            last = index + 1 < len(body) and body[index + 1].startswith("\\")
            text = line[1:] + ("" if last else "\n")
            if line[:1] in (" ", "-"):
                assert lines[at] == text, (at, line)
                at += 1
            if line[:1] in (" ", "+"):
                out.append(text)
    return "".join(out + lines[at:])


@pytest.mark.parametrize(
    ("data", "plain"),
    [
        (b"plain ascii\n", True),
        ("caf\u00e9 \u4e2d\n".encode(), True),
        (b"", True),
        (codecs.BOM_UTF8 + "bom é\n".encode(), False),  # line 1 must not show the BOM
        (b"crlf\r\n", False),
        (b"lone cr\r", False),
        ("latin-1 é\n".encode("latin-1"), False),
        (codecs.BOM_UTF16_LE + "utf16".encode("utf-16-le"), False),
    ],
)
def test_which_files_take_the_fast_path(data: bytes, plain: bool) -> None:
    assert is_plain_utf8(data) is plain


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS), max_size=60),
    st.integers(0, 60),
    st.integers(1, 6),
    st.lists(st.sampled_from(WORDS), max_size=6),
    st.booleans(),
    st.sampled_from([b"", codecs.BOM_UTF8]),
)
def test_fast_path_equals_text_path(
    words: list[str], at: int, size: int, new_words: list[str], replace_all: bool, bom: bytes
) -> None:
    text = "".join(words)
    at = min(at, len(words))
    old = "".join(words[at : at + size])
    new = "".join(new_words)
    try:
        expected = find_and_replace(text, old, new, replace_all=replace_all)
    except EditMatchError:
        expected = None
    fast = replace_exact(bom + text.encode(), [(old, new, replace_all)])
    if fast is None:  # the text path decides: an error, or a recovery
        assert expected is None or expected.recovery is not None
        return
    assert expected is not None
    data, (splice,) = fast
    assert data.decode() == expected.text
    assert (splice.replacements, splice.first_line, splice.last_line, splice.recovery) == (
        expected.replacements,
        expected.first_line,
        expected.last_line,
        None,
    )
    assert len(data[: splice.offset].decode()) == expected.offset
    whole = region_diff(text, expected.text)
    assert region_diff(text.encode(), data) == whole
    if splice.replaced is not None:
        suffix = len(text.encode()) - splice.offset - splice.replaced
        region = Region(splice.offset, suffix, splice.first_line - 1)
        # anchored at the splice, the hunks may align repeated lines differently from a
        # prefix search (both are true diffs); they must turn the old text into the new
        assert patched(text, region_diff(text.encode(), data, region)) == expected.text
    assert snippet(data, splice.first_line, splice.last_line, offset=splice.offset) == snippet(
        expected.text, expected.first_line, expected.last_line, offset=expected.offset
    )


def test_a_bom_stays_in_front_and_out_of_the_offsets() -> None:
    data = codecs.BOM_UTF8 + "é = 1\nb = 2\n".encode()
    fast = replace_exact(data, [("b = 2", "b = 3", False)])
    assert fast is not None
    body, (splice,) = fast
    assert body == "é = 1\nb = 3\n".encode()
    assert (splice.first_line, splice.offset, splice.replaced) == (2, len("é = 1\n".encode()), 5)


def test_several_edits_apply_in_order_on_bytes() -> None:
    data = "α = 1\nβ = 2\n".encode()
    fast = replace_exact(data, [("α = 1", "α = 10", False), ("α = 10\nβ", "a = 10\nb", False)])
    assert fast is not None
    assert fast[0] == b"a = 10\nb = 2\n"
    assert [s.first_line for s in fast[1]] == [1, 1]


@pytest.mark.parametrize(
    ("data", "old", "new"),
    [
        (b"x\r\ny\r\n", "x", "z"),  # CRLF file: the text path keeps its newlines
        (b"a a\n", "a", "b"),  # two matches: the text path explains
        (b"a\n", "missing", "b"),  # no match: recoveries and the closest line
        (b"a\n", "a", "a"),  # no change: the text path refuses it
        (b"a\n", "", "b"),  # empty old_string
        (b"a\n", "a", "\ud800"),  # a lone surrogate cannot be stored as UTF-8
        (codecs.BOM_UTF8 + b"a\n", "\ufeffa", "b"),  # the BOM is not text to match
    ],
)
def test_fast_path_steps_aside(data: bytes, old: str, new: str) -> None:
    assert replace_exact(data, [(old, new, False)]) is None


@pytest.mark.parametrize(
    ("middle", "old", "new", "recovery"),
    [
        ("x = 1  \ny = 2\n", "x = 1\ny = 2", "x = 10\ny = 2", "ignored trailing whitespace"),
        ("\tif a:\n\t\tb()\n", "if a:\n    b()", "if a:\n    c()", "matched ignoring indentation"),
        ("s = “hi”\n", 's = "hi"', 's = "yo"', "matched Unicode look-alikes"),
        ("k = 3\n", "51\tk = 3", "51\tk = 4", "stripped read_file line-number prefixes"),
    ],
)
def test_the_region_a_recovery_reports_gives_the_full_diff(
    middle: str, old: str, new: str, recovery: str
) -> None:
    text = "".join(f"line {i}\n" for i in range(50)) + middle + "tail\n" * 50
    splice = find_and_replace(text, old, new)
    assert splice.recovery is not None
    assert splice.recovery.startswith(recovery)
    assert splice.replaced is not None
    suffix = len(text) - splice.offset - splice.replaced
    region = Region(splice.offset, suffix, splice.first_line - 1)
    assert region_diff(text, splice.text, region) == region_diff(text, splice.text)
