"""A workspace's FIFOs inside ``.git/`` (``HEAD``, a file ``include.path`` names) or with a
protected name (``.npmrc``) hold no command: toolbelt's own git look-ups do not run git on
them, and a sandboxed command reads each as empty — ``git status`` answers at once instead of
waiting out its timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runners.cli import Place, git, needs_sandbox, place, toolbelt
from toolbelt.shell.git_files import blocking_git_file

__all__ = ["place"]

pytestmark = needs_sandbox


def bash(place: Place, command: str) -> subprocess.CompletedProcess[str]:
    """``command`` through ``toolbelt call bash``, with a timeout it must not reach."""
    args = json.dumps({"command": command, "timeout_ms": 30_000})
    return toolbelt("call", "bash", args, "--mode", "accept_edits", place=place)


def repository(place: Place) -> Path:
    git(place.ws, "init", "-q", "-b", "main")
    (place.ws / "a.txt").write_text("a\n")
    git(place.ws, "add", "a.txt")
    git(place.ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return place.ws / ".git"


def test_git_status_answers_when_head_is_a_fifo(place: Place) -> None:
    head = repository(place) / "HEAD"
    head.unlink()
    os.mkfifo(head)
    done = bash(place, "git status; echo exit=$?")
    assert "timed out" not in done.stdout
    assert "fatal: not a git repository" in done.stdout
    assert done.stdout.rstrip().endswith("exit=128")


def test_git_status_answers_when_the_config_includes_a_fifo(place: Place) -> None:
    git_dir = repository(place)
    os.mkfifo(git_dir / "more")
    with (git_dir / "config").open("a") as config:
        config.write('[includeIf "gitdir:/nowhere/"]\n\tpath = elsewhere\n')
        config.write("[include]\n\tpath = more\n")
    done = bash(place, "git status; echo exit=$?")
    assert "timed out" not in done.stdout
    assert "nothing to commit, working tree clean" in done.stdout
    assert done.stdout.rstrip().endswith("exit=0")


def test_a_fifo_with_a_protected_name_reads_as_empty(place: Place) -> None:
    os.mkfifo(place.ws / ".npmrc")
    done = bash(place, "cat .npmrc; echo exit=$?")
    assert done.stdout.strip() == "exit=0"


def test_ls_in_a_repository_whose_head_is_a_fifo_answers(place: Place) -> None:
    head = repository(place) / "HEAD"
    head.unlink()
    os.mkfifo(head)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    done = subprocess.run(  # git check-ignore would wait 30 s on HEAD: the bound is a hang's
        [sys.executable, "-m", "toolbelt.cli.main", "call", "ls", "{}"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=place.ws,
        env={**clean, "HOME": str(place.home)},
        timeout=20,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "a.txt" in done.stdout


@pytest.mark.parametrize(
    ("layout", "blocking"),
    [
        ("head", ".git/HEAD"),
        ("include", ".git/sub/more"),
        ("nested include", ".git/deep"),
        ("home include", "home/inc"),
        ("gitfile", "real/HEAD"),
        ("plain", None),
    ],
)
def test_the_files_git_reads_first_are_checked(
    tmp_path: Path, layout: str, blocking: str | None
) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    git(ws, "init", "-q")
    dot_git = ws / ".git"
    config = dot_git / "config"
    if layout == "head":
        (dot_git / "HEAD").unlink()
        os.mkfifo(dot_git / "HEAD")
    elif layout == "include":
        (dot_git / "sub").mkdir()
        os.mkfifo(dot_git / "sub" / "more")
        config.write_text(config.read_text() + "[include]\n\tpath = sub/more\n")
    elif layout == "nested include":
        (dot_git / "one").write_text('[includeIf "onbranch:x"]\n\tpath = deep\n')
        os.mkfifo(dot_git / "deep")
        config.write_text(config.read_text() + "[include]\n\tpath = one\n")
    elif layout == "home include":
        os.mkfifo(tmp_path / "home" / "inc")
        config.write_text(config.read_text() + "[include]\n\tpath = ~/inc\n")
    elif layout == "gitfile":
        dot_git.rename(tmp_path / "real")
        (tmp_path / "real" / "HEAD").unlink()
        os.mkfifo(tmp_path / "real" / "HEAD")
        (ws / ".git").write_text(f"gitdir: {tmp_path / 'real'}\n")
    found = blocking_git_file(ws / "src", {"HOME": str(tmp_path / "home")})
    expected = None if blocking is None else tmp_path / blocking.replace(".git", "ws/.git", 1)
    assert found == expected
