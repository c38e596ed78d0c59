"""A runtime on a temporary workspace that approves every call, and what the tests compare."""

from __future__ import annotations

import hashlib
import itertools
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from toolbelt.config.settings import Settings
from toolbelt.core.context import SessionConfig
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCall, ToolCallResult
from toolbelt.core.requesters import AutoApprove
from toolbelt.runtime import Runtime

TOOLBELT = [sys.executable, "-m", "toolbelt.cli.main"]
_ids = itertools.count(1)


def open_runtime(root: Path, settings: Settings | None = None) -> Runtime:
    """Every prompt approved, the user's settings files left out, writes without a prior read
    (as ``toolbelt call`` does), commands in the default (``auto``) sandbox."""
    return Runtime(
        root,
        settings=settings or Settings(),
        requester=AutoApprove(),
        config=SessionConfig(require_read_before_write=False),
    )


async def call(runtime: Runtime, tool: str, **arguments: Any) -> ToolCallResult:
    """Run one call; it must succeed."""
    result = await runtime.run_one(ToolCall(f"t{next(_ids)}", tool, arguments))
    assert result.state is CallState.SUCCESS, result.text
    return result


def tree_state(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, tuple[str, int, bytes]]:
    """Every entry under ``root`` (``skip``ped top-level names aside): kind, mode bits, and
    the bytes of a file or the target of a link."""
    found: dict[str, tuple[str, int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        relative = Path(folder).relative_to(root)
        if relative.parts and relative.parts[0] in skip:
            continue
        for name in [*dirs, *files]:
            path = Path(folder) / name
            key = str(relative / name)
            if key in skip:
                continue
            info = path.lstat()
            mode = stat.S_IMODE(info.st_mode)
            if path.is_symlink():
                found[key] = ("link", mode, os.readlink(path).encode())
            elif path.is_dir():
                found[key] = ("dir", mode, b"")
            else:
                found[key] = ("file", mode, path.read_bytes())
    return found


def digest_tree(root: Path) -> dict[str, str]:
    """Path → sha256 (or kind) of everything under ``root`` (a ``.git`` directory)."""
    return {
        path: hashlib.sha256(data).hexdigest() if kind == "file" else f"{kind}:{data!r}"
        for path, (kind, _, data) in tree_state(root).items()
    }


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` the way a user would (their config, their index)."""
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def toolbelt(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real CLI in a process of its own (it inherits the test's private HOME and XDG)."""
    return subprocess.run(
        [*TOOLBELT, *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )
