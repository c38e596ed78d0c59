"""Opening without following symlinks: the one place the file tools turn a checked path into a
descriptor.

The path guard decides on a real path (no symlink in it). Opening that path by name again
would let a component swapped for a symlink after the check redirect the open, so every open
here refuses to traverse any symlink at all: on Linux 5.6+ through ``openat2`` with
``RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`` (and ``RESOLVE_BENEATH`` below a directory
descriptor, so ``..`` cannot climb out of it), in one system call for the whole path; elsewhere
by walking component by component with ``O_NOFOLLOW``. Either way a symlink met on the way
fails with ``ELOOP`` and the caller reports that the path changed.

``opened_path`` reads back where a descriptor really points (``/proc/self/fd``), so the guard
can decide on the descriptor it holds instead of on a second lookup of the name.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["HAVE_OPENAT2", "descend", "open_beneath", "open_directory", "opened_path"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
# openat2 has this number on every architecture that uses the generic system call table.
_SYS_OPENAT2 = 437
_GENERIC_TABLE = {"x86_64", "aarch64", "arm64", "riscv64", "loongarch64", "ppc64le", "s390x"}


class _OpenHow(ctypes.Structure):
    _fields_ = (
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    )


def _load_syscall() -> Callable[..., int] | None:
    if sys.platform != "linux" or platform.machine() not in _GENERIC_TABLE:
        return None
    try:
        function: Any = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_long
    function.argtypes = (
        ctypes.c_long,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.POINTER(_OpenHow),
        ctypes.c_size_t,
    )
    return function  # type: ignore[no-any-return]


_syscall = _load_syscall()


def _openat2(dir_fd: int, path: str, flags: int, mode: int, resolve: int) -> int:
    """One ``openat2`` call; raises OSError like ``os.open`` (EAGAIN is retried)."""
    assert _syscall is not None
    how = _OpenHow(flags | os.O_CLOEXEC, mode if flags & os.O_CREAT else 0, resolve)
    encoded = os.fsencode(path)
    for _ in range(8):  # EAGAIN: a concurrent rename disturbed a RESOLVE_BENEATH walk
        fd = int(_syscall(_SYS_OPENAT2, dir_fd, encoded, ctypes.byref(how), ctypes.sizeof(how)))
        if fd >= 0:
            return fd
        code = ctypes.get_errno()
        if code != errno.EAGAIN:
            raise OSError(code, os.strerror(code), path)
    raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN), path)


def _probe() -> bool:
    """True when this kernel (and any seccomp filter around us) lets openat2 run."""
    if _syscall is None:
        return False
    try:
        os.close(_openat2(-1, "/", os.O_PATH, 0, _RESOLVE_NO_SYMLINKS))
    except OSError:
        return False  # ENOSYS before 5.6, EPERM under some container filters
    return True


HAVE_OPENAT2 = _probe()


def open_directory(path: str) -> int:
    """An fd on the absolute directory ``path``, reached without traversing any symlink.

    Raises FileNotFoundError when a component is missing, and OSError(ELOOP/ENOTDIR) when a
    component is a symlink or not a directory.
    """
    if not path.startswith("/"):
        raise ValueError(f"open_directory needs an absolute path, got {path!r}")
    if HAVE_OPENAT2:
        return _openat2(-1, path, _DIR_FLAGS, 0, _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS)
    return descend(path.split("/"))


def descend(parts: Iterable[str], missing: Callable[[int, str], int] | None = None) -> int:
    """An fd on the directory reached from ``/`` through ``parts``, one component at a time
    and never through a symlink. A missing component raises FileNotFoundError, or is made by
    ``missing(fd, part)``, which returns an fd on it."""
    fd = os.open("/", _DIR_FLAGS)
    try:
        for part in parts:
            if part:
                try:
                    next_fd = open_beneath(fd, part, _DIR_FLAGS)
                except FileNotFoundError:
                    if missing is None:
                        raise
                    next_fd = missing(fd, part)
                os.close(fd)
                fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_beneath(dir_fd: int, name: str, flags: int, mode: int = 0o666) -> int:
    """Open ``name`` (one component) inside the directory ``dir_fd``, never through a symlink.

    ``..``, ``.``, empty names and names with a slash are refused: the result always lies
    directly in the directory the caller verified.
    """
    if not name or name in (".", "..") or "/" in name:
        raise OSError(errno.EINVAL, f"not a single path component: {name!r}", name)
    if HAVE_OPENAT2:
        resolve = _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS
        return _openat2(dir_fd, name, flags | os.O_NOFOLLOW, mode, resolve)
    return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)


def opened_path(fd: int) -> str | None:
    """Where ``fd`` points now, as the kernel names it; None when that cannot be known
    (no ``/proc``) or the file was deleted."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    if not real.startswith("/") or real.endswith(" (deleted)"):
        return None
    return real
