"""An edit never shows more of a file than a read of it would have been allowed to show.

edit_file quotes the file's lines when old_string is not found (the closest match) and after an
edit (the edited region, the diff). For a file the caller may not read without asking — a read
deny rule, a ``.env`` file, a path outside the workspace — those quotes would be a read past
the policy, so the answer leaves them out and says where to look instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.config.test_trust import toolbelt
from tests.test_cli_settings import user_settings
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState

SECRET = "API_TOKEN = 'hunter2-very-secret'\nDEBUG = False\n"


def edit(path: Path | str, old: str, new: str) -> str:
    return json.dumps({"path": str(path), "old_string": old, "new_string": new})


@pytest.mark.parametrize(
    ("where", "mode"),
    [("denied", "dont_ask"), ("dotenv", "bypass"), ("outside", "default"), ("denied", "plan")],
)
def test_cli_edit_of_an_unreadable_file_is_no_oracle_for_its_content(
    tmp_path: Path, where: str, mode: str
) -> None:
    """Whether old_string is in the file, twice, or not at all, or whether the file exists:
    the same refusal, the same exit code, and the file untouched. (In bypass mode a file
    outside the workspace may be read without asking, so editing it is no oracle.)"""
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    user_settings(home, {"deny": ["Read(keys.py)", "Read(absent.py)"]})
    target, absent = {
        "denied": (work / "keys.py", work / "absent.py"),
        "dotenv": (work / ".env", work / ".env.absent"),
        "outside": (tmp_path / "outside.py", tmp_path / "absent.py"),
    }[where]
    target.write_text(SECRET + "DEBUG = False\n")
    shown = str(target.relative_to(work)) if target.is_relative_to(work) else str(target)
    answers = set()
    for old, path in [
        ("hunter2", target),  # found once
        ("DEBUG = False", target),  # found twice
        ("QQQQ", target),  # not found
        ("QQQQ", absent),  # no such file
    ]:
        for tool, args in [
            ("edit_file", edit(path, old, "Z")),
            (
                "multi_edit",
                json.dumps({"path": str(path), "edits": [{"old_string": old, "new_string": "Z"}]}),
            ),
        ]:
            out = toolbelt("call", tool, args, "--mode", mode, cwd=work, home=home)
            stdout = out.stdout.replace(absent.name, target.name)
            answers.add((out.returncode, stdout, out.stderr))
    assert answers == {
        (
            1,
            f"{shown} cannot be matched against without reading it, and reading it is not "
            "allowed without asking; read it first with read_file (which will ask), then edit "
            "it.\n",
            "",
        )
    }
    assert target.read_text() == SECRET + "DEBUG = False\n"


@pytest.mark.anyio
async def test_notebook_edit_of_an_unread_outside_notebook_is_refused_before_parsing(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "nb.ipynb"
    outside.write_text("not a notebook")
    root = tmp_path / "work"
    root.mkdir()
    h = Harness(root, mode="default", require_read_before_write=False)
    for cell in ("a", "zz"):
        result = await h.call("notebook_edit", path=str(outside), cell_id=cell, new_source="x")
        assert result.state is CallState.ERROR
        assert result.text == (
            f"{outside} cannot be matched against without reading it, and reading it is not "
            "allowed without asking; read it first with read_file (which will ask), then edit it."
        )
    assert h.requester.asked == []
    assert outside.read_text() == "not a notebook"


def test_cli_edit_of_a_readable_file_still_shows_the_closest_match(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    (work / "settings.py").write_text(SECRET)
    user_settings(home, {"deny": ["Read(other.py)"]})
    near = edit("settings.py", "API_TOKEN = 'hunter3'", "API_TOKEN = 'x'")
    missed = toolbelt("call", "edit_file", near, "--mode", "accept_edits", cwd=work, home=home)
    assert missed.returncode == 1
    assert "The closest match is near line 1:\n1\tAPI_TOKEN = 'hunter2-very-secret'" in (
        missed.stdout
    )


@pytest.mark.anyio
@pytest.mark.parametrize("where", ["dotenv", "outside"])
async def test_unreadable_without_asking_is_not_quoted(tmp_path: Path, where: str) -> None:
    root = tmp_path / "work"
    root.mkdir()
    target = root / ".env" if where == "dotenv" else tmp_path / "outside.py"
    target.write_text(SECRET)
    h = Harness(root, mode="accept_edits", require_read_before_write=False)
    read = await h.call("read_file", path=str(target))  # asks; the requester approves
    assert read.state is CallState.SUCCESS, read.text
    missed = await h.call("edit_file", path=str(target), old_string="TOKEN = 1", new_string="x")
    assert missed.state is CallState.ERROR
    assert "hunter2" not in missed.text
    assert "is not allowed without asking" in missed.text
    done = await h.call(
        "edit_file", path=str(target), old_string="DEBUG = False", new_string="DEBUG = True"
    )
    assert done.state is CallState.SUCCESS, done.text
    assert "hunter2" not in done.text
    assert done.output.structured is not None
    assert (done.output.structured["diff"], done.output.structured["hunks"]) == ("", [])
    assert target.read_text() == SECRET.replace("False", "True")


def test_cli_overwrite_of_a_read_denied_file_shows_no_diff(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    (work / "keys.py").write_text(SECRET)
    user_settings(home, {"deny": ["Read(keys.py)"]})
    args = json.dumps({"path": "keys.py", "content": "API_TOKEN = ''\n"})
    out = toolbelt("call", "write_file", args, "--mode", "accept_edits", cwd=work, home=home)
    assert (out.returncode, out.stdout) == (
        0,
        "Wrote keys.py (15 bytes); what it held before, if anything, is not described "
        "because reading keys.py is not allowed without asking.\n",
    )
    assert (work / "keys.py").read_text() == "API_TOKEN = ''\n"
    again = toolbelt("call", "write_file", args, "--mode", "accept_edits", cwd=work, home=home)
    assert (again.returncode, again.stdout) == (out.returncode, out.stdout)


def test_cli_refused_overwrite_of_a_dotenv_file_does_not_count_its_lines(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text(SECRET)
    args = json.dumps({"path": ".env", "content": "A=1\n"})
    out = toolbelt("call", "write_file", args, "--mode", "dont_ask", cwd=work, home=home)
    assert out.returncode == 3
    # not "overwrite": whether it exists is not said either
    assert out.stdout.startswith("write .env touches a protected path"), out.stdout
    assert "-2" not in out.stdout + out.stderr
    assert (work / ".env").read_text() == SECRET


@pytest.mark.anyio
async def test_an_unread_outside_file_gets_one_refusal_whatever_it_holds(tmp_path: Path) -> None:
    """Where writes need a read first, write_file refuses an unseen file the session may not
    read with the same words whether it is text, binary or too large to change."""
    from toolbelt.tools._files import MAX_EDIT_BYTES

    root = tmp_path / "work"
    root.mkdir()
    h = Harness(root)  # the write outside is asked about and approved
    texts = set()
    for name, data in (("t", b"hello\n"), ("b", b"\0\1\2" * 50), ("l", b"hello\n")):
        target = tmp_path / f"{name}.txt"
        target.write_bytes(data)
        if name == "l":
            with target.open("r+b") as handle:  # sparse: too large, without the disk
                handle.truncate(MAX_EDIT_BYTES + 1)
        result = await h.call("write_file", path=str(target), content="x\n")
        assert result.state is CallState.ERROR
        texts.add(result.text.replace(str(target), "FILE"))
        assert target.read_bytes()[:6] == data[:6]
    assert texts == {
        "FILE has not been read in this session. Read it with read_file first (which will "
        "ask), so the change is based on its current content."
    }
