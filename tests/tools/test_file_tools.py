"""read_file, write_file, edit_file, multi_edit and notebook_edit through the executor."""

from __future__ import annotations

import base64
import codecs
import json
import os
import struct
import zlib
from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState

pytestmark = pytest.mark.anyio


# -- write_file: seed 002's cases and more -------------------------------------------------


async def test_write_creates_file_and_parents_after_approval(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    result = await h.call("write_file", path="a/b/new.txt", content="hello\n")
    assert result.state is CallState.SUCCESS
    assert (tmp_path / "a/b/new.txt").read_text() == "hello\n"
    assert result.text == "Created a/b/new.txt (6 bytes, 1 line)."
    assert result.output.structured is not None
    assert result.output.structured["created"] is True
    assert result.output.structured["bytes_written"] == 6
    assert h.requester.asked == [("write_file", "create a/b/new.txt (+1 -0) changes files.")]


async def test_write_denied_by_user_leaves_nothing(tmp_path: Path) -> None:
    h = Harness(tmp_path, approve=False)
    result = await h.call("write_file", path="x.txt", content="x")
    assert result.error_kind == "permission_denied"
    assert not (tmp_path / "x.txt").exists()


async def test_write_in_accept_edits_mode_needs_no_prompt(tmp_path: Path) -> None:
    h = Harness(tmp_path, mode="accept_edits")
    result = await h.call("write_file", path="empty.txt", content="")
    assert result.state is CallState.SUCCESS
    assert (tmp_path / "empty.txt").read_bytes() == b""
    assert h.requester.asked == []


async def test_write_in_plan_mode_is_refused(tmp_path: Path) -> None:
    h = Harness(tmp_path, mode="plan")
    result = await h.call("write_file", path="x.txt", content="x")
    assert result.error_kind == "permission_denied"
    assert result.text.startswith("Plan mode is on")


async def test_overwrite_requires_a_read_first(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("old\n")
    h = Harness(tmp_path, mode="accept_edits")
    result = await h.call("write_file", path="f.txt", content="new\n")
    assert result.error_kind == "tool_error"
    assert result.text == (
        "f.txt has not been read in this session. Read it with read_file first, so the change "
        "is based on its current content."
    )
    await h.call("read_file", path="f.txt")
    result = await h.call("write_file", path="f.txt", content="new\n")
    assert result.state is CallState.SUCCESS
    assert (
        result.text
        == "Updated f.txt: +1 -1 lines.\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-old\n+new"
    )


async def test_overwrite_refused_when_changed_since_read(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("v1\n")
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="f.txt")
    target.write_text("v2 by someone else\n")
    result = await h.call("write_file", path="f.txt", content="mine\n")
    assert "has changed since you read it" in result.text
    assert target.read_text() == "v2 by someone else\n"


async def test_overwrite_keeps_encoding_bom_and_crlf(tmp_path: Path) -> None:
    target = tmp_path / "w.txt"
    target.write_bytes(codecs.BOM_UTF16_LE + "a\r\nb\r\n".encode("utf-16-le"))
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="w.txt")
    await h.call("write_file", path="w.txt", content="x\ny\nz\n")
    assert target.read_bytes() == codecs.BOM_UTF16_LE + "x\r\ny\r\nz\r\n".encode("utf-16-le")


async def test_write_outside_workspace_asks_and_symlink_out_is_outside(tmp_path: Path) -> None:
    root, outside = tmp_path / "w", tmp_path / "w-evil"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    h = Harness(root, mode="accept_edits", approve=False)
    result = await h.call("write_file", path="link/x.txt", content="x")
    assert result.error_kind == "permission_denied"
    assert h.requester.asked[0][1].endswith("changes files outside the workspace.")
    assert not (outside / "x.txt").exists()


async def test_protected_path_asks_even_in_bypass(tmp_path: Path) -> None:
    h = Harness(tmp_path, mode="bypass", approve=False)
    result = await h.call("write_file", path=".GIT/hooks/pre-commit", content="evil")
    assert result.error_kind == "permission_denied"
    assert "protected path" in h.requester.asked[0][1]


# -- read_file -----------------------------------------------------------------------------


async def test_read_numbers_lines(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    result = await Harness(tmp_path).call("read_file", path="a.py")
    assert result.text == "1\tx = 1\n2\ty = 2"


async def test_read_range_and_continuation_note(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("".join(f"{i}\n" for i in range(1, 101)))
    result = await Harness(tmp_path).call("read_file", path="n.txt", offset=10, limit=2)
    assert result.text == "10\t10\n11\t11\n\n[Showing lines 10–11 of 100. Continue with offset=12.]"


async def test_read_whole_big_file_returns_what_fits(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(("x" * 99 + "\n") * 1500)
    result = await Harness(tmp_path).call("read_file", path="big.txt")
    assert result.state is CallState.SUCCESS
    assert result.text.endswith(
        "[Showing lines 1–962 of 1500: the rest would exceed the read budget of 100,000 "
        "characters. Continue with offset=963, or use grep to find what you need.]"
    )


async def test_read_empty_and_past_end(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_text("")
    (tmp_path / "s.txt").write_text("a\nb\n")
    h = Harness(tmp_path)
    assert (await h.call("read_file", path="e.txt")).text == "e.txt exists but is empty."
    past = await h.call("read_file", path="s.txt", offset=9)
    assert (
        past.text
        == "s.txt has 2 lines, so offset 9 is past its end; use an offset between 1 and 2."
    )


async def test_read_cuts_long_lines(tmp_path: Path) -> None:
    (tmp_path / "l.txt").write_text("y" * 2500 + "\n")
    result = await Harness(tmp_path).call("read_file", path="l.txt")
    assert result.text.startswith("1\t" + "y" * 2000 + "… [line cut: 2500 characters]")


async def test_read_non_utf8_text(tmp_path: Path) -> None:
    (tmp_path / "g.txt").write_bytes("中文编码测试，这是一个句子。\n第二行中文。\n".encode("gbk"))
    result = await Harness(tmp_path).call("read_file", path="g.txt")
    assert result.text == "1\t中文编码测试，这是一个句子。\n2\t第二行中文。"


async def test_read_binary_is_refused_helpfully(tmp_path: Path) -> None:
    (tmp_path / "b.bin").write_bytes(b"\x00\x01\x02garbage")
    result = await Harness(tmp_path).call("read_file", path="b.bin")
    assert result.text == (
        "b.bin is binary data (it contains NUL bytes), not text, so it cannot be shown here. "
        "Inspect it with bash instead (for example `file b.bin` or `xxd b.bin | head`)."
    )


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 3, 2, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + b"\xff\x00\x00" * 3 + b"\x00" + b"\x00\xff\x00" * 3)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


async def test_read_image_returns_image_content(tmp_path: Path) -> None:
    png = tiny_png()
    (tmp_path / "p.png").write_bytes(png)
    result = await Harness(tmp_path).call("read_file", path="p.png")
    text, image = result.output.content
    assert text.type == "text"
    assert text.text == f"p.png: image/png, 3×2 px, {len(png)} bytes"
    assert image.type == "image"
    assert base64.b64decode(image.data) == png


async def test_read_notebook_shows_cells(tmp_path: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title"]},
            {
                "cell_type": "code",
                "id": "c1",
                "metadata": {},
                "execution_count": 1,
                "source": "print(1)",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}],
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    result = await Harness(tmp_path).call("read_file", path="n.ipynb")
    assert result.text == (
        '<cell id="intro" number="0" type="markdown">\n# Title\n</cell>\n'
        '<cell id="c1" number="1" type="code" language="python">\nprint(1)\n</cell>\n'
        '<outputs cell="c1">\n1\n</outputs>'
    )


async def test_read_special_files_fail_fast(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    h = Harness(tmp_path)
    fifo = await h.call("read_file", path="fifo")
    assert (
        fifo.text
        == "fifo is a named pipe (FIFO), not a regular file, so it cannot be read as a file."
    )
    directory = await h.call("read_file", path="dir")
    assert (
        directory.text
        == "dir is a directory, not a file; list it with `ls` or search it with `glob`."
    )


async def test_read_outside_workspace_asks(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    h = Harness(root, approve=False)
    result = await h.call("read_file", path="link.txt")
    assert result.error_kind == "permission_denied"
    assert h.requester.asked == [("read_file", "read link.txt reads outside the workspace.")]


async def test_missing_file_message(tmp_path: Path) -> None:
    result = await Harness(tmp_path).call("read_file", path="nope.py")
    assert result.text.startswith("nope.py does not exist.")


# -- edit_file / multi_edit ----------------------------------------------------------------


async def test_edit_needs_read_then_applies_and_shows_region(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def add(a, b):\n    return a + b\n")
    h = Harness(tmp_path, mode="accept_edits")
    refused = await h.call("edit_file", path="m.py", old_string="a + b", new_string="a - b")
    assert "has not been read in this session" in refused.text
    await h.call("read_file", path="m.py")
    result = await h.call("edit_file", path="m.py", old_string="a + b", new_string="a - b")
    assert result.text == (
        "Edited m.py: replaced 1 occurrence (+1 -1 lines).\n"
        "The edited region now reads:\n1\tdef add(a, b):\n2\t    return a - b"
    )
    # consecutive edits need no re-read
    again = await h.call("edit_file", path="m.py", old_string="a - b", new_string="a * b")
    assert again.state is CallState.SUCCESS
    assert (tmp_path / "m.py").read_text() == "def add(a, b):\n    return a * b\n"


async def test_edit_keeps_crlf_and_reports_recovery(tmp_path: Path) -> None:
    (tmp_path / "c.txt").write_bytes(b"one  \r\ntwo\r\n")
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="c.txt")
    result = await h.call("edit_file", path="c.txt", old_string="one\ntwo", new_string="1\n2")
    assert "recovered by: ignored trailing whitespace" in result.text
    assert (tmp_path / "c.txt").read_bytes() == b"1  \r\n2\r\n"


async def test_edit_on_changed_file_applies_with_note(tmp_path: Path) -> None:
    target = tmp_path / "s.py"
    target.write_text("a = 1\nb = 2\n")
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="s.py")
    target.write_text("a = 1\nb = 2\nc = 3\n")
    result = await h.call("edit_file", path="s.py", old_string="b = 2", new_string="b = 20")
    assert "the file had changed on disk since you last read it" in result.text
    assert target.read_text() == "a = 1\nb = 20\nc = 3\n"


async def test_edit_not_found_fails_before_asking(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("alpha\n")
    h = Harness(tmp_path)
    await h.call("read_file", path="x.py")
    result = await h.call("edit_file", path="x.py", old_string="beta", new_string="gamma")
    assert result.text.startswith("old_string was not found in x.py.")
    assert h.requester.asked == []


async def test_multi_edit_is_all_or_nothing(tmp_path: Path) -> None:
    target = tmp_path / "cfg.py"
    target.write_text("DEBUG = True\nPORT = 80\n")
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="cfg.py")
    failed = await h.call(
        "multi_edit",
        path="cfg.py",
        edits=[
            {"old_string": "DEBUG = True", "new_string": "DEBUG = False"},
            {"old_string": "HOST = x", "new_string": "HOST = y"},
        ],
    )
    assert failed.text.startswith(
        "Edit 2 of 2 failed, so nothing was written: old_string was not found"
    )
    assert target.read_text() == "DEBUG = True\nPORT = 80\n"
    done = await h.call(
        "multi_edit",
        path="cfg.py",
        edits=[
            {"old_string": "DEBUG = True", "new_string": "DEBUG = False"},
            {"old_string": "PORT = 80", "new_string": "PORT = 8080"},
        ],
    )
    assert done.state is CallState.SUCCESS
    assert target.read_text() == "DEBUG = False\nPORT = 8080\n"


async def test_notebook_edit_resets_outputs_and_validates(tmp_path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["custom"] = {"keep": True}
    code = nbformat.v4.new_code_cell("print(1)")
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    code.execution_count = 3
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), code]
    path = tmp_path / "n.ipynb"
    path.write_text(nbformat.writes(nb))
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="n.ipynb")
    result = await h.call("notebook_edit", path="n.ipynb", cell_id=code.id, new_source="print(2)")
    assert result.state is CallState.SUCCESS, result.text
    saved = nbformat.read(path, as_version=4)
    assert saved.cells[1].source == "print(2)"
    assert (saved.cells[1].outputs, saved.cells[1].execution_count) == ([], None)
    assert saved.metadata["custom"] == {"keep": True}
    inserted = await h.call(
        "notebook_edit",
        path="n.ipynb",
        cell_number=0,
        new_source="x",
        cell_type="code",
        edit_mode="insert",
    )
    assert inserted.state is CallState.SUCCESS
    assert [c.cell_type for c in nbformat.read(path, as_version=4).cells] == [
        "markdown",
        "code",
        "code",
    ]


@pytest.mark.parametrize("bom", ["", "\ufeff"], ids=["no-bom", "bom"])
async def test_exact_edit_of_utf8_keeps_every_other_byte(tmp_path: Path, bom: str) -> None:
    original = f"{bom}nom = 'café'\n# 中文\nvaleur = 1\n"
    (tmp_path / "u.py").write_bytes(original.encode())
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="u.py")
    result = await h.call("edit_file", path="u.py", old_string="'café'", new_string="'thé'")
    assert (tmp_path / "u.py").read_bytes() == original.replace("café", "thé").encode()
    assert result.text == (
        "Edited u.py: replaced 1 occurrence (+1 -1 lines).\n"
        "The edited region now reads:\n"
        "1\tnom = 'thé'\n2\t# 中文\n3\tvaleur = 1"
    )
    assert result.output.structured is not None
    assert result.output.structured["hunks"][0]["lines"] == [
        "-nom = 'café'",
        "+nom = 'thé'",
        " # 中文",
        " valeur = 1",
    ]


async def test_paging_a_big_file_reuses_line_marks_and_sees_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolbelt.files import line_marks

    monkeypatch.setattr(line_marks, "SETTLE_SECONDS", 0.0)  # mark even this fresh file
    big = tmp_path / "big.log"
    big.write_text("".join(f"entry {i:06d}\n" for i in range(1, 700_001)))  # 9.1 MB
    h = Harness(tmp_path)
    first = await h.call("read_file", path="big.log", offset=600_000, limit=2)
    assert first.text.startswith("600000\tentry 600000\n600001\tentry 600001\n")
    again = await h.call("read_file", path="big.log", offset=600_000, limit=2)
    assert again.text == first.text
    earlier = await h.call("read_file", path="big.log", offset=123_456, limit=1)
    assert earlier.text.startswith("123456\tentry 123456\n")
    with big.open("r+") as handle:  # a new first line: every mark of the old version is wrong
        rest = handle.read()
        handle.seek(0)
        handle.write("new first line\n" + rest)
    shifted = await h.call("read_file", path="big.log", offset=600_000, limit=2)
    assert shifted.text.startswith("600000\tentry 599999\n600001\tentry 600000\n")


async def test_recovered_edit_names_the_files_own_characters(tmp_path: Path) -> None:
    original = "# Notes\n\nFirst line  \nsecond line — with a dash\nthird\n"
    (tmp_path / "n.md").write_text(original)
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="n.md")
    result = await h.call(
        "edit_file",
        path="n.md",
        old_string="First line\nsecond line - with a dash\nthird",
        new_string="First line\nsecond line - with a dash\nthird line",
    )
    assert (tmp_path / "n.md").read_text() == original.replace("third\n", "third line\n")
    assert result.text == (
        "Edited n.md: replaced 1 occurrence (+1 -1 lines).\n"
        "old_string did not match exactly; recovered by: ignored trailing whitespace, matched "
        "Unicode look-alikes (em dash for '-').\n"
        "The file's own text differs from what you typed: line 3 ends with 2 spaces where "
        "old_string had no blanks; line 4 holds an em dash (U+2014) where old_string had '-'.\n"
        "The edited region now reads:\n"
        "1\t# Notes\n2\t\n3\tFirst line  \n4\tsecond line — with a dash\n5\tthird line"
    )
    assert result.output.structured is not None
    assert result.output.structured["differences"] == [
        "line 3 ends with 2 spaces where old_string had no blanks",
        "line 4 holds an em dash (U+2014) where old_string had '-'",
    ]


async def test_multi_edit_names_each_edits_recovery(tmp_path: Path) -> None:
    original = "title = “Draft”\n\tcount = 1\n"
    (tmp_path / "c.py").write_text(original)
    h = Harness(tmp_path, mode="accept_edits")
    await h.call("read_file", path="c.py")
    result = await h.call(
        "multi_edit",
        path="c.py",
        edits=[
            {"old_string": 'title = "Draft"', "new_string": 'title = "Final"'},
            {"old_string": "    count = 1", "new_string": "    count = 2"},
        ],
    )
    assert (tmp_path / "c.py").read_text() == "title = “Final”\n\tcount = 2\n"
    assert result.output.structured is not None
    assert result.output.structured["differences"] == [
        "edit 1: line 1 holds a left double quote (U+201C) where old_string had '\"'",
        "edit 1: line 1 holds a right double quote (U+201D) where old_string had '\"'",
        "edit 2: line 2 is indented with 1 tab where old_string had 4 spaces",
    ]
