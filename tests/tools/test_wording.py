"""What the tools tell the model about counts and about paths that are not there."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.core.wording import counted

pytestmark = pytest.mark.anyio

MISSING = (
    "missing does not exist; check the name (ls lists a directory, glob finds files by name); "
    "relative paths start at the working directory."
)


def test_counted_says_one_thing_and_many_things() -> None:
    assert [counted(n, "byte") for n in (0, 1, 2, 12345)] == [
        "0 bytes",
        "1 byte",
        "2 bytes",
        "12,345 bytes",
    ]
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(3, "entry", "entries") == "3 entries"


async def test_sizes_and_counts_of_one_are_singular(tmp_path: Path) -> None:
    h = Harness(tmp_path, mode="bypass")
    created = await h.call("write_file", path="one.txt", content="x")
    assert created.text == "Created one.txt (1 byte, 0 lines)."
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "only.txt").write_text("y\n")
    listed = await h.call("ls", path="d")
    assert listed.text.splitlines()[0] == "d/ (1 entry)"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("ls", {"path": "missing"}),
        ("glob", {"pattern": "*.py", "path": "missing"}),
        ("grep", {"pattern": "x", "path": "missing"}),
    ],
)
async def test_a_missing_path_is_a_tool_error_like_every_other(
    tmp_path: Path, tool: str, arguments: dict[str, str]
) -> None:
    h = Harness(tmp_path)
    result = await h.call(tool, **arguments)
    assert (result.error_kind, result.text) == ("tool_error", MISSING)
    assert result.output.structured == {"error": MISSING, "kind": "tool_error"}


@pytest.mark.parametrize("tool", ["ls", "glob"])
async def test_a_file_where_a_directory_is_needed_says_so(tmp_path: Path, tool: str) -> None:
    (tmp_path / "notes.txt").write_text("n\n")
    h = Harness(tmp_path)
    arguments = {"path": "notes.txt"} | ({"pattern": "*"} if tool == "glob" else {})
    result = await h.call(tool, **arguments)
    assert result.error_kind == "tool_error"
    assert result.text == (
        "notes.txt is a file, not a directory; read it with read_file, or give its directory."
    )
