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
_KEPT = {
    "nosuid": 2, "nodev": 4, "noexec": 8, "noatime": 1024, "nodiratime": 2048,
    "relatime": 1 << 21, "strictatime": 1 << 24,
}  # fmt: skip


def readonly_binds(
    paths: list[str],
    *,
    empty: list[str] | tuple[str, ...] = (),
    writable: list[str] | tuple[str, ...] = (),
    hidden: list[str] | tuple[str, ...] = (),
) -> None:
    """Enter a private user + mount namespace in which every file system is read-only but
    ``writable`` (bound over themselves first), ``paths`` are bind-mounted read-only inside
    them, and an empty tmpfs covers each of ``empty``. Read-only mounts also stop what
    Landlock does not rule — ``chmod``, ``utime``, ``chown`` outside the writable paths.
    ``/dev`` and ``/proc`` keep their mounts (Landlock rules them). Raises OSError when the
    kernel or the container refuses (the caller then falls back). ``hidden`` secrets are
    covered — an empty read-only tmpfs over a directory, ``/dev/null`` over a file — since a
    Landlock grant on a workspace that holds one (a workspace at ``~``) would reach it."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    existing = _mount_points()
    # the writable paths become mounts of their own first: making the file systems beneath
    # them read-only then spares them
    for path in (p for p in writable if os.path.lexists(p)):
        target = os.fsencode(path)
        _check(libc.mount(target, target, None, _MS_BIND | _MS_REC, None), f"bind {path}")
    for path in paths:
        target = os.fsencode(path)
        _check(libc.mount(target, target, None, _MS_BIND | _MS_REC, None), f"bind {path}")
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID
        _check(libc.mount(None, target, None, flags, None), f"read-only {path}")
    for point, kept in existing:
        if point.startswith(("/dev/", "/proc/")) or point in ("/dev", "/proc"):
            continue
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | kept
        if libc.mount(None, os.fsencode(point), None, flags, None) != 0 and point == "/":
            _check(-1, "read-only /")  # a shadowed or busy submount may refuse; / may not
    for path in empty:
        target = os.fsencode(path)
        _check(libc.mount(b"tmpfs", target, b"tmpfs", _MS_NOSUID, b"mode=1777"), f"tmpfs {path}")
    for path in (p for p in hidden if os.path.lexists(p) and not os.path.islink(p)):
        target = os.fsencode(path)
        if os.path.isdir(path):
            _check(libc.mount(b"tmpfs", target, b"tmpfs", _MS_RDONLY, b"size=4k"), f"hide {path}")
        else:
            _check(libc.mount(b"/dev/null", target, None, _MS_BIND, None), f"hide {path}")
    os.chdir(os.getcwd())  # the old cwd is on the mount beneath the new ones: walk in again


def _mount_points() -> list[tuple[str, int]]:
    """(mount point, the flags a remount must keep) of every mount, from mountinfo: in a user
    namespace, a remount that drops an inherited nosuid, nodev, noexec or atime flag fails."""
    found: dict[str, int] = {}
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            point = fields[4].replace("\\040", " ").replace("\\011", "\t")
            options = fields[5].split(",")
            found[point] = sum(_KEPT.get(option, 0) for option in options)
    return list(found.items())


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)
