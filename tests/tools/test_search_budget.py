"""grep's limits through the real tool and real rg: a search stopped by its time budget
returns what it found with a note and leaves no rg behind; huge files are skipped when a
directory is walked, searched when named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.core.programs import find_rg
from toolbelt.search import budget as budget_module
from toolbelt.search.budget import SearchBudget
from toolbelt.search.ripgrep import RgResult, lines_of, rg_lines, rg_newest_first, rg_output
from toolbelt.tools import grep as grep_tool

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(find_rg() is None, reason="most of these limits are rg's"),
]

NOTE = "[The search was stopped after 1 s, so these results are incomplete. Narrow it:"


def processes_under(directory: Path) -> list[str]:
    """Command lines of live processes that mention ``directory`` (rg runs with it as cwd)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(directory)) or str(directory) in cmdline:
            found.append(cmdline)
    return found


@pytest.fixture
def one_second(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget_module, "SEARCH_SECONDS", 1.0)


@pytest.mark.parametrize(
    ("mode", "extra", "found"),
    [
        ("files_with_matches", {}, "Found 1 file\nsparse.bin"),
        ("count", {}, "sparse.bin:1"),
        ("content", {"head_limit": 10}, "sparse.bin:1:text with a needle"),
    ],
)
async def test_a_named_huge_sparse_file_is_searched_up_to_its_binary_data(
    tmp_path: Path, one_second: None, mode: str, extra: dict[str, int], found: str
) -> None:
    """rg reads a file it is handed to the end (17 s for 10 GB of zeros), where it gives up
    on the files it finds at their first NUL byte: a named file is searched up to it too."""
    sparse = tmp_path / "sparse.bin"
    with sparse.open("wb") as handle:
        handle.write(b"text with a needle\n")
        handle.truncate(50 * 1024**3)  # 50 GB of holes: rg would read zeros for minutes
    h = Harness(tmp_path)
    result = await h.call("grep", pattern="needle", path="sparse.bin", output_mode=mode, **extra)
    note = (
        "[The file holds binary data from byte 19 on, which was not searched (as for the files "
        "a search of a directory finds); read_file shows what it is.]"
    )
    assert result.text == f"{found}\n\n{note}"
    assert result.output.structured is not None
    assert result.output.structured["truncated"] is False
    nothing = await h.call("grep", pattern="zzz", path="sparse.bin", output_mode=mode, **extra)
    empty = "No files found." if mode == "files_with_matches" else "No matches found."
    assert nothing.text == f"{empty}\n\n{note}"
    assert processes_under(tmp_path) == []


def test_grep_through_the_cli_gives_up_on_binary_data(tmp_path: Path) -> None:
    sparse = tmp_path / "big.bin"
    with sparse.open("wb") as handle:
        handle.write(b"hello\n")
        handle.truncate(10 * 1024**3)
    args = '{"pattern": "nomatch", "path": "big.bin", "output_mode": "content"}'
    done = subprocess.run(
        [sys.executable, "-m", "toolbelt.cli.main", "call", "grep", args, "--root", str(tmp_path)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("No matches found.\n\n[The file holds binary data from byte 6 on")
    assert "stopped after" not in done.stdout


async def test_huge_files_are_skipped_in_a_directory_but_searched_when_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep_tool, "MAX_FILE_SIZE_ARG", "1K")
    (tmp_path / "small.txt").write_text("needle\n")
    (tmp_path / "big.txt").write_text("needle\n" + "x" * 4000 + "\n")
    h = Harness(tmp_path)
    walked = await h.call("grep", pattern="needle")
    assert walked.text == "Found 1 file\nsmall.txt"
    named = await h.call("grep", pattern="needle", path="big.txt", output_mode="content")
    assert named.text == "big.txt:1:needle"


async def test_what_rg_found_before_the_budget_ended_is_kept(tmp_path: Path) -> None:
    """rg prints a.txt, then blocks on a FIFO nobody writes: every reader returns a.txt."""
    rg = find_rg()
    assert rg is not None
    (tmp_path / "a.txt").write_text("needle\n")
    os.mkfifo(tmp_path / "pipe")
    files = ["--", "a.txt", "pipe"]
    budget = SearchBudget(1.0)
    listed = await rg_newest_first(
        rg, ["--line-buffered", "-l", "needle", *files], cwd=tmp_path, budget=budget
    )
    assert (listed, budget.expired) == (["a.txt"], True)
    budget = SearchBudget(1.0)
    counted = lines_of(
        await rg_output(
            rg, ["--line-buffered", "-c", "needle", *files], cwd=tmp_path, budget=budget
        )
    )
    assert (counted, budget.expired) == ([b"a.txt:1"], True)
    budget, result, streamed = SearchBudget(1.0), RgResult(), []
    argv = ["--line-buffered", "-n", "needle", *files]
    async with rg_lines(rg, argv, cwd=tmp_path, result=result, budget=budget) as lines:
        streamed = [line async for line in lines]
    assert (streamed, budget.expired) == ([b"a.txt:1:needle"], True)
    assert processes_under(tmp_path) == []


async def test_glob_cut_by_the_budget_keeps_what_the_walk_listed(
    tmp_path: Path, one_second: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walker that lists one file and then hangs (as on a stalled network mount)."""
    (tmp_path / "a.txt").write_text("x")
    walker = tmp_path / "slow-rg"
    walker.write_text("#!/bin/sh\nprintf 'a.txt\\n'\nexec sleep 300\n")
    walker.chmod(0o755)
    monkeypatch.setenv("TOOLBELT_RG", str(walker))
    result = await Harness(tmp_path).call("glob", pattern="*.txt")
    assert result.text == (
        "a.txt\n\n[The search was stopped after 1 s, so these results are incomplete. Narrow "
        "it: search a subdirectory (`path`) or make the pattern more specific.]"
    )
    assert processes_under(tmp_path) == []


async def test_the_python_fallback_reads_no_symlink_fifo_or_huge_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without rg, grep walks in Python: like rg's walk it never reads through a symlink, a
    FIFO cannot block it, and a file over the size limit is skipped unless named."""
    root, outside = tmp_path / "w", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("needle TOPSECRET\n")
    (root / "a.txt").write_text("needle here\n")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    os.mkfifo(root / "pipe.txt")
    (root / "big.txt").write_text("needle big\n" + "x" * 3000)
    monkeypatch.setenv("TOOLBELT_RG", str(tmp_path / "no-rg-here"))
    monkeypatch.setattr("toolbelt.search.fallback.MAX_FILE_BYTES", 1000)
    h = Harness(root)
    walked = await h.call("grep", pattern="needle", output_mode="content")
    assert walked.text == (
        "a.txt:1:needle here\n\n[ripgrep was not found, so this used the slow pure-Python search.]"
    )
    named = await h.call("grep", pattern="needle", path="big.txt", output_mode="content")
    assert named.text.startswith("big.txt:1:needle big\n")
