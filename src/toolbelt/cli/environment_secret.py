"""Take a secret out of this process's environment, so that nothing it starts can read it back.

A launcher (a Ray actor, a Kubernetes pod's ``env`` from a Secret, a test) hands a server its
token most easily in the environment; argv is worse (``ps`` shows it to every user). But the
environment is inherited by every command the tools run, and removing the variable from
``os.environ`` is not enough: ``/proc/PID/environ`` shows the block the process was started
with, which ``unsetenv`` does not touch. So the value's bytes in that block are overwritten
with NULs first (through libc's ``getenv``, which points into it), then the variable is
removed: a child does not inherit it and a reader of ``/proc/PID/environ`` sees zeros.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["take_from_environment"]


def take_from_environment(name: str) -> str | None:
    """The value of ``name`` (None when unset), removed from the environment and wiped from
    the process's original environment block."""
    if name not in os.environ:
        return None
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_void_p
    libc.getenv.argtypes = [ctypes.c_char_p]
    address = libc.getenv(os.fsencode(name))
    if address:  # wiped while the entry is still set: its memory is certainly still the block's
        ctypes.memset(address, 0, len(ctypes.string_at(address)))
    return os.environ.pop(name)  # unsetenv: gone from what children inherit
