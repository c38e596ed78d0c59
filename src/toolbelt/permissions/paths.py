"""The path guard: every path the model gives is resolved to its real location before anyone
decides about it, and files are opened so that what was checked is what gets used.

Resolution expands ``~``, joins relative paths to the session's cwd, collapses ``..`` and
follows every symlink (including a dangling leaf: its target, not its name, is what a write
would create). Containment compares real paths component-wise, so ``/w`` never contains
``/w-evil`` and a link inside the workspace that points at ``~/.ssh`` is outside it.

Checking a path and then opening it by name leaves a window in which a directory on the way
can be swapped for a symlink. ``open_for_read`` and ``open_parent_dir`` close it: they walk the
already-resolved path one component at a time from ``/`` with ``O_NOFOLLOW``, so any symlink
that appeared after the check makes the open fail instead of redirecting it; the final file
is opened ``O_NOFOLLOW|O_NONBLOCK`` (a FIFO cannot block) and must be a regular file. Writers
create their temp file and rename it inside the held directory fd.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolbelt.core.errors import PathError
from toolbelt.permissions.basic import is_within

__all__ = ["PathGuard", "ResolvedPath", "protected_reason"]

_PROTECTED_DIRS = {
    ".git": ".git/ holds repository configuration and hooks that run later",
    ".toolbelt": ".toolbelt/ holds toolbelt's own settings and permission rules",
    ".claude": ".claude/ holds agent settings and hooks",
    ".vscode": ".vscode/ holds editor settings that can run tasks",
    ".idea": ".idea/ holds IDE settings that can run tasks",
}
_PROTECTED_FILES = {
    ".mcp.json": ".mcp.json starts MCP servers",
    ".gitconfig": ".gitconfig configures git, including commands it runs",
    ".gitmodules": ".gitmodules points git at other repositories",
    ".ripgreprc": ".ripgreprc changes how rg runs",
}
_SHELL_RC = {".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
             ".zprofile", ".zshenv", ".zlogin", ".inputrc"}  # fmt: skip


def protected_reason(path: Path) -> str | None:
    """Why ``path`` is protected (any component, case-insensitively), or None."""
    parts = [part.lower() for part in path.parts]
    for part in parts[:-1]:
        if part in _PROTECTED_DIRS:
            return _PROTECTED_DIRS[part]
    name = parts[-1] if parts else ""
    if name in _PROTECTED_DIRS:
        return _PROTECTED_DIRS[name]
    if name in _PROTECTED_FILES:
        return _PROTECTED_FILES[name]
    if name == ".env" or name.startswith(".env."):
        return ".env files hold secrets"
    if name in _SHELL_RC:
        return f"{name} is a shell start-up file that runs in every new shell"
    return None


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """A model-supplied path and where it really leads."""

    raw: str
    path: Path
    inside: bool
    exists: bool
    protected: str | None


class PathGuard:
    """Resolves paths against the workspace roots and opens files without a race."""

    def __init__(self, root: Path, extra: Sequence[Path] = ()) -> None:
        self.root = Path(os.path.realpath(root))
        self.roots = (self.root, *(Path(os.path.realpath(p)) for p in extra))

    def resolve(self, raw: str, cwd: Path) -> ResolvedPath:
        """Resolve ``raw`` (relative to ``cwd``) to its real path; PathError if unusable."""
        if not raw or not raw.strip():
            raise PathError("The path is empty; give a file path such as `src/app.py`.")
        if "\x00" in raw:
            raise PathError("The path contains a NUL byte; remove it and try again.")
        expanded = os.path.expanduser(raw)
        joined = os.path.join(cwd, expanded)
        try:
            real = Path(os.path.realpath(joined, strict=False))
            # realpath(strict=False) stops quietly at a loop; detect it explicitly
            os.stat(joined)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathError(
                    f"{raw} is a symlink loop (it points back to itself); use the real path."
                ) from exc
            if exc.errno == errno.ENAMETOOLONG:
                raise PathError(f"{raw} is too long to be a path.") from exc
        exists = os.path.lexists(real)
        inside = any(is_within(real, root) for root in self.roots)
        reason = protected_reason(real) or protected_reason(Path(os.path.normpath(joined)))
        return ResolvedPath(raw, real, inside, exists, reason)

    def is_inside(self, path: Path) -> bool:
        """True when the real ``path`` lies within a workspace root."""
        return any(is_within(path, root) for root in self.roots)

    def display(self, path: Path) -> str:
        """How to name ``path`` to the model: relative to the root when inside, else absolute."""
        if path == self.root:
            return "."
        if is_within(path, self.root):
            return str(path.relative_to(self.root))
        return str(path)

    def open_for_read(self, path: Path) -> int:
        """Open the resolved regular file ``path`` for reading without following any symlink."""
        parent_fd = self.open_parent_dir(path)
        try:
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
            try:
                fd = os.open(path.name, flags, dir_fd=parent_fd)
            except FileNotFoundError as exc:
                raise PathError(_missing(path, self)) from exc
            except IsADirectoryError as exc:
                raise PathError(_not_regular(path, "a directory", self)) from exc
            except OSError as exc:
                raise _changed(path, exc) from exc
        finally:
            os.close(parent_fd)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise PathError(_not_regular(path, _kind(info.st_mode), self))
        os.set_blocking(fd, True)
        return fd

    def open_parent_dir(self, path: Path) -> int:
        """A directory fd for ``path``'s parent, reached component by component with O_NOFOLLOW."""
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open("/", flags)
        try:
            for part in path.parent.parts[1:]:
                try:
                    next_fd = os.open(part, flags, dir_fd=fd)
                except FileNotFoundError as exc:
                    raise PathError(
                        f"The directory {path.parent} does not exist; create it first or check "
                        "the path."
                    ) from exc
                except OSError as exc:
                    raise _changed(path, exc) from exc
                os.close(fd)
                fd = next_fd
        except BaseException:
            os.close(fd)
            raise
        return fd


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _not_regular(path: Path, kind: str, guard: PathGuard) -> str:
    shown = guard.display(path)
    if kind == "a directory":
        return f"{shown} is a directory, not a file; list it with `ls` or search it with `glob`."
    return f"{shown} is {kind}, not a regular file, so it cannot be read as a file."


def _missing(path: Path, guard: PathGuard) -> str:
    return (
        f"{guard.display(path)} does not exist. Check the name (use `glob` to find files); "
        f"relative paths start at the working directory."
    )


def _changed(path: Path, exc: OSError) -> PathError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return PathError(
            f"{path} changed while it was being opened (a symlink appeared on the way); "
            "it was not used. Resolve the path again and retry."
        )
    if exc.errno == errno.EACCES:
        return PathError(f"Permission denied by the operating system for {path}.")
    return PathError(f"{path} cannot be opened: {exc.strerror}.")
