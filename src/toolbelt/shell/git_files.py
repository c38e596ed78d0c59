"""The files git reads as it starts in a workspace, checked so that toolbelt's own git never waits.

toolbelt runs git unconfined for its own look-ups (``git_env``'s driver probe before every
command of an untrusted workspace, ``search.ignored``'s ``check-ignore``). The workspace
wrote the repository's files, and git opens them with a plain blocking ``open``: a
``.git/HEAD`` (read to decide the directory is a repository at all), a ``.git/config`` or a
file its ``include.path`` / ``includeIf.*.path`` names that is a FIFO holds git — and the call
waiting for it — until its timeout. ``blocking_git_file`` finds such a file before git is
started: it follows git's own discovery (a ``.git`` directory or ``gitdir:`` file in the
directory or an ancestor, ``commondir``), opens each file as ``paths.small_read`` does (never
waiting), and reads the include paths of each configuration file by running git on a private
copy of it, so the parse is git's own and nothing the workspace holds is opened blocking.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from toolbelt.core.programs import program
from toolbelt.paths.small_read import read_head, read_small_text
from toolbelt.procs.tree import run_leaf

__all__ = ["blocking_file", "blocking_git_file"]

_CONFIG_BYTES = 1024 * 1024
"""The largest configuration file whose includes are followed (git's own has no limit)."""
_INCLUDE_DEPTH = 10
"""How deep includes are followed: git refuses more than 10 too."""
_INCLUDES = r"^include(if\..*)?\.path$"


def blocking_file(paths: Iterable[Path]) -> Path | None:
    """The first of ``paths`` that exists but is not a regular file (a FIFO, socket or
    device, or a symlink to one): git's blocking ``open`` of it could wait forever."""
    for path in paths:
        if os.path.exists(path) and read_head(path, 0) is None:
            return path
    return None


def blocking_git_file(directory: Path, env: Mapping[str, str]) -> Path | None:
    """A file git started in ``directory`` would read at start-up that could block it — the
    repository's ``HEAD``, ``commondir``, ``config``, ``config.worktree`` or a file their
    includes name — or None (also when ``directory`` is in no repository)."""
    git_dir, blocking = _git_dir(directory, env)
    if git_dir is None:
        return blocking
    first = blocking_file([git_dir / "HEAD", git_dir / "commondir"])
    if first is not None:
        return first
    common = git_dir
    text = read_small_text(git_dir / "commondir")
    if text is not None and text.strip():
        common = git_dir / text.strip()
    return _blocking_config([common / "config", git_dir / "config.worktree"], env, depth=0)


def _git_dir(directory: Path, env: Mapping[str, str]) -> tuple[Path | None, Path | None]:
    """(the git directory git would use from ``directory``, None) — or (None, a ``.git``
    file that would block git), or (None, None) outside a repository."""
    if env.get("GIT_DIR"):
        return Path(directory, env["GIT_DIR"]), None
    for place in (directory, *directory.parents):
        dot_git = place / ".git"
        if dot_git.is_dir():
            return dot_git, None
        if not os.path.lexists(dot_git):
            continue
        text = read_small_text(dot_git)
        if text is None:
            return None, blocking_file([dot_git])
        if text.startswith("gitdir:"):
            return place / text.removeprefix("gitdir:").strip(), None
        return None, None
    return None, None


def _blocking_config(configs: list[Path], env: Mapping[str, str], *, depth: int) -> Path | None:
    for config in configs:
        if not os.path.exists(config):
            continue
        data = read_head(config, _CONFIG_BYTES)
        if data is None:
            return config
        if depth >= _INCLUDE_DEPTH or len(data) > _CONFIG_BYTES:
            continue
        included = [_resolve(value, config, env) for value in _include_paths(data)]
        found = _blocking_config([p for p in included if p is not None], env, depth=depth + 1)
        if found is not None:
            return found
    return None


def _include_paths(data: bytes) -> list[str]:
    """The values of ``include.path`` and ``includeIf.*.path`` in the configuration ``data``,
    read by git from a private copy (every condition counted as met)."""
    git = program("git")
    if git is None or b"path" not in data.lower():
        return []
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    with tempfile.NamedTemporaryFile(prefix="toolbelt-gitconfig-") as copy:
        copy.write(data)
        copy.flush()
        try:
            argv = [git, "config", "--file", copy.name, "--no-includes", "-z"]
            done = run_leaf(
                [*argv, "--get-regexp", _INCLUDES],
                cwd="/",
                env=clean | {"GIT_CONFIG_NOSYSTEM": "1"},
                timeout=10,
            )
        except (OSError, subprocess.SubprocessError):
            return []
    values = []
    for record in done.stdout.decode(errors="surrogateescape").split("\0"):
        _, _, value = record.partition("\n")
        if value:
            values.append(value)
    return values


def _resolve(value: str, config: Path, env: Mapping[str, str]) -> Path | None:
    """An include path as git resolves it: ``~/`` from ``HOME``, relative to the including
    file's directory."""
    if value.startswith("~/"):
        home = env.get("HOME") or os.environ.get("HOME")
        return None if not home else Path(home, value[2:])
    if value.startswith(("%(prefix)/", "~")):
        return None
    return config.parent / value
