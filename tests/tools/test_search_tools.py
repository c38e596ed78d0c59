"""grep, glob and ls on real temporary git repositories, with the real rg."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import anyio
import pytest
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCall
from toolbelt.core.programs import find_rg
from toolbelt.search.ripgrep import RgResult, rg_lines

pytestmark = pytest.mark.anyio


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    files = {
        ".gitignore": "*.log\nbuild/\n",
        "src/app.py": "def main():\n    return helper()\n\n\ndef helper():\n    return 42\n",
        "src/util.py": "def helper2():\n    pass\n",
        "src/sub/.gitignore": "secret.py\n",
        "src/sub/secret.py": "def hidden_by_nested_ignore(): pass\n",
        "src/sub/deep.py": "x = 'def inside string'\n",
        ".hidden/h.py": "def in_hidden_dir(): pass\n",
        "debug.log": "def in_log(): pass\n",
        "build/out.py": "def built(): pass\n",
        "notes: v2.md": "def colon_in_name\n",
        "-dash.txt": "-pattern-with-dash\n",
    }
    for index, (name, text) in enumerate(sorted(files.items())):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (1_700_000_000 + index, 1_700_000_000 + index))
    (root / ".git" / "objects" / "def_in_git").write_text("def in_git(): pass\n")
    return root


async def test_files_mode_respects_gitignore_nested_and_includes_hidden(repo: Path) -> None:
    result = await Harness(repo).call("grep", pattern="def ")
    lines = result.text.splitlines()
    assert lines[0] == "Found 5 files"
    assert set(lines[1:]) == {
        ".hidden/h.py",
        "notes: v2.md",
        "src/app.py",
        "src/sub/deep.py",
        "src/util.py",
    }


async def test_files_mode_is_newest_first(repo: Path) -> None:
    os.utime(repo / "src/util.py", (1_800_000_000, 1_800_000_000))
    result = await Harness(repo).call("grep", pattern="helper")
    assert result.text.splitlines() == ["Found 2 files", "src/util.py", "src/app.py"]


async def test_content_mode_with_context_and_colon_paths(repo: Path) -> None:
    h = Harness(repo)
    result = await h.call("grep", pattern="return 42", output_mode="content", context_before=1)
    assert result.text == "src/app.py-5-def helper():\nsrc/app.py:6:    return 42"
    colon = await h.call("grep", pattern="colon", output_mode="content")
    assert colon.text == "notes: v2.md:1:def colon_in_name"


async def test_count_mode_glob_and_type_filters(repo: Path) -> None:
    h = Harness(repo)
    count = await h.call("grep", pattern="helper", output_mode="count", glob="*.py")
    assert sorted(count.text.splitlines()) == ["src/app.py:2", "src/util.py:1"]
    typed = await h.call("grep", pattern="def", type="md")
    assert typed.text == "Found 1 file\nnotes: v2.md"
    # a glob must not let gitignored files back in (rg gives --glob precedence over ignores)
    globbed = await h.call("grep", pattern="def", glob="*.py", output_mode="content")
    assert "secret.py" not in globbed.text
    assert "src/app.py:1:def main():" in globbed.text.splitlines()


@pytest.mark.parametrize("glob", ["*.py", "src/**/*.py"])  # a file type; a real --glob
@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
@pytest.mark.parametrize("head_limit", [250, 0])
async def test_a_glob_never_lets_an_ignored_file_back_in(
    repo: Path, glob: str, mode: str, head_limit: int
) -> None:
    # rg's --glob whitelists src/sub/secret.py over the nested .gitignore; every path must drop it
    result = await Harness(repo).call(
        "grep", pattern="def", glob=glob, output_mode=mode, head_limit=head_limit
    )
    assert "app.py" in result.text
    assert "secret.py" not in result.text


async def test_files_with_the_same_mtime_come_in_name_order(tmp_path: Path) -> None:
    for name in ("b.py", "c.py", "a.py", "d/e.py"):
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text("needle\n")
        os.utime(path, (1_700_000_000, 1_700_000_000))
    h = Harness(tmp_path)
    grep = await h.call("grep", pattern="needle")
    assert grep.text.splitlines() == ["Found 4 files", "a.py", "b.py", "c.py", "d/e.py"]
    glob = await h.call("glob", pattern="**/*.py")
    assert glob.text.splitlines() == ["a.py", "b.py", "c.py", "d/e.py"]


async def test_case_insensitive_and_multiline(repo: Path) -> None:
    h = Harness(repo)
    upper = await h.call("grep", pattern="DEF MAIN", case_insensitive=True)
    assert upper.text == "Found 1 file\nsrc/app.py"
    spanning = await h.call(
        "grep", pattern=r"main\(\):\n\s+return", multiline=True, output_mode="content"
    )
    assert spanning.text.startswith("src/app.py:1:def main():")


async def test_pattern_starting_with_dash(repo: Path) -> None:
    result = await Harness(repo).call("grep", pattern="-pattern", output_mode="content")
    assert result.text == "-dash.txt:1:-pattern-with-dash"


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_invalid_regex_quotes_ripgrep(repo: Path, mode: str) -> None:
    result = await Harness(repo).call("grep", pattern="(unclosed", output_mode=mode)
    assert result.error_kind == "tool_error"
    assert result.text.startswith("Search failed — ripgrep rejected the pattern")
    assert "unclosed group" in result.text


async def test_paging_with_head_limit_and_offset(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("".join(f"match {i}\n" for i in range(1, 11)))
    h = Harness(tmp_path)
    first = await h.call("grep", pattern="match", output_mode="content", head_limit=3)
    assert first.text == (
        "many.txt:1:match 1\nmany.txt:2:match 2\nmany.txt:3:match 3\n\n"
        "[Showing results 1–3; there are more. Pass offset=3 for the next page, or narrow the "
        "pattern, path or glob.]"
    )
    second = await h.call("grep", pattern="match", output_mode="content", head_limit=3, offset=3)
    assert second.text.splitlines()[0] == "many.txt:4:match 4"
    last = await h.call("grep", pattern="match", output_mode="content", head_limit=5, offset=8)
    assert last.text == "many.txt:9:match 9\nmany.txt:10:match 10"


async def test_no_matches(repo: Path) -> None:
    h = Harness(repo)
    assert (await h.call("grep", pattern="zzzqqq")).text == "No files found."
    assert (
        await h.call("grep", pattern="zzzqqq", output_mode="content")
    ).text == "No matches found."


def rg_children() -> list[int]:
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/comm") as handle:
                comm = handle.read().strip()
        except OSError:
            continue
        if comm == "rg" and int(fields[1]) == me and fields[0] != "Z":
            found.append(int(entry))
    return found


@pytest.mark.parametrize("cancelled_mode", ["count", "files_with_matches"])
async def test_head_limit_stops_rg_and_cancel_kills_it(tmp_path: Path, cancelled_mode: str) -> None:
    big = tmp_path / "big.txt"
    big.write_text("needle\n" * 2_000_000)
    h = Harness(tmp_path)
    result = await h.call("grep", pattern="needle", output_mode="content", head_limit=5)
    assert len(result.text.split("\n\n")[0].splitlines()) == 5
    assert rg_children() == []
    # cancel mid-search: the call ends aborted and no rg process remains
    async with anyio.create_task_group() as group:
        outcome: list[object] = []

        async def run() -> None:
            outcome.append(
                await h.executor.run_one(
                    ToolCall("c", "grep", {"pattern": "zz+z", "output_mode": cancelled_mode})
                )
            )

        group.start_soon(run)
        with anyio.fail_after(10):
            while not rg_children() and not outcome:
                await anyio.sleep(0.001)
        seen_running = not outcome
        h.executor.cancel()
    assert rg_children() == []
    if seen_running:
        assert outcome[0].state is CallState.ABORTED  # type: ignore[attr-defined]


def blocked_writing(pid: int) -> tuple[bool, int]:
    """Whether ``pid`` sits in write(2) (a full pipe), and how many bytes it has written."""
    with open(f"/proc/{pid}/syscall") as handle:
        in_write = handle.read().split()[0] == "1"
    with open(f"/proc/{pid}/io") as handle:
        written = next(int(line.split()[1]) for line in handle if line.startswith("wchar:"))
    return in_write, written


async def test_leaving_rg_with_its_output_unread_kills_and_reaps_it(tmp_path: Path) -> None:
    # rg fills the pipe and the stream's buffer, which then stops reading: asyncio's wait()
    # only returns once stdout's end is seen, so leaving the block must still read it out
    rg = find_rg()
    if rg is None:
        pytest.skip("needs rg")
    (tmp_path / "big.txt").write_text("needle\n" * 2_000_000)
    result = RgResult()
    async with rg_lines(rg, ["-e", "needle", "big.txt"], cwd=tmp_path, result=result):
        [pid] = rg_children()
        before = (False, -1)
        with anyio.fail_after(10):
            while (now := blocked_writing(pid)) != before or not now[0]:
                before = now
                await anyio.sleep(0.001)  # one turn of the loop: it reads whatever it still may
    assert result.stopped_early
    assert rg_children() == []
    assert not os.path.exists(f"/proc/{pid}")  # reaped, not a zombie


async def test_symlink_out_of_the_tree_is_not_followed(tmp_path: Path) -> None:
    root, outside = tmp_path / "w", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "leak.txt").write_text("secret-token\n")
    (root / "link").symlink_to(outside)
    result = await Harness(root).call("grep", pattern="secret-token")
    assert result.text == "No files found."


async def test_glob_newest_first_with_cap_message(repo: Path) -> None:
    h = Harness(repo)
    result = await h.call("glob", pattern="**/*.py")
    assert result.text.splitlines() == [
        "src/util.py",
        "src/sub/deep.py",
        "src/app.py",
        ".hidden/h.py",
    ]
    capped = await h.call("glob", pattern="*.py", limit=2)
    assert capped.text == (
        "src/util.py\nsrc/sub/deep.py\n\n"
        "[Showing 2 of 4 files; narrow the pattern or path to see the rest.]"
    )
    ignored = await h.call("glob", pattern="*.py", include_ignored=True)
    assert "build/out.py" in ignored.text.splitlines()
    assert not any(line.startswith(".git/") for line in ignored.text.splitlines())
    braces = await h.call("glob", pattern="src/{app,util}.py")
    assert sorted(braces.text.splitlines()) == ["src/app.py", "src/util.py"]


async def test_ls_lists_dirs_first_and_skips_ignored(repo: Path) -> None:
    result = await Harness(repo).call("ls", path=".")
    names = [re.split(r"\d\d:\d\d  ", line, maxsplit=1)[1] for line in result.text.splitlines()[1:]]
    assert names == ["src/", "-dash.txt", "notes: v2.md"]
    deep = await Harness(repo).call("ls", path="src", depth=2, hidden=True)
    deep_names = [
        re.split(r"\d\d:\d\d  ", line, maxsplit=1)[1] for line in deep.text.splitlines()[1:]
    ]
    assert deep_names == ["sub/", "app.py", "util.py", "sub/.gitignore", "sub/deep.py"]


async def test_ls_lists_a_directory_holding_names_that_are_not_utf8(repo: Path) -> None:
    """A name that is not UTF-8 is listed as glob lists it (U+FFFD for the bytes that are not
    text; not a crash of the whole listing), and one the ignore rules exclude stays out."""
    (repo / ".gitignore").write_text("*.log\n")
    for name in (b"bad\xffname.txt", b"noise\xfe.log"):
        os.close(os.open(os.path.join(os.fsencode(repo), name), os.O_CREAT | os.O_WRONLY))
    result = await Harness(repo).call("ls", path=".")
    assert result.state is CallState.SUCCESS, result.text
    names = [re.split(r"\d\d:\d\d  ", line, maxsplit=1)[1] for line in result.text.splitlines()[1:]]
    assert [name for name in names if name.startswith("bad")] == ["bad\ufffdname.txt"]
    result.text.encode("utf-8")  # a reply can carry it
    assert not [name for name in names if name.endswith(".log")]


async def test_search_outside_workspace_asks(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    h = Harness(root, approve=False)
    result = await h.call("grep", pattern="x", path=str(tmp_path))
    assert result.state is CallState.ERROR
    assert result.error_kind == "permission_denied"


async def test_read_deny_rules_filter_search_results(repo: Path) -> None:
    import json

    from toolbelt.config.factory import build_policy
    from toolbelt.config.settings import load_settings

    (repo / "secrets").mkdir()
    (repo / "secrets" / "key.py").write_text("def leaked(): pass  # TOKEN=abc\n")
    (repo / ".toolbelt").mkdir()
    (repo / ".toolbelt" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./secrets/**)"]}})
    )
    h = Harness(repo)
    h.executor.policy = build_policy(
        h.session, "default", settings=load_settings(repo, home=repo / "h")
    )
    grep = await h.call("grep", pattern="TOKEN", output_mode="content")
    assert grep.text == "No matches found."
    found = await h.call("glob", pattern="**/*.py")
    assert "secrets/key.py" not in found.text.splitlines()
    listing = await h.call("ls", path=".", depth=2)
    assert "key.py" not in listing.text
    direct = await h.call("read_file", path="secrets/key.py")
    assert direct.error_kind == "permission_denied"


@pytest.fixture
def fsmonitor_marker(repo: Path) -> Path:
    """The repo's .git/config names a command git runs whenever it reads the index."""
    marker = repo.parent / "fsmonitor-ran"
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "config", "core.fsmonitor", f"touch {marker}; echo"], check=True)
    subprocess.run([*git, "add", "src"], check=True)  # an index for git to read
    marker.unlink(missing_ok=True)
    return marker


async def test_searching_never_runs_a_command_from_the_workspaces_git_config(
    repo: Path, fsmonitor_marker: Path
) -> None:
    h = Harness(repo)
    listed = await h.call("ls", path="src")
    assert listed.state is CallState.SUCCESS
    globbed = await h.call("grep", pattern="def", glob="*.py", output_mode="content")
    assert "secret.py" not in globbed.text
    assert not fsmonitor_marker.exists()
