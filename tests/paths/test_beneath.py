"""Swap races through the real file tools: the path is checked, then an attacker swaps the leaf
(or a directory) for a symlink or a hard link to a secret outside the workspace before the
open. The swap is made deterministic by running it from the seam between the check and the
open (the guard's directory open, or its leaf open): whatever wins, the secret never shows."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools.helpers import Harness
from toolbelt.core.events import CallState
from toolbelt.core.permission import Answer, Approval, Ask, PermissionRequest
from toolbelt.paths import beneath
from toolbelt.paths import guard as paths
from toolbelt.search import ripgrep

pytestmark = pytest.mark.anyio

SECRET = "TOPSECRET-do-not-show"


@pytest.fixture(params=["openat2", "nofollow-walk"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every race runs with openat2 and with the portable O_NOFOLLOW walk."""
    if request.param == "openat2" and not beneath.HAVE_OPENAT2:
        pytest.skip("this kernel has no openat2")
    monkeypatch.setattr(beneath, "HAVE_OPENAT2", request.param == "openat2")
    return str(request.param)


@pytest.fixture
def space(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "w", tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (root / "src" / "a.txt").write_text("harmless\n")
    return root, outside


def swap_before(monkeypatch: pytest.MonkeyPatch, seam: str, when: Callable[[], None]) -> list[str]:
    """Run ``when`` once, right before the guard's next call of ``seam`` (after the check)."""
    real = getattr(paths, seam)
    fired: list[str] = []

    def hooked(*args: object) -> int:
        if not fired:
            fired.append(seam)
            when()
        return int(real(*args))

    monkeypatch.setattr(paths, seam, hooked)
    return fired


def leaf_to_symlink(root: Path, outside: Path) -> Callable[[], None]:
    def swap() -> None:
        leaf = root / "src" / "a.txt"
        leaf.unlink()
        leaf.symlink_to(outside / "secret.txt")

    return swap


@pytest.mark.parametrize("seam", ["open_directory", "open_beneath"])
async def test_read_refuses_a_leaf_swapped_for_a_symlink(
    space: tuple[Path, Path], kernel: str, seam: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root)
    fired = swap_before(monkeypatch, seam, leaf_to_symlink(root, outside))
    result = await h.call("read_file", path="src/a.txt")
    assert fired == [seam]
    assert result.state is CallState.ERROR
    assert "changed while it was being opened" in result.text
    assert SECRET not in result.text


async def test_read_refuses_a_leaf_swapped_for_a_hard_link(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root)

    def swap() -> None:
        (root / "src" / "a.txt").unlink()
        os.link(outside / "secret.txt", root / "src" / "a.txt")

    swap_before(monkeypatch, "open_beneath", swap)
    result = await h.call("read_file", path="src/a.txt")
    assert "changed while it was being opened" in result.text
    assert SECRET not in result.text


async def test_read_refuses_a_directory_swapped_for_a_symlink(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    (outside / "a.txt").write_text(SECRET)
    h = Harness(root)

    def swap() -> None:
        (root / "src").rename(root / "src-old")
        (root / "src").symlink_to(outside)

    swap_before(monkeypatch, "open_directory", swap)
    result = await h.call("read_file", path="src/a.txt")
    assert "changed while it was being opened" in result.text
    assert SECRET not in result.text


async def test_edit_refuses_to_read_a_swapped_leaf_and_leaves_the_secret(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root)
    assert (await h.call("read_file", path="src/a.txt")).state is CallState.SUCCESS
    swap_before(monkeypatch, "open_beneath", leaf_to_symlink(root, outside))
    result = await h.call("edit_file", path="src/a.txt", old_string="harm", new_string="HARM")
    assert result.state is CallState.ERROR
    assert SECRET not in result.text
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


async def test_write_replaces_a_swapped_in_symlink_instead_of_writing_through_it(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root, mode="accept_edits", require_read_before_write=False)
    target = root / "src" / "new.txt"

    def swap() -> None:
        target.symlink_to(outside / "secret.txt")

    swap_before(monkeypatch, "open_directory", swap)
    result = await h.call("write_file", path="src/new.txt", content="mine\n")
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert SECRET not in result.text
    if result.state is CallState.SUCCESS:  # the save replaced the planted link by a file
        assert not target.is_symlink()
        assert target.read_text() == "mine\n"


async def test_write_preview_never_reads_through_a_symlink(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root, require_read_before_write=False)
    previews: list[str] = []

    async def ask(request: PermissionRequest, decision: Ask) -> Answer:
        previews.append(request.access.preview or "")
        return Answer(Approval.DENY)

    monkeypatch.setattr(h.requester, "ask", ask)
    fired = swap_before(monkeypatch, "open_beneath", leaf_to_symlink(root, outside))
    result = await h.call("write_file", path="src/a.txt", content="x\n")
    assert fired == ["open_beneath"]  # the preview's read went through the guard
    assert result.error_kind == "permission_denied"
    assert len(previews) == 1
    assert "+x" in previews[0]
    assert SECRET not in previews[0]


async def test_notebook_edit_refuses_a_swapped_leaf(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    cell = {"cell_type": "code", "id": "c1", "source": "1", "metadata": {}, "outputs": []}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "n.ipynb").write_text(json.dumps(notebook))
    h = Harness(root, require_read_before_write=False)

    def swap() -> None:
        (root / "n.ipynb").unlink()
        (root / "n.ipynb").symlink_to(outside / "secret.txt")

    swap_before(monkeypatch, "open_beneath", swap)
    result = await h.call("notebook_edit", path="n.ipynb", cell_id="c1", new_source="2")
    assert result.state is CallState.ERROR
    assert "changed while it was being opened" in result.text
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


async def test_ls_refuses_a_directory_swapped_for_a_symlink(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root)

    def swap() -> None:
        (root / "src").rename(root / "src-old")
        (root / "src").symlink_to(outside)

    swap_before(monkeypatch, "open_directory", swap)
    result = await h.call("ls", path="src")
    assert result.state is CallState.ERROR
    assert "secret.txt" not in result.text


async def test_ls_does_not_descend_into_a_subdirectory_swapped_for_a_symlink(
    space: tuple[Path, Path], kernel: str
) -> None:
    root, outside = space
    (root / "src" / "deep").mkdir()
    (root / "src" / "deep" / "inner.txt").write_text("x")
    (root / "src" / "link").symlink_to(outside)
    result = await Harness(root).call("ls", path="src", depth=3)
    assert result.state is CallState.SUCCESS
    assert "deep/inner.txt" in result.text
    assert f"link -> {outside}" in result.text
    assert "secret.txt" not in result.text


async def test_protected_name_with_a_second_hard_link_is_refused(
    space: tuple[Path, Path], kernel: str
) -> None:
    root, outside = space
    os.link(outside / "secret.txt", root / ".env")
    result = await Harness(root).call("read_file", path=".env")
    assert result.state is CallState.ERROR
    assert ".env has 2 hard links and a protected name" in result.text
    assert SECRET not in result.text


async def test_ordinary_hard_link_is_read_a_documented_limit(
    space: tuple[Path, Path], kernel: str
) -> None:
    root, outside = space
    os.link(outside / "secret.txt", root / "notes.txt")
    result = await Harness(root).call("read_file", path="notes.txt")
    assert result.state is CallState.SUCCESS  # docs/permissions.md: no agent can tell
    assert SECRET in result.text


def test_opened_path_names_the_real_file(space: tuple[Path, Path]) -> None:
    root, _ = space
    guard = paths.PathGuard(root)
    fd = guard.open_for_read(guard.resolve("src/a.txt", root))
    try:
        assert beneath.opened_path(fd) == str(root / "src" / "a.txt")
    finally:
        os.close(fd)


def test_open_beneath_refuses_anything_but_one_component(space: tuple[Path, Path]) -> None:
    root, _ = space
    fd = beneath.open_directory(str(root))
    try:
        for name in ("..", "src/a.txt", "", "."):
            with pytest.raises(OSError, match="not a single path component"):
                beneath.open_beneath(fd, name, os.O_RDONLY)
    finally:
        os.close(fd)


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_grep_never_searches_a_leaf_swapped_for_a_symlink(
    space: tuple[Path, Path], kernel: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root)
    fired = swap_before(monkeypatch, "open_beneath", leaf_to_symlink(root, outside))
    result = await h.call("grep", pattern="TOPSECRET", path="src/a.txt", output_mode=mode)
    assert fired == ["open_beneath"]
    assert result.state is CallState.ERROR
    assert "changed while it was being opened" in result.text
    assert SECRET not in result.text


async def test_grep_never_searches_a_directory_swapped_for_a_symlink(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root)

    def swap() -> None:
        (root / "src").rename(root / "src-old")
        (root / "src").symlink_to(outside)

    swap_before(monkeypatch, "open_directory", swap)
    result = await h.call("grep", pattern="TOPSECRET", path="src", output_mode="content")
    assert result.state is CallState.ERROR
    assert SECRET not in result.text


async def test_grep_searches_the_directory_it_opened(space: tuple[Path, Path], kernel: str) -> None:
    root, _ = space
    result = await Harness(root).call("grep", pattern="harm", path="src", output_mode="content")
    assert result.text == "a.txt:1:harmless"


async def test_grep_keeps_searching_the_directory_it_opened_after_a_swap(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The directory is swapped after the guard opened and vetted it, right before rg starts:
    rg starts in the directory the guard holds, not at the name."""
    root, outside = space
    (outside / "a.txt").write_text(SECRET + "\n")
    real = ripgrep._start_in

    def swap_then_start(cwd: Path, cwd_fd: int | None) -> tuple[str | Path, tuple[int, ...]]:
        (root / "src").rename(root / "src-old")
        (root / "src").symlink_to(outside)
        return real(cwd, cwd_fd)

    monkeypatch.setattr(ripgrep, "_start_in", swap_then_start)
    result = await Harness(root).call("grep", pattern=".", path="src", output_mode="content")
    assert result.text == "a.txt:1:harmless"


async def test_glob_never_lists_a_directory_swapped_for_a_symlink(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = space
    h = Harness(root)

    def swap() -> None:
        (root / "src").rename(root / "src-old")
        (root / "src").symlink_to(outside)

    swap_before(monkeypatch, "open_directory", swap)
    result = await h.call("glob", pattern="*.txt", path="src")
    assert result.state is CallState.ERROR
    assert "secret.txt" not in result.text


async def test_write_refuses_a_directory_moved_while_it_was_opened(
    space: tuple[Path, Path], kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The directory is opened, then renamed away and replaced: the fd held is no longer at
    the checked path, so nothing is written anywhere."""
    root, outside = space
    h = Harness(root, mode="accept_edits", require_read_before_write=False)
    real = beneath.open_directory

    def open_then_move(path: str) -> int:
        fd = real(path)
        if path == str(root / "src"):
            (root / "src").rename(root / "src-old")
            (root / "src").symlink_to(outside)
        return fd

    monkeypatch.setattr(paths, "open_directory", open_then_move)
    result = await h.call("write_file", path="src/new.txt", content="mine\n")
    assert result.state is CallState.ERROR
    assert "changed while it was being opened" in result.text
    assert not (root / "src-old" / "new.txt").exists()
    assert not (outside / "new.txt").exists()


def swap_after_decision(
    monkeypatch: pytest.MonkeyPatch, tool: str, when: Callable[[], None]
) -> list[str]:
    """Run ``when`` once, right after the policy has decided on the next call of ``tool``:
    what the run then opens must be what the decision was made on."""
    from toolbelt.policy.policy import ToolbeltPolicy

    real = ToolbeltPolicy.decide
    fired: list[str] = []

    def decide(self: ToolbeltPolicy, request: PermissionRequest) -> object:
        decision = real(self, request)
        if not fired and request.tool == tool and request.call_id:
            fired.append(request.tool)
            when()
        return decision

    monkeypatch.setattr(ToolbeltPolicy, "decide", decide)
    return fired


def dir_to_symlink(root: Path, outside: Path) -> Callable[[], None]:
    def swap() -> None:
        (root / "src").rename(root / "src-old")
        (root / "src").symlink_to(outside)

    return swap


@pytest.mark.parametrize(
    ("tool", "arguments", "swap"),
    [
        ("read_file", {"path": "src/a.txt"}, leaf_to_symlink),
        ("grep", {"pattern": "T", "path": "src/a.txt", "output_mode": "content"}, leaf_to_symlink),
        ("grep", {"pattern": "T", "path": "src", "output_mode": "content"}, dir_to_symlink),
        ("ls", {"path": "src"}, dir_to_symlink),
        ("glob", {"pattern": "*", "path": "src"}, dir_to_symlink),
        ("edit_file", {"path": "src/a.txt", "old_string": "harmless", "new_string": "x"},
         leaf_to_symlink),
    ],
)  # fmt: skip
async def test_a_path_swapped_between_the_decision_and_the_run_is_not_followed(
    space: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    arguments: dict[str, str],
    swap: Callable[[Path, Path], Callable[[], None]],
) -> None:
    """The decision was made on ``src/a.txt`` (or ``src/``) inside the workspace, read
    without asking; a symlink to a secret outside put at that name before the run must not be
    followed by a second lookup of the name: every byte comes from what was decided on."""
    root, outside = space
    h = Harness(root, mode="bypass")
    await h.call("read_file", path="src/a.txt")  # read before, so an edit may match
    fired = swap_after_decision(monkeypatch, tool, swap(root, outside))
    result = await h.call(tool, **arguments)
    assert fired == [tool]
    assert SECRET not in result.text and "secret.txt" not in result.text
    if tool != "edit_file":
        assert result.state is CallState.ERROR, result.text
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


async def test_three_hundred_reads_over_mcp_while_the_file_is_swapped_never_show_the_secret(
    space: tuple[Path, Path],
) -> None:
    """The outside corpus's case: one process swaps ``src/a.txt`` between a regular file and a
    symlink to a secret outside as fast as it can, while 300 read_file calls go through the
    MCP door; every byte returned must come from the file the decision was made on."""
    import sys
    import threading

    from mcp.client.stdio import stdio_client

    from mcp import ClientSession, StdioServerParameters

    root, outside = space
    leaf, regular, link = root / "src" / "a.txt", root / "src" / ".a.reg", root / "src" / ".a.lnk"
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            regular.write_text("harmless\n")
            os.replace(regular, leaf)
            os.symlink(outside / "secret.txt", link)
            os.replace(link, leaf)

    env = {**os.environ, "HOME": str(root.parent)}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbelt.cli.main", "mcp", "--root", str(root)],
        env=env,
    )
    swapper = threading.Thread(target=swap, daemon=True)
    texts: list[str] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        swapper.start()
        try:
            for _ in range(300):
                result = await client.call_tool("read_file", {"path": "src/a.txt"})
                texts += [getattr(block, "text", "") for block in result.content]
        finally:
            stop.set()
            swapper.join(5)
    assert [text for text in texts if SECRET in text] == []
    assert any("harmless" in text for text in texts)  # the race was really run
