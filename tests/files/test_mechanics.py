"""Shared file mechanics: lossless text, atomic saves, freshness, region diffs, ranged reads."""

from __future__ import annotations

import codecs
import difflib
import io
import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolbelt.core.errors import ToolError
from toolbelt.files import lines as lines_module
from toolbelt.files.atomic import atomic_write, sweep_stale_temp_files
from toolbelt.files.diff import diff_stats, region_diff, snippet, unified_text
from toolbelt.files.line_marks import LineMarks, marks_for
from toolbelt.files.lines import LineWindow, read_line_range, whole_text_window
from toolbelt.files.text import decode_text, encode_text, looks_binary
from toolbelt.files.tracker import Freshness, ReadTracker


@pytest.mark.parametrize(
    ("data", "encoding", "newline"),
    [
        (b"a\nb\n", "utf-8", "\n"),
        (codecs.BOM_UTF8 + "é\r\nb\r\n".encode(), "utf-8", "\r\n"),
        (codecs.BOM_UTF16_LE + "x\r\ny\r\n".encode("utf-16-le"), "utf-16-le", "\r\n"),
        (codecs.BOM_UTF16_BE + "x\ny\n".encode("utf-16-be"), "utf-16-be", "\n"),
        (b"old mac\rline\r", "utf-8", "\r"),
        (
            "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, d\u00e9j\u00e0 vu, na\u00efve\n".encode(
                "latin-1"
            )
            * 3,
            None,
            "\n",
        ),
        ("中文编码测试，这是一个简单的句子。\n这里有更多的中文字符。\n".encode("gbk"), None, "\n"),
    ],
)
def test_decode_then_encode_is_byte_identical(
    data: bytes, encoding: str | None, newline: str
) -> None:
    decoded = decode_text(data)
    if encoding:
        assert decoded.encoding == encoding
    assert decoded.newline == newline
    assert "\r" not in decoded.text
    assert encode_text(decoded.text, decoded) == data


def test_edited_crlf_text_stays_crlf() -> None:
    decoded = decode_text(b"one\r\ntwo\r\n")
    assert encode_text(decoded.text.replace("two", "2\nthree"), decoded) == b"one\r\n2\r\nthree\r\n"


def test_unencodable_character_is_a_clear_error() -> None:
    decoded = decode_text(
        "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e d\u00e9j\u00e0\n".encode("latin-1") * 3
    )
    with pytest.raises(ToolError, match="cannot hold '中'"):
        encode_text("中", decoded)


@pytest.mark.parametrize(
    ("sample", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n....", "a PNG image"),
        (b"\x7fELF\x02\x01", "an ELF executable"),
        (b"abc\x00def", "binary data (it contains NUL bytes)"),
        (codecs.BOM_UTF16_LE + "hi".encode("utf-16-le"), None),
        (b"plain text", None),
    ],
)
def test_binary_detection(sample: bytes, kind: str | None) -> None:
    assert looks_binary(sample) == kind


def test_atomic_write_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old")
    target.chmod(0o751)
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert atomic_write(fd, "script.sh", b"new") is False
        assert atomic_write(fd, "fresh.txt", b"x") is True
    finally:
        os.close(fd)
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.txt", "script.sh"]


def test_stale_temp_files_are_swept(tmp_path: Path) -> None:
    stale = tmp_path / ".a.txt.toolbelt-tmp-abc"
    stale.write_text("half")
    os.utime(stale, (0, 0))
    (tmp_path / ".b.txt.toolbelt-tmp-new").write_text("in progress")
    assert sweep_stale_temp_files(tmp_path) == 1
    assert not stale.exists()


def test_tracker_freshness(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"v1")
    tracker = ReadTracker()
    assert tracker.check(path, b"v1", path.stat()) is Freshness.UNREAD
    tracker.record(path, b"v1", path.stat())
    assert tracker.check(path, b"v1", path.stat()) is Freshness.FRESH
    os.utime(path, ns=(1, 1))  # touched but same content: still fresh
    assert tracker.check(path, b"v1", path.stat()) is Freshness.FRESH
    path.write_bytes(b"v2")
    assert tracker.check(path, b"v2", path.stat()) is Freshness.CHANGED


def difflib_hunks(old: str, new: str) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for line in difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), n=3, lineterm=""
    ):
        if line.startswith("@@"):
            out.append((line.split(" @@")[0] + " @@",))
        elif not line.startswith(("---", "+++")):
            out[-1] += (line.rstrip("\n"),)
    return out


def ours(old: str, new: str) -> list[tuple[str, ...]]:
    text = unified_text("f", region_diff(old, new))
    out: list[tuple[str, ...]] = []
    for line in text.splitlines()[2:]:
        if line.startswith("@@"):
            header = line.split(" @@")[0] + " @@"
            out.append((header,))
        else:
            out[-1] += (line,)
    return out


def normalise(hunks: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    # difflib writes "-a,1"; diff -u (and we) write "-a" for one-line spans
    fixed = []
    for hunk in hunks:
        head = hunk[0]
        parts = head.split()
        spans = [p if p.endswith(",1") is False else p[:-2] for p in parts[1:3]]
        fixed.append((f"@@ {spans[0]} {spans[1]} @@", *hunk[1:]))
    return fixed


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"]), min_size=0, max_size=40),
    st.integers(0, 40),
    st.integers(0, 4),
    st.lists(st.sampled_from(["X", "Y", "a"]), max_size=4),
)
def test_region_diff_matches_difflib(
    lines: list[str], at: int, remove: int, insert: list[str]
) -> None:
    old_lines = [f"{v}{i}" for i, v in enumerate(lines)]
    at = min(at, len(old_lines))
    new_lines = old_lines[:at] + insert + old_lines[at + remove :]
    old = "".join(f"{line}\n" for line in old_lines)
    new = "".join(f"{line}\n" for line in new_lines)
    assert normalise(ours(old, new)) == normalise(difflib_hunks(old, new))


def test_region_diff_on_a_big_file_is_one_small_hunk() -> None:
    old = "".join(f"line {i}\n" for i in range(100_000))
    new = old.replace("line 50000\n", "changed\n")
    hunks = region_diff(old, new)
    assert len(hunks) == 1
    assert (hunks[0].old_start, hunks[0].old_lines, hunks[0].new_lines) == (49998, 7, 7)
    assert diff_stats(hunks) == (1, 1)


def test_snippet_numbers_lines() -> None:
    assert snippet("a\nb\nc\nd\ne\n", 3, 3, context=1) == "2\tb\n3\tc\n4\td"


def test_ranged_read_streams_and_counts() -> None:
    data = b"".join(b"%d\n" % i for i in range(1, 1001))
    window = read_line_range(io.BytesIO(data), 500, 3)
    assert window.lines == ["500", "501", "502"]
    assert (window.first_line, window.last_line, window.total_lines) == (500, 502, 1000)
    assert window.render() == "500\t500\n501\t501\n502\t502"


def test_ranged_read_edges() -> None:
    assert read_line_range(io.BytesIO(b""), 1, 10).total_lines == 0
    past = read_line_range(io.BytesIO(b"a\nb"), 5, 10)
    assert (past.lines, past.total_lines) == ([], 2)
    crlf = read_line_range(io.BytesIO(b"x\r\ny"), 1, 10)
    assert (crlf.lines, crlf.total_lines) == (["x", "y"], 2)
    long = read_line_range(io.BytesIO(b"z" * 5000), 1, 1, max_line_chars=10)
    assert long.lines == ["zzzzzzzzzz… [line cut: 5000 characters]"]
    budget = read_line_range(io.BytesIO(b"aaaa\n" * 100), 1, 100, max_chars=30)
    assert (len(budget.lines), budget.stopped_by_budget, budget.total_lines) == (4, True, 100)


def test_a_last_line_without_newline_is_marked_as_gnu_diff_marks_it() -> None:
    marker = "\\ No newline at end of file"
    dropped = unified_text("f", region_diff("x\ny\n", "x\ny"))
    assert dropped == f"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n+y\n{marker}\n"
    changed = unified_text("f", region_diff("x\ny", "x\nz"))
    assert changed.endswith(f" x\n-y\n{marker}\n+z\n{marker}\n")
    assert diff_stats(region_diff("x\ny", "x\nz")) == (1, 1)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "é", "\n", "\r", "\r\n", "x" * 30, "\t", "中"]), max_size=80),
    st.integers(1, 30),
    st.integers(1, 30),
    st.sampled_from([None, 40, 400]),
)
def test_the_in_memory_window_equals_the_streamed_one(
    parts: list[str], offset: int, limit: int, max_chars: int | None
) -> None:
    data = "".join(parts).encode()
    fast = whole_text_window(data, offset, limit, max_line_chars=50, max_chars=max_chars)
    if fast is None:
        return  # a cut line or a budget stop: the streamed read decides
    slow = read_line_range(io.BytesIO(data), offset, limit, max_line_chars=50, max_chars=max_chars)
    assert fast == slow
    assert fast.render() == slow.render()


def reference_window(
    data: bytes, offset: int, limit: int, max_line_chars: int, max_chars: int | None
) -> LineWindow:
    """The line-by-line reading the block-counting one replaced, as the oracle."""
    handle = io.BytesIO(data)
    skipped = sum(1 for _ in itertools.islice(handle, offset - 1))
    lines: list[str] = []
    cut = used = consumed = 0
    stopped = False
    for raw in itertools.islice(handle, limit):
        consumed += 1
        line = raw.decode("utf-8", errors="replace").rstrip("\n").rstrip("\r")
        if len(line) > max_line_chars:
            line = f"{line[:max_line_chars]}… [line cut: {len(line)} characters]"
            cut += 1
        cost = len(line) + len(str(offset + len(lines))) + 2
        if max_chars is not None and used + cost > max_chars and lines:
            stopped = True
            break
        used += cost
        lines.append(line)
    total = skipped + consumed + sum(1 for _ in handle)
    return LineWindow(lines, offset, total, stopped, cut)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "é", "\n", "\r", "\r\n", "x" * 30, "中", "\xff", "\x80\n"]),
        max_size=120,
    ),
    st.integers(1, 60),
    st.integers(1, 40),
    st.sampled_from([None, 40, 400]),
    st.sampled_from([1, 3, 7, 64]),
)
def test_block_counting_reads_what_line_iteration_read(
    parts: list[str], offset: int, limit: int, max_chars: int | None, block: int
) -> None:
    """Blocks of a few bytes put every newline, CR and multi-byte character on a boundary."""
    data = b"".join(p.encode("latin-1") if p in ("\xff", "\x80\n") else p.encode() for p in parts)
    with pytest.MonkeyPatch.context() as patch:
        for name in ("_SKIP_BLOCK", "_LOCATE_BLOCK", "_WINDOW_BLOCK"):
            patch.setattr(lines_module, name, block)
        got = read_line_range(
            io.BytesIO(data), offset, limit, max_line_chars=20, max_chars=max_chars
        )
    assert got == reference_window(data, offset, limit, 20, max_chars)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "é", "\n", "\r\n", "x" * 30, "\n\n"]), max_size=120),
    st.lists(st.tuples(st.integers(1, 60), st.integers(1, 20)), min_size=1, max_size=6),
    st.sampled_from([1, 5, 64]),
)
def test_reads_that_share_line_marks_read_what_a_fresh_read_reads(
    parts: list[str], windows: list[tuple[int, int]], block: int
) -> None:
    """Marks left by one read (at block ends and where it stopped) never shift a later one."""
    data = "".join(parts).encode()
    marks = LineMarks()
    with pytest.MonkeyPatch.context() as patch:
        for name in ("_SKIP_BLOCK", "_LOCATE_BLOCK", "_WINDOW_BLOCK"):
            patch.setattr(lines_module, name, block)
        for offset, limit in windows:
            got = read_line_range(io.BytesIO(data), offset, limit, max_line_chars=20, marks=marks)
            assert got == reference_window(data, offset, limit, 20, None)
    assert marks.lines == sorted(marks.lines)


def test_a_file_changed_in_the_last_seconds_gets_no_marks(tmp_path: Path) -> None:
    path = tmp_path / "fresh.txt"
    path.write_text("a\n")
    assert marks_for(os.stat(path)) is None  # its ctime could still be shared by a next change
    settled = os.stat(path)
    epoch = {"st_atime_ns": 0, "st_mtime_ns": 0, "st_ctime_ns": 0}
    old = os.stat_result((*settled[:7], 0, 0, 0), epoch)  # changed long ago: settled
    assert marks_for(old) is marks_for(old)
    assert marks_for(old) is not None
