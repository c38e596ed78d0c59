"""A private mount namespace in which protected entries of the workspace are read-only.

Landlock only grants, so it cannot make ``.git/`` read-only inside a writable workspace; the
grants would have to go on the root's entries one by one, and then nothing could be created
directly in the root (``touch out.txt``, ``.pytest_cache``). Where unprivileged user
namespaces work, the launcher instead enters a new user + mount namespace (mapping only its
own uid and gid), bind-mounts each protected entry read-only over itself, and lets Landlock
grant the whole root. It also gets a ``/dev/shm`` of its own, which Python's multiprocessing
locks need and which must not be the machine's shared one. The mounts are private to the
sandboxed processes; nothing changes on disk or outside.

This module imports only the standard library: the launcher loads it without ``site``.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["readonly_binds"]

_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_RDONLY, _MS_NOSUID, _MS_REMOUNT, _MS_BIND, _MS_REC = 1, 2, 32, 4096, 16384
_MS_PRIVATE = 1 << 18


def readonly_binds(paths: list[str], *, empty: list[str] | tuple[str, ...] = ()) -> None:
    """Enter a private user + mount namespace with ``paths`` bind-mounted read-only and an
    empty tmpfs over each of ``empty`` (``/dev/shm``: shared memory of the sandbox's own, not
    the machine's). Raises OSError when the kernel or the container refuses (the caller
    then falls back)."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    for path in paths:
        target = os.fsencode(path)
        _check(libc.mount(target, target, None, _MS_BIND | _MS_REC, None), f"bind {path}")
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID
        _check(libc.mount(None, target, None, flags, None), f"read-only {path}")
    for path in empty:
        target = os.fsencode(path)
        _check(libc.mount(b"tmpfs", target, b"tmpfs", _MS_NOSUID, b"mode=1777"), f"tmpfs {path}")


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)
