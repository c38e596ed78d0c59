"""A small seccomp filter for what Landlock does not cover.

Landlock rules TCP ports and file hierarchies; it knows nothing of UDP, raw or Unix sockets
(a pathname socket such as ``/var/run/docker.sock`` is a way out), of ``ptrace`` beyond its
domain check, of ``process_vm_readv``, of ``io_uring`` (which opens sockets without
``socket()``), or of the ``TIOCSTI`` ioctl that pushes keystrokes into the terminal the agent
runs in (CVE-2017-5226; this kernel still allows it). The filter answers those with an error
(never a kill: a build that probes for a feature should see "not permitted", not die):

- ``socket()``: every family refused when the network is off (``socketpair`` still works, so
  pipes between processes do); with the network on, only Unix, IPv4, IPv6 and netlink;
- ``ptrace``, ``process_vm_readv``/``writev``, ``io_uring_*``: refused;
- ``ioctl(fd, TIOCSTI, …)``: refused;
- another architecture's calling convention (x32 on x86-64) is refused outright.

This module imports only the standard library: the launcher loads it without ``site``.
"""

from __future__ import annotations

import ctypes
import errno
import os

__all__ = ["SeccompError", "install_filter", "program"]

_LD_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW, _RET_ERRNO, _RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000
_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK = 1, 2, 10, 16
_TIOCSTI = 0x5412
_ARCHES = {  # machine → (audit arch, socket, ioctl, refused system calls)
    "x86_64": (0xC000003E, 41, 16, (101, 310, 311, 425, 426, 427)),
    "aarch64": (0xC00000B7, 198, 29, (117, 270, 271, 425, 426, 427)),
}
_X32_BIT = 0x40000000

Instruction = tuple[int, int | str, int | str, int]


class SeccompError(OSError):
    """The filter could not be installed; the launcher must not run unconfined."""


class _SockFilter(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    )


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter)))


def program(*, network: bool, machine: str | None = None) -> list[tuple[int, int, int, int]]:
    """The BPF program as (code, jt, jf, k) tuples, for this machine's architecture."""
    machine = machine or os.uname().machine
    if machine not in _ARCHES:
        raise SeccompError(errno.ENOSYS, f"no seccomp filter for the {machine} architecture")
    arch, socket_nr, ioctl_nr, refused = _ARCHES[machine]
    deny = _RET_ERRNO | errno.EPERM
    code: list[tuple[str, Instruction]] = [
        ("", (_LD_ABS, 0, 0, 4)),  # seccomp_data.arch
        ("", (_JEQ, 1, 0, arch)),
        ("", (_RET, 0, 0, _RET_KILL)),
        ("", (_LD_ABS, 0, 0, 0)),  # seccomp_data.nr
    ]
    if machine == "x86_64":
        code.append(("", (_JGE, "deny", 0, _X32_BIT)))
    code += [("", (_JEQ, "deny", 0, nr)) for nr in refused]
    code += [
        ("", (_JEQ, "socket", 0, socket_nr)),
        ("", (_JEQ, "ioctl", 0, ioctl_nr)),
        ("", (_RET, 0, 0, _RET_ALLOW)),
        ("socket", (_LD_ABS, 0, 0, 16)),  # args[0]: the address family
    ]
    families = (_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK) if network else ()
    code += [("", (_JEQ, "allow", 0, family)) for family in families]
    code += [
        ("", (_RET, 0, 0, _RET_ERRNO | errno.EACCES)),
        ("ioctl", (_LD_ABS, 0, 0, 24)),  # args[1], low 32 bits: the request
        ("", (_JEQ, "deny", "allow", _TIOCSTI)),
        ("allow", (_RET, 0, 0, _RET_ALLOW)),  # BPF jumps only forward: the exits come last
        ("deny", (_RET, 0, 0, deny)),
    ]
    return _assemble(code)


def _assemble(code: list[tuple[str, Instruction]]) -> list[tuple[int, int, int, int]]:
    labels = {label: index for index, (label, _) in enumerate(code) if label}

    def offset(target: int | str, index: int) -> int:
        return target if isinstance(target, int) else labels[target] - index - 1

    return [
        (op, offset(jt, index), offset(jf, index), k)
        for index, (_, (op, jt, jf, k)) in enumerate(code)
    ]


def install_filter(*, network: bool) -> None:
    """Install the filter on the calling thread (and everything it execs), for good."""
    instructions = program(network=network)
    array = (_SockFilter * len(instructions))(*(_SockFilter(*i) for i in instructions))
    fprog = _SockFprog(len(instructions), array)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise SeccompError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, MODE_FILTER
        code = ctypes.get_errno()
        raise SeccompError(code, f"seccomp filter refused: {errno.errorcode.get(code, code)}")
