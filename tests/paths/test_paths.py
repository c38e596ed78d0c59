"""The path guard against the attacks path checks have historically lost to: symlink escapes,
sibling prefixes, ``..`` after a symlink, dangling links, case and Unicode tricks on protected
names, special files that hang readers, and a symlink swapped in between check and open."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolbelt.core.errors import PathError
from toolbelt.paths import realpath
from toolbelt.paths.guard import PathGuard, ResolvedPath, protected_reason


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``x/w`` is the workspace; ``x/w-evil`` is a sibling that shares its prefix."""
    root, evil = tmp_path / "w", tmp_path / "w-evil"
    (root / "src").mkdir(parents=True)
    (evil / "sub").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print('a')\n")
    (evil / "secret").write_text("s3cr3t")
    (root / "out").symlink_to(evil)
    (root / "deep").symlink_to(evil / "sub")
    (root / "etc").symlink_to("/etc")
    (root / "in").symlink_to(root / "src")
    (root / "dangling").symlink_to(evil / "not-yet")
    (root / "dangling-rel").symlink_to("../w-evil/also-not-yet")
    (root / "docs").symlink_to(root / ".git")
    (root / ".vscode").symlink_to(tmp_path / "editor")  # where it leads is not named .vscode
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    return tmp_path


# raw path, cwd below x/, expected real path below x/ (or absolute), inside, exists
RESOLUTIONS = [
    ("src/a.py", "w", "w/src/a.py", True, True),
    ("a.py", "w/src", "w/src/a.py", True, True),
    ("./src//a.py", "w", "w/src/a.py", True, True),
    ("../w-evil/secret", "w", "w-evil/secret", False, True),
    ("src/../../w-evil/secret", "w", "w-evil/secret", False, True),
    ("out/secret", "w", "w-evil/secret", False, True),
    ("in/a.py", "w", "w/src/a.py", True, True),
    ("etc/passwd", "w", "/etc/passwd", False, True),
    ("deep/../secret", "w", "w-evil/secret", False, True),  # `..` after a symlink is physical
    ("dangling", "w", "w-evil/not-yet", False, False),
    ("dangling-rel", "w", "w-evil/also-not-yet", False, False),
    ("dangling/child", "w", "w-evil/not-yet/child", False, False),
    ("new/dir/file.py", "w", "w/new/dir/file.py", True, False),
    ("new/../out/secret", "w", "w-evil/secret", False, True),  # climbing out of a missing dir
    ("src", "w", "w/src", True, True),
    (".", "w", "w", True, True),
    ("..", "w", "", False, True),
]


@pytest.fixture(params=["kernel", "walk"])
def resolver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run resolution both ways: by the kernel (Linux O_PATH) and by the portable walk."""
    if request.param == "walk":
        monkeypatch.setattr(realpath, "_O_PATH", 0)
    return str(request.param)


@pytest.mark.parametrize(("raw", "cwd", "expected", "inside", "exists"), RESOLUTIONS)
def test_resolution_follows_the_kernel(
    tree: Path, resolver: str, raw: str, cwd: str, expected: str, inside: bool, exists: bool
) -> None:
    guard = PathGuard(tree / "w")
    resolved = guard.resolve(raw, tree / cwd)
    want = Path(expected) if expected.startswith("/") else Path(os.path.realpath(tree / expected))
    assert (resolved.path, resolved.inside, resolved.exists) == (want, inside, exists)
    assert resolved.raw == raw


def test_resolution_matches_realpath_for_every_case(tree: Path, resolver: str) -> None:
    guard = PathGuard(tree / "w")
    for raw, cwd, *_ in RESOLUTIONS:
        expected = os.path.realpath(os.path.join(tree / cwd, raw))
        assert str(guard.resolve(raw, tree / cwd).path) == expected, raw


def test_tilde_is_the_home_directory(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tree / "w-evil"))
    resolved = PathGuard(tree / "w").resolve("~/secret", tree / "w" / "src")
    assert (resolved.path, resolved.inside) == (tree / "w-evil" / "secret", False)


def test_a_relative_cwd_is_taken_from_the_process(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    assert PathGuard(tree / "w").resolve("a.py", Path("w/src")).path == tree / "w" / "src" / "a.py"


def test_prefix_sibling_is_never_inside(tree: Path) -> None:
    guard = PathGuard(tree / "w")
    assert guard.is_inside(tree / "w" / "src")
    assert guard.is_inside(tree / "w")
    assert not guard.is_inside(tree / "w-evil")
    assert not guard.is_inside(tree / "w-evil" / "secret")
    assert not guard.is_inside(tree)


_COMPONENTS = st.one_of(
    st.sampled_from(["w", "w-evil", "w.", "ww", "W", "."]),
    st.text(st.characters(exclude_characters="/\x00"), min_size=1, max_size=8),
)


@given(st.lists(_COMPONENTS, min_size=1, max_size=4))
def test_containment_is_component_wise(components: list[str]) -> None:
    guard = PathGuard(Path("/srv/w"))
    candidate = "/srv/" + "/".join(components)
    expected = os.path.commonpath([candidate, "/srv/w"]) == "/srv/w"
    assert guard.is_inside(Path(candidate)) is expected


def test_extra_directories_and_display(tree: Path) -> None:
    root, extra = tree / "w", tree / "w-evil"
    guard = PathGuard(root, [extra])
    assert guard.resolve("../w-evil/secret", root).inside
    assert guard.display(root / "src" / "a.py") == "src/a.py"
    assert guard.display(root) == "."
    assert guard.display(extra / "secret") == str(extra / "secret")
    assert guard.display(Path("/etc/passwd")) == "/etc/passwd"


def test_a_symlinked_root_is_compared_by_its_real_path(tree: Path) -> None:
    (tree / "link-to-w").symlink_to(tree / "w")
    guard = PathGuard(tree / "link-to-w")
    assert guard.root == tree / "w"
    assert guard.resolve("src/a.py", tree / "link-to-w").inside


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (".env.local", ".env files"),
        (".Env", ".env files"),
        (".git/hooks/pre-commit", ".git/"),
        (".GIT/config", ".git/"),
        (".git./config", ".git/"),  # Windows drops trailing dots
        (".g\u200cit/config", ".git/"),  # HFS+ ignores zero-width joiners
        ("docs/config", ".git/"),  # an innocent name that resolves into .git
        ("src/../.claude/settings.json", ".claude/"),
        (".vscode/tasks.json", ".vscode/"),  # the name the editor reads, though it links out
        (".idea/workspace.xml", ".idea/"),
        (".toolbelt/settings.json", ".toolbelt/"),
        ("sub/.mcp.json", ".mcp.json"),
        (".zshenv", "shell start-up"),
        (".bash_logout", "shell start-up"),
        (".gitmodules", ".gitmodules"),
        (".ripgreprc", ".ripgreprc"),
    ],
)
def test_protected_even_before_it_exists(tree: Path, raw: str, needle: str) -> None:
    resolved = PathGuard(tree / "w").resolve(raw, tree / "w")
    assert resolved.protected is not None
    assert needle in resolved.protected


@pytest.mark.parametrize(
    "raw", ["src/env.py", ".environment", "src/git.py", "src/github/ci.yml", ".gitignore"]
)
def test_ordinary_names_are_not_protected(tree: Path, raw: str) -> None:
    assert PathGuard(tree / "w").resolve(raw, tree / "w").protected is None


def test_protected_reason_takes_paths_and_strings() -> None:
    assert protected_reason(Path("/home/u/.bashrc")) is not None
    assert protected_reason("/w/.git/") is not None
    assert protected_reason(Path("/")) is None
    assert protected_reason("/w/.env/lib/site.py") is None  # a virtualenv named .env


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("src/a\x00.py", "NUL byte"),
        ("src/a.py/inner", "is a file, not a directory"),
        ("x" * 5000, "too long"),
    ],
)
def test_unusable_paths_are_explained(tree: Path, resolver: str, raw: str, message: str) -> None:
    with pytest.raises(PathError, match=message):
        PathGuard(tree / "w").resolve(raw, tree / "w")


@pytest.mark.parametrize("raw", ["self", "self/x", "ping", "pong/child"])
def test_symlink_loops_are_refused(tree: Path, resolver: str, raw: str) -> None:
    root = tree / "w"
    (root / "self").symlink_to(root / "self")
    (root / "ping").symlink_to("pong")
    (root / "pong").symlink_to("ping")
    with pytest.raises(PathError, match="symlink loop"):
        PathGuard(root).resolve(raw, root)


def test_missing_paths_are_named_when_they_must_exist(tree: Path) -> None:
    guard, root = PathGuard(tree / "w"), tree / "w"
    with pytest.raises(PathError, match=r"^src/nope\.py does not exist\."):
        guard.resolve("src/nope.py", root, must_exist=True)
    with pytest.raises(PathError, match="src has no lib/ directory"):
        guard.resolve("src/lib/x.py", root, must_exist=True)
    with pytest.raises(PathError, match="src has no lib/ directory"):
        guard.resolve("src/lib/x.py", root, parent_must_exist=True)
    assert not guard.resolve("src/new.py", root, parent_must_exist=True).exists


def test_reading_gives_the_checked_file(tree: Path) -> None:
    guard = PathGuard(tree / "w")
    fd = guard.open_for_read(guard.resolve("in/a.py", tree / "w"))
    with os.fdopen(fd, "rb") as handle:
        assert os.get_blocking(handle.fileno())
        assert not os.get_inheritable(handle.fileno())
        assert handle.read() == b"print('a')\n"


def test_special_files_are_refused_without_blocking(tree: Path) -> None:
    root = tree / "w"
    os.mkfifo(root / "pipe")
    (root / "pipe-link").symlink_to(root / "pipe")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    guard = PathGuard(root)
    cases = [
        ("pipe", "is a named pipe"),  # no writer: a blocking open would hang here forever
        ("pipe-link", "is a named pipe"),
        ("sock", "is a socket"),
        ("src", "is a directory, not a file"),
        ("/dev/zero", "is a device"),
        ("/", "is a directory"),
    ]
    started = time.monotonic()
    try:
        for raw, message in cases:
            with pytest.raises(PathError, match=message):
                guard.open_for_read(guard.resolve(raw, root))
    finally:
        server.close()
    assert time.monotonic() - started < 5


def test_a_directory_swapped_for_a_symlink_after_the_check_is_not_followed(tree: Path) -> None:
    root, evil = tree / "w", tree / "w-evil"
    guard = PathGuard(root)
    checked = guard.resolve("src/a.py", root)
    (root / "src").rename(root / "src-old")
    (root / "src").symlink_to(evil)
    (evil / "a.py").write_text("evil")
    with pytest.raises(PathError, match="changed while it was being opened"):
        guard.open_for_read(checked)
    with pytest.raises(PathError, match="changed while it was being opened"):
        guard.open_dir_for_write(checked)


def test_a_leaf_swapped_for_a_symlink_or_another_file_is_refused(tree: Path) -> None:
    root = tree / "w"
    guard = PathGuard(root)
    checked = guard.resolve("src/a.py", root)
    (root / "src" / "a.py").rename(root / "src" / "a.py.orig")  # keeps its inode taken
    (root / "src" / "a.py").symlink_to(tree / "w-evil" / "secret")
    with pytest.raises(PathError, match="changed while it was being opened"):
        guard.open_for_read(checked)
    (root / "src" / "a.py").unlink()
    (root / "src" / "a.py").write_text("replaced")
    with pytest.raises(PathError, match="changed while it was being opened"):
        guard.open_for_read(checked)
    with os.fdopen(guard.open_for_read(checked.path), "rb") as handle:  # no inode to hold it to
        assert handle.read() == b"replaced"


def test_a_write_through_the_held_directory_stays_there(tree: Path) -> None:
    root, evil = tree / "w", tree / "w-evil"
    guard = PathGuard(root)
    checked = guard.resolve("src/a.py", root)
    dir_fd = guard.open_dir_for_write(checked)
    try:
        (root / "src").rename(root / "src-old")  # swapped after the directory was opened
        (root / "src").symlink_to(evil)
        temp = os.open(".a.py.tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644,
                       dir_fd=dir_fd)  # fmt: skip
        os.write(temp, b"new\n")
        os.close(temp)
        os.replace(".a.py.tmp", "a.py", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    assert (root / "src-old" / "a.py").read_text() == "new\n"
    assert sorted(p.name for p in evil.iterdir()) == ["secret", "sub"]


def test_parents_are_created_inside_held_directories(tree: Path) -> None:
    root, evil = tree / "w", tree / "w-evil"
    guard = PathGuard(root)
    fd = guard.open_dir_for_write(guard.resolve("new/deep/f.txt", root), create_parents=True)
    os.close(fd)
    assert (root / "new" / "deep").is_dir()
    planned = guard.resolve("later/deep/f.txt", root)
    (root / "later").symlink_to(evil)  # planted after the check
    with pytest.raises(PathError, match="changed while it was being opened"):
        guard.open_dir_for_write(planned, create_parents=True)
    assert not (evil / "deep").exists()


def test_writing_needs_an_existing_parent_and_a_file_name(tree: Path) -> None:
    root = tree / "w"
    guard = PathGuard(root)
    with pytest.raises(PathError, match="directory new does not exist"):
        guard.open_dir_for_write(guard.resolve("new/f.txt", root))
    with pytest.raises(PathError, match="src is a directory"):
        guard.open_dir_for_write(guard.resolve("src", root))


def test_resolved_paths_compare_by_what_they_name(tree: Path) -> None:
    guard = PathGuard(tree / "w")
    first = guard.resolve("src/a.py", tree / "w")
    again = guard.resolve("in/../src/a.py", tree / "w")
    assert isinstance(first, ResolvedPath)
    assert (first.path, first.identity) == (again.path, again.identity)
    assert first.identity is not None
