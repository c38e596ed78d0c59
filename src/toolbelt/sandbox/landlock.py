"""Landlock through ctypes: a kernel-enforced allow-list of what a process may touch.

Landlock (Linux ≥ 5.13) lets an unprivileged process restrict itself and every process it
starts afterwards: which file hierarchies it may read, write or execute, which TCP ports it may
bind or connect to (ABI ≥ 4), and whether it may signal or reach abstract Unix sockets of
processes outside its domain (ABI ≥ 6). It enforces on root too, cannot be undone, and
survives ``execve`` — so a launcher applies it and then execs bash.

Rules only ever *grant*: access beneath a directory is the union of the rules on it and on
its ancestors. "Everything but X" is therefore written as rules on X's siblings (see
``profiles``), and a read-only directory inside a writable one is impossible — the
writable grant has to be made on its siblings instead.

This module imports only the standard library: the launcher loads it without ``site``.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys

__all__ = [
    "FS_CREATE",
    "FS_READ",
    "FS_WRITE",
    "LandlockError",
    "Ruleset",
    "abi_version",
]

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on every arch
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

FS_READ = EXECUTE | READ_FILE | READ_DIR
FS_WRITE = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK
    | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM | REFER | TRUNCATE
)  # fmt: skip
FS_CREATE = FS_READ | WRITE_FILE | MAKE_REG | MAKE_DIR | MAKE_FIFO | MAKE_SOCK
"""New files and directories, written as they are made; never ``REMOVE_*``, ``TRUNCATE``,
``REFER`` (rename, link elsewhere) or ``MAKE_SYM``: what exists cannot be deleted, emptied,
renamed over or replaced (an ``O_TRUNC`` open of an existing file fails; of a file the
open creates it does not truncate, so it is allowed), and no link is made to write through.
``WRITE_FILE`` still opens an existing file for writing without truncating it: the command
analysis keeps programs that do that out of this profile."""
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE  # the rights a non-directory can hold
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1}  # ABI ≥ 3: up to TRUNCATE


class LandlockError(OSError):
    """Landlock is missing or refused the ruleset; the launcher must not run unconfined."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPortAttr(ctypes.Structure):
    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = int(_libc.syscall(ctypes.c_long(number), *args))
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockError(code, os.strerror(code))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is absent or disabled."""
    if sys.platform != "linux":
        return 0
    try:
        return _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    except LandlockError:
        return 0


class Ruleset:
    """What a confined process may do; ``apply`` restricts the calling thread for good.

    ``read``: hierarchies readable and executable. ``list_only``: directories whose entries may
    be listed but whose files stay closed (the ancestors of a hidden secret). ``write``:
    hierarchies fully writable (files among them: written and truncated). ``create``:
    hierarchies where files and directories may be made but nothing that exists changed
    (``FS_CREATE``; needs ABI 3, where truncation is ruled). ``connect_ports``:
    None leaves TCP alone; a tuple denies bind and allows connect only to those ports.
    """

    __slots__ = ("connect_ports", "create", "list_only", "read", "scoped", "write")

    def __init__(  # a plain class: dataclasses would cost the launcher ~6 ms of imports
        self,
        *,
        read: tuple[str, ...] = (),
        list_only: tuple[str, ...] = (),
        write: tuple[str, ...] = (),
        create: tuple[str, ...] = (),
        connect_ports: tuple[int, ...] | None = (),
        scoped: bool = True,
    ) -> None:
        self.read = read
        self.list_only = list_only
        self.write = write
        self.create = create
        self.connect_ports = connect_ports
        self.scoped = scoped

    def apply(self) -> int:
        """Confine this thread (and what it execs); returns the ABI used. Raises
        LandlockError when the kernel has no Landlock, so nothing runs unconfined."""
        abi = abi_version()
        if abi < 1:
            raise LandlockError(errno.ENOSYS, "Landlock is not available in this kernel")
        if self.create and abi < 3:  # truncation is ruled from ABI 3 on
            raise LandlockError(errno.ENOSYS, "the create profile needs Landlock ABI 3")
        handled_fs = _FS_BY_ABI.get(abi, (1 << 15) - 1)
        handled_net = 0
        if self.connect_ports is not None and abi >= 4:
            handled_net = NET_BIND_TCP | NET_CONNECT_TCP
        scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL if self.scoped and abi >= 6 else 0
        attr = _RulesetAttr(handled_fs, handled_net, scoped)
        size = 24 if abi >= 6 else 16 if abi >= 4 else 8
        ruleset = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
        try:
            for paths, access in (
                (self.read, FS_READ),
                (self.list_only, READ_DIR),
                (self.write, FS_READ | FS_WRITE),
                (self.create, FS_CREATE),
            ):
                _add_paths(ruleset, paths, access & handled_fs)
            for port in self.connect_ports or () if handled_net else ():
                rule = _NetPortAttr(NET_CONNECT_TCP, port)
                _syscall(_SYS_ADD_RULE, ruleset, _RULE_NET_PORT, ctypes.byref(rule), 0)
            if _libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS, required first
                raise LandlockError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
            _syscall(_SYS_RESTRICT_SELF, ruleset, 0)
        finally:
            os.close(ruleset)
        return abi


def _add_paths(ruleset: int, paths: tuple[str, ...], access: int) -> None:
    for path in paths:
        try:
            # O_NOFOLLOW: a rule on a symlink grants nothing beyond it, never its target
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            continue  # gone since the policy was computed: nothing to grant
        try:
            is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
            rule = _PathBeneathAttr(access if is_dir else access & _FILE_ONLY, fd)
            if rule.allowed_access:
                _syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
        finally:
            os.close(fd)
