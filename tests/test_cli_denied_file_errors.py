"""No tool tells, through an error or a result, what a file it may not read holds: a file
behind a Read deny rule (or a `.env` secret) gets the same answer from every tool whether it
is text, binary, too large to change, or missing — through the real `toolbelt call`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.config.test_trust import toolbelt
from tests.test_cli_settings import user_settings
from toolbelt.tools._files import MAX_EDIT_BYTES

KINDS = ["text", "binary", "too large", "missing"]


def _make(path: Path, kind: str) -> None:
    if kind == "text":
        path.write_text("hello\n")
    elif kind == "binary":
        path.write_bytes(b"hello\0\x01\x02" * 100)
    elif kind == "too large":  # sparse: no disk is spent on it
        with path.open("wb") as handle:
            handle.write(b"hello\n")
            handle.truncate(MAX_EDIT_BYTES + 1)


CALLS: dict[str, dict[str, object]] = {
    "write_file": {"content": "x\n"},
    "edit_file": {"old_string": "hello", "new_string": "x"},
    "multi_edit": {"edits": [{"old_string": "hello", "new_string": "x"}]},
    "notebook_edit": {"cell_number": 0, "new_source": "x"},
    "read_file": {},
    "grep": {"pattern": "hello"},
    "glob": {"pattern": "*"},
    "ls": {},
}


def _answers(tmp_path: Path, tool: str, name: str, approve: str) -> set[tuple[int, str]]:
    answers = set()
    for kind in KINDS:
        home, work = tmp_path / kind / "home", tmp_path / kind / "work"
        work.mkdir(parents=True)
        user_settings(home, {"deny": ["Read(./denied*)"]})
        _make(work / name, kind)
        arguments = json.dumps({"path": name, **CALLS[tool]})
        done = toolbelt("call", tool, arguments, approve, "--sandbox", "off", cwd=work, home=home)
        answers.add((done.returncode, done.stdout.replace(str(tmp_path / kind), "TMP")))
    return answers


@pytest.mark.parametrize("tool", sorted(CALLS))
def test_a_read_denied_file_gets_one_answer_whatever_it_holds(tmp_path: Path, tool: str) -> None:
    answers = _answers(tmp_path, tool, "denied.txt", "--mode=bypass")
    assert len(answers) == 1, answers


@pytest.mark.parametrize("tool", ["write_file", "edit_file", "multi_edit", "notebook_edit"])
def test_an_approved_change_to_a_secret_tells_nothing_of_it(tmp_path: Path, tool: str) -> None:
    answers = _answers(tmp_path, tool, ".env", "--yes")
    assert len(answers) == 1, answers


def test_write_file_without_a_read_tells_nothing_and_writes(tmp_path: Path) -> None:
    (answer,) = _answers(tmp_path, "write_file", "denied.txt", "--mode=bypass")
    assert answer == (
        0,
        "Wrote denied.txt (2 bytes); what it held before, if anything, is not described "
        "because reading denied.txt is not allowed without asking.\n",
    )
    for kind in KINDS:
        assert (tmp_path / kind / "work" / "denied.txt").read_bytes() == b"x\n"
