"""read_file and edit_file on big files: toolbelt vs Alan Code, the reference MCP filesystem
server and Claude Code, in one interleaved run.

- ranged read: lines 100,000–102,000 of a 1,000,000-line (≈55 MB) file (goal ≤ 15 ms, and
  over MCP ≤ 1.5× ``sed -n '100000,102000p;102000q'`` run as a whole process);
- edit: one unique string in a 100,000-line (≈7.7 MB) file, atomic write and diff included
  (goal ≤ 30 ms); the marker alternates so every round really changes the file;
- small read: a 200-line file, the common case.

toolbelt is called in-process through its executor; Alan Code in-process in its own venv;
the MCP servers over stdio (so their figures include one JSON-RPC round trip, ~0.1–1 ms).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import Case, interleave, side_by_side, write_section
from peers import AlanCode, McpPeer, claude_available, filesystem_server_available
from toolbelt.config.factory import build_policy
from toolbelt.core.context import Session
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.files import line_marks
from toolbelt.tools import builtin_toolset

WORK = Path(__file__).resolve().parent / ".work" / "files"


def make_files() -> tuple[Path, Path, Path]:
    WORK.mkdir(parents=True, exist_ok=True)
    million = WORK / "million.txt"
    if not million.exists():
        million.write_text(
            "".join(
                f"line {i:07d} of the million-line file for ranged reads\n"
                for i in range(1, 1_000_001)
            )
        )
    big = WORK / "big.py"
    lines = [
        f"value_{i} = compute({i}, factor=3)  # filler line for the edit benchmark\n"
        for i in range(100_000)
    ]
    lines[50_000] = "MARKER = 'UNIQUE_MARKER_ALPHA'\n"
    big.write_text("".join(lines))
    small = WORK / "small.py"
    small.write_text("".join(f"def function_{i}(x):\n    return x * {i}\n" for i in range(100)))
    return million, big, small


def main() -> None:
    million, big, small = make_files()
    loop = asyncio.new_event_loop()
    session = Session(WORK)
    executor = Executor(builtin_toolset(), session, policy=build_policy(session, "bypass"))

    def ours(tool: str, **args: Any) -> None:
        result = loop.run_until_complete(executor.run_one(ToolCall("b", tool, args)))
        assert not result.is_error, result.text

    ours("read_file", path=big.name, limit=1)  # the read that edit_file requires
    state = {"now": "ALPHA"}

    def pair() -> tuple[str, str]:
        now = state["now"]
        return now, ("BRAVO" if now == "ALPHA" else "ALPHA")

    def flipped(*, ok: bool) -> None:
        """Every edit case flips the marker; the next case must see the new one."""
        if ok:
            state["now"] = pair()[1]

    alan = AlanCode.start(WORK)
    ours_mcp = McpPeer([sys.executable, "-m", "toolbelt.cli.main", "mcp", "--mode", "bypass"], WORK)
    fs = McpPeer.filesystem(WORK) if filesystem_server_available() else None
    claude = McpPeer.claude(WORK) if claude_available() else None

    def edit_args(old: str, new: str) -> dict[str, str]:
        return {"old_string": f"UNIQUE_MARKER_{old}", "new_string": f"UNIQUE_MARKER_{new}"}

    def ours_edit() -> None:
        ours("edit_file", path=big.name, **edit_args(*pair()))
        flipped(ok=True)

    def floor_edit() -> None:
        """The bare minimum in Python: read, decode, check, splice, encode, write, fsync, rename
        — no diff, no hash, no safety. What any implementation on this machine pays."""
        old, new = (f"UNIQUE_MARKER_{m}" for m in pair())
        text = big.read_bytes().decode()
        assert text.count(old) == 1
        at = text.find(old)
        data = "".join((text[:at], new, text[at + len(old) :])).encode()
        temp = big.with_suffix(".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, data)
        os.fsync(fd)
        os.close(fd)
        os.replace(temp, big)
        flipped(ok=True)

    def floor_read() -> None:
        with open(million, "rb") as handle:
            lines = list(itertools.islice(handle, 99_999, 102_000))
        "".join(line.decode() for line in lines)

    groups: list[tuple[str, list[Case]]] = [
        (
            "ranged read: lines 100,000–102,000 of 1M lines",
            [
                Case(
                    "toolbelt",
                    lambda: ours("read_file", path=million.name, offset=100_000, limit=2001),
                ),
            ],
        ),
        ("edit one string in a 100k-line file", [Case("toolbelt", ours_edit)]),
        ("read a 200-line file", [Case("toolbelt", lambda: ours("read_file", path=small.name))]),
    ]

    def ours_first_read() -> None:
        """A file's first ranged read: no line marks from an earlier one (``line_marks``)."""
        line_marks._cache.clear()
        ours("read_file", path=million.name, offset=100_000, limit=2001)

    groups[0][1].append(Case("toolbelt, first read", ours_first_read))
    groups[0][1].append(Case("floor (bare islice)", floor_read))
    groups[0][1].append(
        Case(
            "sed -n (whole process)",
            lambda: subprocess.run(
                ["sed", "-n", "100000,102000p;102000q", str(million)],
                stdout=subprocess.DEVNULL,
                check=True,
            ),
        )
    )
    groups[0][1].append(
        Case(
            "toolbelt (MCP stdio)",
            lambda: ours_mcp.call(
                "read_file", {"path": million.name, "offset": 100_000, "limit": 2001}
            ),
        )
    )
    groups[1][1].append(Case("floor (bare read+replace+atomic write)", floor_edit))
    if alan:
        groups[0][1].append(
            Case(
                "Alan Code",
                lambda: alan.call(
                    "Read", {"file_path": str(million), "offset": 99_999, "limit": 2001}
                ),
            )
        )
        groups[1][1].append(
            Case(
                "Alan Code",
                lambda: flipped(
                    ok=alan.call("Edit", {"file_path": str(big), **edit_args(*pair())})["ok"]
                ),
            )
        )
        groups[2][1].append(Case("Alan Code", lambda: alan.call("Read", {"file_path": str(small)})))
    if fs:
        groups[1][1].append(
            Case(
                "server-filesystem (MCP)",
                lambda: flipped(
                    ok=not fs.call(
                        "edit_file",
                        {
                            "path": str(big),
                            "edits": [
                                {"oldText": f"UNIQUE_MARKER_{a}", "newText": f"UNIQUE_MARKER_{b}"}
                                for a, b in [pair()]
                            ],
                        },
                    ).is_error
                ),
            )
        )
        groups[2][1].append(
            Case("server-filesystem (MCP)", lambda: fs.call("read_text_file", {"path": str(small)}))
        )
    if claude:
        groups[0][1].append(
            Case(
                "Claude Code (MCP)",
                lambda: claude.call(
                    "Read", {"file_path": str(million), "offset": 100_000, "limit": 2001}
                ),
            )
        )
        groups[1][1].append(
            Case(
                "Claude Code (MCP)",
                lambda: flipped(
                    ok=not claude.call(
                        "Edit", {"file_path": str(big), **edit_args(*pair())}
                    ).is_error
                ),
            )
        )
        groups[2][1].append(
            Case("Claude Code (MCP)", lambda: claude.call("Read", {"file_path": str(small)}))
        )
    for _, group in groups:
        interleave(group, rounds=15)
    ours_mcp.close()
    for peer in (alan, fs, claude):
        if peer:
            peer.close()
    loop.run_until_complete(session.aclose())
    body = (
        "Command: `.venv/bin/python bench/run.py files`\n\nmedian of 15 interleaved rounds; ×N = "
        "ratio to toolbelt in the same run. Goals: ranged read ≤ 15 ms, edit ≤ 30 ms.\n\n"
        + side_by_side(groups, "case")
    )
    print(body)
    write_section("files", body)
