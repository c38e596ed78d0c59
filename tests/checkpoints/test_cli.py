"""``toolbelt checkpoints``, ``toolbelt undo`` and ``toolbelt redo`` as a user runs them: each
command a process of its own, undoing what an earlier ``toolbelt call`` process changed."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tests.checkpoints.helpers import toolbelt

TIME = r"\(\d\d:\d\d:\d\d\)"


def edit(root: Path, path: str, old: str, new: str) -> str:
    """``toolbelt call edit_file`` in a process of its own; the call id it recorded."""
    arguments = json.dumps({"path": path, "old_string": old, "new_string": new})
    done = toolbelt("call", "edit_file", arguments, "--root", str(root), "--yes")
    assert done.returncode == 0, done.stderr
    listed = json.loads(toolbelt("checkpoints", "--root", str(root), "--json").stdout)
    return str(listed[0]["call_id"])


def test_a_call_in_one_process_is_undone_and_redone_from_others(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    call_id = edit(tmp_path, "a.txt", "two", "deux")
    assert (tmp_path / "a.txt").read_bytes() == b"one\r\ndeux\r\n"
    listed = json.loads(toolbelt("checkpoints", "--root", str(tmp_path), "--json").stdout)
    assert [(e["call_id"], e["tool"], e["state"], e["files"]) for e in listed] == [
        (call_id, "edit_file", "active", [{"path": "a.txt", "change": "modified"}])
    ]
    assert re.fullmatch(r"cli-[0-9a-f]{8}", call_id)
    undone = toolbelt("undo", "--root", str(tmp_path))
    assert (undone.returncode, undone.stderr) == (0, "")
    assert re.fullmatch(
        rf"Undid edit_file call {call_id} {TIME}: restored a\.txt\.\n", undone.stdout
    )
    assert (tmp_path / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    table = toolbelt("checkpoints", cwd=tmp_path).stdout.splitlines()
    assert table[0].split() == ["CALL", "ID", "SESSION", "TOOL", "TIME", "STATE", "FILES"]
    cells = table[1].split()
    assert (cells[0], cells[2], cells[4:]) == (call_id, "edit_file", ["undone", "M", "a.txt"])
    redone = toolbelt("redo", cwd=tmp_path)
    assert re.fullmatch(
        rf"Redid edit_file call {call_id} {TIME}: restored a\.txt\.\n", redone.stdout
    )
    assert (tmp_path / "a.txt").read_bytes() == b"one\r\ndeux\r\n"


def test_undo_takes_the_newest_change_of_any_process_first(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    first = edit(tmp_path, "a.txt", "a", "A")
    second = edit(tmp_path, "b.txt", "b", "B")
    assert f"call {second} " in toolbelt("undo", "--root", str(tmp_path)).stdout
    assert (tmp_path / "a.txt").read_text() == "A\n" and (tmp_path / "b.txt").read_text() == "b\n"
    assert f"call {first} " in toolbelt("undo", "--root", str(tmp_path)).stdout
    assert (tmp_path / "a.txt").read_text() == "a\n"
    nothing = toolbelt("undo", "--root", str(tmp_path))
    assert nothing.returncode == 1
    assert nothing.stderr == (
        f"toolbelt: Nothing to undo in {tmp_path}: no recorded change in effect "
        "(`toolbelt checkpoints` lists them).\n"
    )


def test_an_undo_over_a_later_hand_edit_is_refused_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    call_id = edit(tmp_path, "a.txt", "one", "two")
    (tmp_path / "a.txt").write_text("two\nmine\n")  # the person edits it in their editor
    refused = toolbelt("undo", call_id, "--root", str(tmp_path))
    assert (refused.returncode, refused.stdout) == (1, "")
    assert re.fullmatch(
        rf"toolbelt: Refusing to undo edit_file call {call_id} {TIME}: a\.txt was modified "
        r"since, by someone else\. Undo the later change first, or add --force to overwrite "
        r"it\.\n",
        refused.stderr,
    )
    assert (tmp_path / "a.txt").read_text() == "two\nmine\n"
    forced = toolbelt("undo", call_id, "--root", str(tmp_path), "--force")
    assert forced.returncode == 0
    assert (tmp_path / "a.txt").read_text() == "one\n"
    toolbelt("redo", "--root", str(tmp_path))  # what the forced undo found comes back
    assert (tmp_path / "a.txt").read_text() == "two\nmine\n"


def test_a_command_run_by_one_process_is_undone_by_another(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("keep\n")
    command = json.dumps({"command": "mkdir out && echo built > out/app.txt && rm keep.txt"})
    done = toolbelt("call", "bash", command, "--root", str(tmp_path), "--yes")
    assert done.returncode == 0, done.stderr
    undone = toolbelt("undo", "--root", str(tmp_path))
    assert re.fullmatch(
        rf"Undid bash call cli-[0-9a-f]{{8}} {TIME}: restored keep\.txt; removed out/app\.txt\.\n",
        undone.stdout,
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_nothing_recorded_yet_creates_nothing(tmp_path: Path) -> None:
    done = toolbelt("undo", "--root", str(tmp_path))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"toolbelt: Nothing to undo in {tmp_path}: nothing was recorded there yet (changes made "
        "by toolbelt's tools are, from the first one on).\n"
    )
    listed = toolbelt("checkpoints", "--root", str(tmp_path))
    assert listed.stdout == (
        f"No checkpoints for {tmp_path} yet: changes made by toolbelt's tools appear here.\n"
    )
    assert not (Path(os.environ["XDG_STATE_HOME"]) / "toolbelt").exists()


def test_a_root_that_is_not_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    done = toolbelt("undo", "--root", str(missing))
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr
        == f"toolbelt: the workspace root {str(missing)!r} is not an existing directory.\n"
    )
