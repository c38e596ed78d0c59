"""Failures of the operating system reach the model as tool errors it can act on, mapped once
at the executor's boundary — never as "a bug in the tool", never naming a temp file."""

from __future__ import annotations

import errno
import json
import resource
from pathlib import Path

from tests.support.toolbelt_cli import toolbelt
from toolbelt.core.os_errors import TEMP_MARKER, tool_error_from_os
from toolbelt.files.atomic import TEMP_MARKER as ATOMIC_TEMP_MARKER


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_write_the_os_refuses_is_a_tool_error_that_names_no_temp_file(tmp_path: Path) -> None:
    """A file-size limit (RLIMIT_FSIZE; Python ignores SIGXFSZ) makes the atomic write's
    ``os.write`` fail with EFBIG, as a full disk fails it with ENOSPC."""
    (tmp_path / "notes.txt").write_text("old\n")
    arguments = json.dumps({"path": "notes.txt", "content": "x" * 20_000})
    done = toolbelt(
        "call", "write_file", arguments, "--yes", cwd=tmp_path, preexec_fn=_limit_file_size
    )
    assert done.returncode == 1
    assert done.stdout.strip() == (
        "`write_file` could not finish: the file is larger than the operating system allows "
        "(File too large). Write a smaller file, or split the content."
    )
    assert (tmp_path / "notes.txt").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_an_os_error_naming_a_temp_file_is_told_without_it() -> None:
    temp = OSError(errno.ENOSPC, "No space left on device", ".notes.txt.toolbelt-tmp-1a2b3c")
    assert str(tool_error_from_os("write_file", temp)) == (
        "`write_file` could not finish: the disk is full (No space left on device). Free some "
        "space or ask the user to, then retry."
    )
    denied = OSError(errno.EACCES, "Permission denied", "/w/locked/notes.txt")
    assert str(tool_error_from_os("edit_file", denied)) == (
        "`edit_file` could not finish: permission denied by the operating system on "
        "/w/locked/notes.txt (Permission denied). Choose a path you may use, or ask the user "
        "to change its permissions."
    )


def test_the_temp_marker_is_the_one_atomic_writes_use() -> None:
    assert TEMP_MARKER == ATOMIC_TEMP_MARKER
