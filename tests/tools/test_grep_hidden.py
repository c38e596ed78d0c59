"""grep leaves out every file the policy hides, in every output mode and whether it reads all
of rg's output or a page of it: secrets by name (any case, with a code point a file system
ignores), a hard link to one under an innocent name, read-deny rules by pattern, the user's
secret locations. A listing judges its files a directory at a time (``core.listing``), and
its answers are ``ToolContext.visible``'s, file by file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.config.factory import build_policy
from toolbelt.config.settings import load_settings
from toolbelt.core.context import ToolContext
from toolbelt.core.events import EventBus

pytestmark = pytest.mark.anyio

VISIBLE = [
    "app.py",
    "cache.py",  # a hard link of app.py: not a secret's
    "we:ird.py",
    "src/lib.py",
    "src/plain.env",
    "sub/.envrc",  # code, read without asking
    ".vscode/notes.md",
]
HIDDEN = [
    "src/.env",
    "src/.ENV.local",
    "src/.e\u200bnv",  # .env where a file system ignores the zero-width space
    "notes.txt",  # a hard link of src/.env
    "keys/server.pem",  # Read(**/*.pem)
    ".ssh/id_rsa",  # the user's secret locations: the workspace is the home directory
    ".aws/credentials",
    ".netrc",
    ".bash_history",
]


@pytest.fixture
def home() -> Harness:
    """The home directory as the workspace, holding every kind of file a listing hides."""
    root = Path(os.path.realpath(os.environ["HOME"]))
    for name in [*VISIBLE, *HIDDEN]:
        if name not in ("cache.py", "notes.txt"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text("needle\n")
    os.link(root / "app.py", root / "cache.py")
    os.link(root / "src" / ".env", root / "notes.txt")
    (root / ".toolbelt").mkdir()
    rules = {"permissions": {"deny": ["Read(**/*.pem)"]}}
    (root / ".toolbelt" / "settings.json").write_text(json.dumps(rules))
    h = Harness(root, mode="bypass")
    settings = load_settings(root, home=root)
    h.executor.policy = build_policy(h.session, "bypass", settings=settings)
    return h


def expected(mode: str) -> list[str]:
    line = {"files_with_matches": "{}", "content": "{}:1:needle", "count": "{}:1"}[mode]
    return sorted(line.format(name) for name in VISIBLE)


@pytest.mark.parametrize("head_limit", [0, 250])
@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_every_hidden_file_is_left_out(home: Harness, mode: str, head_limit: int) -> None:
    result = await home.call("grep", pattern="needle", output_mode=mode, head_limit=head_limit)
    lines = result.text.split("\n")
    if mode == "files_with_matches":
        assert lines.pop(0) == f"Found {len(VISIBLE)} files"
    assert sorted(lines) == expected(mode)
    assert result.output.structured == {
        "mode": mode,
        "results": len(VISIBLE),
        "offset": 0,
        "truncated": False,
    }


async def test_glob_leaves_out_the_same_files(home: Harness) -> None:
    listed = set((await home.call("glob", pattern="**/*")).text.split("\n"))
    assert listed >= set(VISIBLE) and listed.isdisjoint(HIDDEN)


async def test_a_listing_judges_each_file_as_visible_does(home: Harness) -> None:
    root = home.root
    ctx = ToolContext(
        home.session, "c", "grep", EventBus(), hidden=home.executor.policy.hidden_paths()
    )
    judge = ctx.listing_judge(root)
    assert judge is not None
    verdicts = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory) / name
            relative = str(path.relative_to(root))
            verdicts[relative] = judge(relative, os.stat(path))
            assert verdicts[relative] == (not ctx.visible(path)), relative
    assert [name for name in VISIBLE if verdicts[name]] == []
    assert [name for name in HIDDEN if not verdicts[name]] == []


async def test_a_page_counts_only_what_it_shows(tmp_path: Path) -> None:
    """rg is stopped once a page is in hand: lines of hidden files do not fill it, so the
    page is full and says that more follow."""
    root = tmp_path / "w"
    root.mkdir()
    for index in range(40):
        (root / f".env.{index}").write_text("needle\n" * 5)
    for name in "abcd":
        (root / f"{name}.py").write_text("needle\n")
    result = await Harness(root).call("grep", pattern="needle", output_mode="content", head_limit=3)
    page, note = result.text.split("\n\n")
    lines = page.split("\n")
    assert len(lines) == 3 and all(line.endswith(".py:1:needle") for line in lines)
    assert note.startswith("[Showing results 1–3; there are more. Pass offset=3")
    assert result.output.structured == {
        "mode": "content",
        "results": 3,
        "offset": 0,
        "truncated": True,
    }


@pytest.mark.parametrize("head_limit", [0, 250])
async def test_rgs_note_on_a_hidden_files_binary_data_is_left_out(
    tmp_path: Path, head_limit: int
) -> None:
    """rg ends the results of a file it stopped reading at binary data with a line of its own
    (``path: WARNING: stopped searching binary file…``), which has no NUL after the path: it
    goes with that file, shown for a visible one, left out with a hidden one's lines — the
    twin's too, which no name gives away."""
    root = tmp_path / "w"
    root.mkdir()
    data = b"needle\n" + b"x\n" * 100_000 + b"\0binary needle\n"  # a NUL past rg's buffer
    (root / ".env.local").write_bytes(data)
    os.link(root / ".env.local", root / "notes.bin")  # its twin
    (root / "blob.bin").write_bytes(data)
    (root / "denied").mkdir()
    (root / "denied" / "blob.bin").write_bytes(data)
    (root / ".toolbelt").mkdir()
    rules = {"permissions": {"deny": ["Read(./denied/**)"]}}
    (root / ".toolbelt" / "settings.json").write_text(json.dumps(rules))
    h = Harness(root, mode="bypass")
    settings = load_settings(root, home=tmp_path / "home")
    h.executor.policy = build_policy(h.session, "bypass", settings=settings)
    result = await h.call("grep", pattern="needle", output_mode="content", head_limit=head_limit)
    assert result.text.split("\n") == [
        "blob.bin:1:needle",
        "blob.bin: WARNING: stopped searching binary file after match "
        '(found "\\0" byte around offset 200007)',
    ]
