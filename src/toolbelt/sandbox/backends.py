"""Which sandbox backend a mode means on this machine, probed once per process.

``auto`` picks Landlock (no binary, no namespaces needed), else bubblewrap, else none — and
then says so once, loudly, on stderr: commands run unconfined and only the command analysis
decides. An explicitly chosen backend that is missing is a UsageError, never a silent
fall-back to running unconfined.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from typing import Literal

from toolbelt.core.errors import UsageError
from toolbelt.core.programs import program
from toolbelt.procs.helper_python import helper_argv, helper_code
from toolbelt.sandbox.landlock import abi_version

__all__ = ["Backend", "choose_backend", "namespaces_work"]

Backend = Literal["landlock", "bwrap"]

_warned = False


@functools.cache
def namespaces_work() -> bool:
    """Whether the launcher can make its private mount namespace here (see ``mounts``)."""
    argv = helper_argv(
        helper_code("from toolbelt.sandbox.mounts import readonly_binds; readonly_binds([])")
    )
    return subprocess.run(argv, capture_output=True, cwd="/", check=False).returncode == 0


@functools.cache
def _bwrap_works() -> bool:
    """bwrap is installed and can make namespaces here (a container may forbid them)."""
    binary = program("bwrap")
    if binary is None:
        return False
    probe = [binary, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--", "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def choose_backend(mode: str) -> Backend | None:
    """The backend for ``mode``; a clear error when an explicitly chosen one is missing."""
    if mode == "off":
        return None
    if mode == "landlock":
        if abi_version() < 1:
            raise UsageError(
                "--sandbox landlock: this kernel has no Landlock (Linux 5.13+ with it enabled "
                "is needed); use --sandbox bwrap, or --sandbox off to run unconfined."
            )
        return "landlock"
    if mode == "bwrap":
        if not _bwrap_works():
            raise UsageError(
                "--sandbox bwrap: bubblewrap is not installed or cannot create namespaces "
                "here; install it (the bubblewrap package) or use --sandbox landlock."
            )
        return "bwrap"
    if abi_version() >= 1:
        return "landlock"
    if _bwrap_works():
        return "bwrap"
    _warn_once()
    return None


def _warn_once() -> None:
    global _warned
    if not _warned:
        _warned = True
        sys.stderr.write(
            "toolbelt: WARNING: no OS sandbox is available (no Landlock in this kernel, no "
            "working bubblewrap): commands run UNCONFINED and only the command analysis "
            "decides what runs. Install bubblewrap or use a kernel with Landlock.\n"
        )
