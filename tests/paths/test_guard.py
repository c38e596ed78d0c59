"""The path guard: real paths, separator-aware containment, protected names, race-free opens."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from toolbelt.core.errors import PathError
from toolbelt.paths.guard import PathGuard, protected_reason


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root, evil = tmp_path / "w", tmp_path / "w-evil"
    (root / "src").mkdir(parents=True)
    evil.mkdir()
    (root / "src" / "a.py").write_text("a")
    (evil / "secret").write_text("s")
    return root, evil


def test_relative_dotdot_tilde(layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root, evil = layout
    guard = PathGuard(root)
    assert guard.resolve("a.py", root / "src").path == root / "src" / "a.py"
    climbed = guard.resolve("../../w-evil/secret", root / "src")
    assert (climbed.path, climbed.inside) == (evil / "secret", False)
    monkeypatch.setenv("HOME", str(evil))
    assert guard.resolve("~/secret", root).path == evil / "secret"


def test_prefix_sibling_is_outside(layout: tuple[Path, Path]) -> None:
    root, evil = layout
    assert not PathGuard(root).resolve(str(evil / "secret"), root).inside


def test_symlink_escape_resolves_outside(layout: tuple[Path, Path]) -> None:
    root, evil = layout
    (root / "link").symlink_to(evil)
    (root / "dangling").symlink_to(evil / "not-yet")
    guard = PathGuard(root)
    assert guard.resolve("link/secret", root).path == evil / "secret"
    assert not guard.resolve("link/secret", root).inside
    assert guard.resolve("dangling", root).path == evil / "not-yet"
    assert not guard.resolve("dangling", root).inside


def test_extra_directories(layout: tuple[Path, Path]) -> None:
    root, evil = layout
    assert PathGuard(root, [evil]).resolve(str(evil / "secret"), root).inside


def test_nul_empty_and_loops(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    guard = PathGuard(root)
    with pytest.raises(PathError, match="NUL byte"):
        guard.resolve("a\x00b", root)
    with pytest.raises(PathError, match="empty"):
        guard.resolve("  ", root)
    (root / "loop").symlink_to(root / "loop")
    with pytest.raises(PathError, match="symlink loop"):
        guard.resolve("loop/x", root)


@pytest.mark.parametrize(
    ("path", "protected"),
    [
        ("/w/.git/config", True),
        ("/w/.GIT/hooks/pre-commit", True),
        ("/w/.env", True),
        ("/w/.env.local", True),
        ("/w/.Env", True),
        ("/w/sub/.mcp.json", True),
        ("/w/.vscode/settings.json", True),
        ("/w/.toolbelt/settings.json", True),
        ("/home/u/.bashrc", True),
        ("/w/.claude/settings.json", True),
        ("/w/src/env.py", False),
        ("/w/.environment", False),
        ("/w/src/git.py", False),
    ],
)
def test_protected_names(path: str, protected: bool) -> None:
    assert (protected_reason(Path(path)) is not None) is protected


def test_protected_even_when_missing(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    resolved = PathGuard(root).resolve(".git/hooks/post-merge", root)
    assert not resolved.exists
    assert resolved.protected is not None


def test_special_files_fail_without_hanging(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    os.mkfifo(root / "fifo")
    guard = PathGuard(root)
    started = time.monotonic()
    with pytest.raises(PathError, match="named pipe"):
        guard.open_for_read(root / "fifo")
    with pytest.raises(PathError, match="is a directory"):
        guard.open_for_read(root / "src")
    with pytest.raises(PathError, match="a device"):
        PathGuard(Path("/")).open_for_read(Path("/dev/zero"))
    assert time.monotonic() - started < 5


def test_symlink_swapped_in_after_the_check_cannot_redirect(layout: tuple[Path, Path]) -> None:
    root, evil = layout
    guard = PathGuard(root)
    checked = guard.resolve("src/a.py", root)
    assert checked.inside
    # an attacker swaps the checked directory for a link to the outside
    (root / "src").rename(root / "src-old")
    (root / "src").symlink_to(evil)
    (evil / "a.py").write_text("evil")
    with pytest.raises(PathError, match="changed while it was being opened"):
        guard.open_for_read(checked.path)
    with pytest.raises(PathError, match="changed while it was being opened"):
        guard.open_parent_dir(checked.path)
