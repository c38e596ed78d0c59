"""Undo of each file tool puts back the file's exact bytes (encoding, BOM, line endings) and
mode bits, removes a file (and the directories) the call created, and redo puts the change
back — through the runtime, with real files."""

from __future__ import annotations

import errno
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.helpers import call, open_runtime, tree_state
from toolbelt.checkpoints.undo import UndoError
from toolbelt.core.executor import ToolCall

pytestmark = pytest.mark.anyio

NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "c1",
            "metadata": {},
            "outputs": [],
            "source": ["print('one')"],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}

CASES: list[tuple[str, bytes, int, dict[str, Any]]] = [
    (
        "write_file",
        "café\r\nsecond line\r\n".encode("latin-1"),
        0o640,
        {"path": "f.txt", "content": "entirely new\nsecond\n"},
    ),
    (
        "edit_file",
        b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma\r\n",
        0o755,
        {"path": "f.txt", "old_string": "beta", "new_string": "BETA\nmore"},
    ),
    (
        "multi_edit",
        "naïve\tline\nother ñ\n".encode("cp1252"),
        0o600,
        {
            "path": "f.txt",
            "edits": [
                {"old_string": "line", "new_string": "row"},
                {"old_string": "other", "new_string": "another"},
            ],
        },
    ),
    (
        "notebook_edit",
        (json.dumps(NOTEBOOK, indent=1) + "\n").encode(),
        0o664,
        {"path": "f.ipynb", "cell_id": "c1", "new_source": "print('two')"},
    ),
]


@pytest.mark.parametrize(
    ("tool", "original", "mode", "arguments"), CASES, ids=[c[0] for c in CASES]
)
async def test_undo_restores_bytes_and_mode_bits_then_redo_reapplies(
    tmp_path: Path, tool: str, original: bytes, mode: int, arguments: dict[str, Any]
) -> None:
    target = tmp_path / arguments["path"]
    target.write_bytes(original)
    target.chmod(mode)
    async with open_runtime(tmp_path) as runtime:
        await call(runtime, tool, **arguments)
        changed = target.read_bytes()
        assert changed != original
        undone = await runtime.checkpoints.undo()
        assert target.read_bytes() == original
        assert stat.S_IMODE(target.stat().st_mode) == mode
        assert undone.restored == (arguments["path"],)
        redone = await runtime.checkpoints.redo()
        assert target.read_bytes() == changed
        assert stat.S_IMODE(target.stat().st_mode) == mode
        assert redone.kind == "redo"


async def test_undo_of_a_created_file_removes_it_and_the_directories_made_for_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "keep").mkdir()
    before = tree_state(tmp_path)
    async with open_runtime(tmp_path) as runtime:
        await call(runtime, "write_file", path="new/deeper/made.txt", content="hello\n")
        await call(runtime, "write_file", path="keep/also.txt", content="x\n")
        assert (tmp_path / "new/deeper/made.txt").read_text() == "hello\n"
        second = await runtime.checkpoints.undo()
        first = await runtime.checkpoints.undo()
    assert second.removed == ("keep/also.txt",)
    assert first.removed == ("new/deeper/made.txt",)
    assert tree_state(tmp_path) == before  # keep/ stays: it was there before


async def test_each_call_is_its_own_checkpoint_newest_first(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    async with open_runtime(tmp_path) as runtime:
        first = await call(runtime, "edit_file", path="a.txt", old_string="one", new_string="two")
        second = await call(runtime, "edit_file", path="a.txt", old_string="two", new_string="3")
        listed = await runtime.checkpoints.list()
        assert [c.call_id for c in listed] == [second.call_id, first.call_id]
        assert [(c.tool, c.state, c.paths) for c in listed] == [
            ("edit_file", "active", ("a.txt",))
        ] * 2
        await runtime.checkpoints.undo()
        assert (tmp_path / "a.txt").read_text() == "two\n"
        await runtime.checkpoints.undo()
        assert (tmp_path / "a.txt").read_text() == "one\n"
        with pytest.raises(UndoError, match=r"Nothing to undo in .*: no recorded change in effect"):
            await runtime.checkpoints.undo()
        assert [c.state for c in await runtime.checkpoints.list()] == ["undone", "undone"]
        await runtime.checkpoints.redo()  # the call undone last comes back first
        assert (tmp_path / "a.txt").read_text() == "two\n"
        await runtime.checkpoints.redo()
        assert (tmp_path / "a.txt").read_text() == "3\n"


async def test_an_older_call_is_not_undone_over_a_later_edit(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    async with open_runtime(tmp_path) as runtime:
        first = await call(runtime, "edit_file", path="a.txt", old_string="one", new_string="two")
        later = await call(runtime, "edit_file", path="a.txt", old_string="two", new_string="3")
        with pytest.raises(UndoError) as refused:
            await runtime.checkpoints.undo(first.call_id)
        message = str(refused.value)
        assert message.startswith(f"Refusing to undo edit_file call {first.call_id} (")
        assert f"a.txt was modified since, by edit_file call {later.call_id} (" in message
        assert message.endswith("Undo the later change first, or pass force=True to overwrite it.")
        assert (tmp_path / "a.txt").read_text() == "3\n"
        await runtime.checkpoints.undo(first.call_id, force=True)
        assert (tmp_path / "a.txt").read_text() == "one\n"
        await runtime.checkpoints.redo(first.call_id)  # puts back what the forced undo found
        assert (tmp_path / "a.txt").read_text() == "3\n"


async def test_a_write_that_fails_leaves_no_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("one\n")

    def disk_full(*args: object, **kwargs: object) -> bool:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("toolbelt.tools._files.atomic_write", disk_full)
    async with open_runtime(tmp_path) as runtime:
        result = await runtime.run_one(
            ToolCall("x", "edit_file", {"path": "a.txt", "old_string": "one", "new_string": "b"})
        )
        assert result.is_error
        assert await runtime.checkpoints.list() == []
    assert (tmp_path / "a.txt").read_text() == "one\n"
