"""The sandbox backends this machine can run, for tests parametrised over them.

Landlock needs a kernel that has it; bubblewrap must be installed and needs user namespaces,
which containers often forbid. A test of sandboxed behaviour is parametrised over every
backend and skips, with the reason, each one this machine cannot run — never failing at
collection for a reason that is not toolbelt's.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

import pytest

from toolbelt.sandbox.landlock import abi_version

__all__ = ["backend_params", "bwrap_missing_reason", "landlock_missing_reason", "usable_backends"]


def landlock_missing_reason(minimum_abi: int = 1) -> str | None:
    """Why Landlock (at ``minimum_abi`` or newer) cannot run here, or None when it can."""
    have = abi_version()
    if have >= minimum_abi:
        return None
    if have < 1:
        return "Landlock is not available in this kernel"
    return f"needs Landlock ABI {minimum_abi}; this kernel has ABI {have}"


@functools.cache
def bwrap_missing_reason() -> str | None:
    """Why bubblewrap cannot run here (not installed, or no user namespaces), or None."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    probe = [bwrap, "--ro-bind", "/", "/", "--unshare-pid", "--", "true"]
    ran = subprocess.run(probe, capture_output=True, text=True, check=False)
    if ran.returncode != 0:
        return f"bwrap cannot create its namespaces here: {ran.stderr.strip()[:200]}"
    return None


def usable_backends(minimum_landlock_abi: int = 1) -> list[str]:
    """``landlock`` and ``bwrap``, each when it works on this machine."""
    usable = []
    if landlock_missing_reason(minimum_landlock_abi) is None:
        usable.append("landlock")
    if bwrap_missing_reason() is None:
        usable.append("bwrap")
    return usable


def backend_params(minimum_landlock_abi: int = 1) -> list[object]:
    """Both backends as parameters; each one this machine lacks is skipped with its reason."""
    reasons = {
        "landlock": landlock_missing_reason(minimum_landlock_abi),
        "bwrap": bwrap_missing_reason(),
    }
    return [
        pytest.param(name, marks=pytest.mark.skip(reason=reason)) if reason else name
        for name, reason in reasons.items()
    ]
