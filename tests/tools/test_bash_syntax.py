"""A command that is not complete shell syntax is refused at once, with bash's own words,
before anyone is asked to approve it: the persistent shell used to wait for the rest of it
until the call's timeout (two minutes) and report only "timed out". Through ``toolbelt
call``; the subprocess' own 30 s bound is what a hang would run into."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.toolbelt_cli import toolbelt

ADVICE = "Close every quote, bracket and `$(`, or put the text in a file and run that."


@pytest.mark.parametrize(
    ("command", "bash_says"),
    [
        ('echo "hi', "line 1: unexpected EOF while looking for matching `\"'"),
        ("echo $(ls", "line 2: unexpected EOF while looking for matching `)'"),
        ("for i in 1 2; do echo $i", "line 2: syntax error: unexpected end of file"),
    ],
)
def test_an_unfinished_command_is_refused_at_once(
    tmp_path: Path, command: str, bash_says: str
) -> None:
    arguments = json.dumps({"command": command})
    done = toolbelt("call", "bash", arguments, "--root", str(tmp_path), timeout=30)
    assert done.returncode == 1, done.stderr
    assert done.stdout == (
        f"The command is not complete shell syntax, so it was not run ({bash_says}). {ADVICE}\n"
    )


def test_the_shell_still_runs_the_next_command(tmp_path: Path) -> None:
    arguments = json.dumps({"command": "printf 'a\\nb\\n' | sort -r"})
    done = toolbelt("call", "bash", arguments, "--root", str(tmp_path), timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "b\na\n"
