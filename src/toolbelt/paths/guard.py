"""The path guard: every path the model gives is resolved to its real location before anyone
decides about it, and files are opened so that what was checked is what gets used.

Resolution joins relative paths to the session's cwd, expands ``~``, collapses ``..`` the way
the kernel does (after following the symlink before it) and follows every symlink, including
a dangling leaf: its target, not its name, is where a write through it would land. Existing
paths are resolved by the kernel in one ``open(O_PATH)``; paths that do not exist yet by a
walk that resolves the deepest existing ancestor and appends the rest. Containment compares
real paths per component, so ``/w`` never contains ``/w-evil`` and a link inside the workspace
that points at ``~/.ssh`` is outside it.

The guarantee: checking a path and then opening it by name leaves a window in which the leaf
or a directory on the way can be swapped for a symlink. Every open goes through ``beneath``,
which never traverses a symlink (``openat2`` with ``RESOLVE_NO_SYMLINKS``, and
``RESOLVE_BENEATH`` below the verified parent's fd; an ``O_NOFOLLOW`` walk where the kernel
lacks it): a real path has no symlinks, so a symlink met on the way appeared after the check
and the open fails instead of being redirected. The decision is then taken on the descriptor
itself, never on a second lookup: it must be a regular file, the inode resolved, at the real
path checked (read back from ``/proc/self/fd``). A read opens ``O_NONBLOCK|O_NOCTTY`` (FIFOs
and terminals cannot block or attach). A file with a protected name (``.env``, ``.bashrc``...)
that has other hard links is refused: the other name may be a secret outside the workspace.
A write gets the parent directory's fd; creating a temp file ``O_EXCL|O_NOFOLLOW`` in it and
``os.replace``-ing it over the name, both via ``dir_fd``, replaces whatever sits at the name
(a swapped-in symlink or a hard link to a file elsewhere) instead of writing through it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolbelt.core.access import Protection
from toolbelt.core.errors import PathError
from toolbelt.paths.beneath import descend, open_beneath, open_directory, opened_path
from toolbelt.paths.containment import is_within_any
from toolbelt.paths.errors import changed, mapped, missing, not_regular
from toolbelt.paths.protected import protected_file_name, protected_reason
from toolbelt.paths.protections import Protections
from toolbelt.paths.realpath import real_path

__all__ = ["PathGuard", "ResolvedPath", "protected_reason", "protections_of"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """A model-supplied path and where it really leads.

    ``identity`` is the (device, inode) seen while resolving, so an open can refuse a file that
    was replaced in between; it is None when nothing existed at the path. ``protection`` is
    what the session's ``Protections`` say of it — by its name as written
    (``.vscode/tasks.json`` through a symlinked ``.vscode``) or where it resolves, names judged
    below the workspace root — so the policy need not ask again.
    """

    raw: str
    path: Path
    inside: bool
    exists: bool
    protection: Protection | None
    identity: tuple[int, int] | None = field(default=None, compare=False)

    @property
    def protected(self) -> str | None:
        """Why the path is protected, or None."""
        return None if self.protection is None else self.protection.reason


def protections_of(*resolved: ResolvedPath) -> tuple[Protection, ...]:
    """The protections among ``resolved``, for ``Access.protections``."""
    return tuple(r.protection for r in resolved if r.protection is not None)


class PathGuard:
    """Resolves paths against the workspace root and extra directories, and opens without races.

    ``protections`` is the session's catalogue (``paths.protections``): every resolved path
    carries what it says (default: one built from the roots, for a guard used on its own).
    """

    def __init__(
        self, root: Path, extra: Sequence[Path] = (), *, protections: Protections | None = None
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.roots = (self.root, *(Path(os.path.realpath(p)) for p in extra))
        self.protections = protections if protections is not None else Protections(self.roots)
        self._root_text = str(self.root)
        self._root_prefix = self._root_text.rstrip("/") + "/"

    def resolve(
        self, raw: str, cwd: Path, *, must_exist: bool = False, parent_must_exist: bool = False
    ) -> ResolvedPath:
        """Resolve ``raw`` (relative to ``cwd``) to its real path; PathError if it is unusable.

        ``must_exist`` is for reads and ``parent_must_exist`` for writes that will not create
        directories: either way the error names what is missing instead of a later ENOENT.
        """
        if not raw or raw.isspace():
            raise PathError("The path is empty; give a file path such as `src/app.py`.")
        if "\x00" in raw:
            raise PathError("The path contains a NUL byte; remove it and give the plain path.")
        expanded = os.path.expanduser(raw) if raw.startswith("~") else raw
        base = os.fspath(cwd)
        joined = os.path.join(
            base if base.startswith("/") else os.path.join(os.getcwd(), base), expanded
        )
        real, identity = real_path(joined, raw)
        path = Path(real)
        exists = identity is not None
        if not exists and (must_exist or parent_must_exist):
            self._raise_missing(raw, path, parent_only=not must_exist)
        protection = self.protections.of(path, written=os.path.normpath(joined))
        inside = is_within_any(real, self.roots)
        return ResolvedPath(raw, path, inside, exists, protection, identity)

    def is_inside(self, path: Path) -> bool:
        """True when the real ``path`` lies within the root or an extra directory."""
        return is_within_any(path, self.roots)

    def display(self, path: Path) -> str:
        """How to name ``path`` to the model: relative to the root when inside it, else absolute."""
        text = str(path)
        if text == self._root_text:
            return "."
        if text.startswith(self._root_prefix):
            return text[len(self._root_prefix) :]
        return text

    def open_for_read(self, target: ResolvedPath | Path) -> int:
        """A blocking read-only fd on the regular file ``target``, opened without any symlink.

        Directories, FIFOs, sockets and devices are refused before they are opened (so nothing
        blocks or rewinds), and a file whose inode differs from the resolved one is refused.
        """
        path = target.path if isinstance(target, ResolvedPath) else target
        identity = target.identity if isinstance(target, ResolvedPath) else None
        parent_fd = self._walk(path.parent, path, create=False)
        try:
            fd = self._open_regular(path, parent_fd)
        finally:
            os.close(parent_fd)
        try:
            self._vet_opened(fd, path, identity)
        except BaseException:
            os.close(fd)
            raise
        os.set_blocking(fd, True)
        return fd

    def open_directory(self, target: ResolvedPath | Path) -> int:
        """An fd on the directory ``target`` itself, reached without following any symlink."""
        path = target.path if isinstance(target, ResolvedPath) else target
        identity = target.identity if isinstance(target, ResolvedPath) else None
        fd = self._walk(path, path, create=False)
        info, real = os.fstat(fd), opened_path(fd)
        if identity in (None, (info.st_dev, info.st_ino)) and real in (None, str(path)):
            return fd
        os.close(fd)
        raise changed(path)

    def open_dir_for_write(
        self, target: ResolvedPath | Path, *, create_parents: bool = False
    ) -> int:
        """An fd on ``target``'s parent directory, reached without following any symlink.

        With ``create_parents`` missing directories are made inside the held fds, so a symlink
        planted while they are created cannot redirect them either.
        """
        path = target.path if isinstance(target, ResolvedPath) else target
        fd = self._walk(path.parent, path, create=create_parents)
        if opened_path(fd) not in (None, str(path.parent)):  # decided on the fd held
            os.close(fd)
            raise changed(path)
        try:
            info = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return fd
        except BaseException:
            os.close(fd)
            raise
        if stat.S_ISDIR(info.st_mode):
            os.close(fd)
            raise PathError(
                f"{self.display(path)} is a directory; give the path of a file inside it."
            )
        return fd

    open_parent_dir = open_dir_for_write  # the name earlier callers use

    def _vet_opened(self, fd: int, path: Path, identity: tuple[int, int] | None) -> None:
        """Decide on the opened descriptor: a regular file, the inode resolved (when one was),
        at the path checked, and no second name for a protected file."""
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PathError(not_regular(self.display(path), info.st_mode))
        if identity not in (None, (info.st_dev, info.st_ino)):
            raise changed(path)
        real = opened_path(fd)
        if real is not None and real != str(path):
            raise changed(path)
        if info.st_nlink > 1 and protected_file_name(path.name):
            raise PathError(
                f"{self.display(path)} has {info.st_nlink} hard links and a protected name, so "
                "another of its names may be a secret outside the workspace; it is not opened — "
                "copy the content you need to a file of its own."
            )

    def _walk(self, directory: Path, target: Path, *, create: bool) -> int:
        """An fd on ``directory``, opened from ``/`` without traversing any symlink; with
        ``create``, missing directories are made inside the fds already held."""
        try:
            try:
                return open_directory(str(directory))
            except FileNotFoundError:
                if not create:
                    raise
            return descend(directory.parts[1:], _make_and_open)
        except FileNotFoundError:
            raise PathError(
                f"The directory {self.display(directory)} does not exist; create it "
                "first or check the path."
            ) from None
        except OSError as exc:
            raise mapped(target, exc) from exc

    def _open_regular(self, path: Path, parent_fd: int) -> int:
        if not path.name:
            raise PathError(not_regular(self.display(path), stat.S_IFDIR))
        try:
            before = os.stat(path.name, dir_fd=parent_fd, follow_symlinks=False)
        except FileNotFoundError as exc:
            raise PathError(missing(self.display(path))) from exc
        except OSError as exc:
            raise mapped(path, exc) from exc
        if stat.S_ISLNK(before.st_mode):
            raise changed(path)
        if not stat.S_ISREG(before.st_mode):
            raise PathError(not_regular(self.display(path), before.st_mode))
        try:
            return open_beneath(parent_fd, path.name, _READ_FLAGS)
        except OSError as exc:
            raise mapped(path, exc) from exc

    def _raise_missing(self, raw: str, path: Path, *, parent_only: bool) -> None:
        ancestor = path.parent
        while not os.path.isdir(ancestor):
            ancestor = ancestor.parent
        if ancestor == path.parent:
            if parent_only:
                return
            raise PathError(missing(self.display(path)))
        first_missing = path.relative_to(ancestor).parts[0]
        raise PathError(
            f"{raw} cannot be used: {self.display(ancestor)} has no {first_missing}/ directory; "
            "check the path (glob finds files) or create the directory first."
        )


def _make_and_open(dir_fd: int, part: str) -> int:
    with contextlib.suppress(FileExistsError):  # made concurrently: the open below vets it
        os.mkdir(part, 0o777, dir_fd=dir_fd)
    return open_beneath(dir_fd, part, _DIR_FLAGS)
