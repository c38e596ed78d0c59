"""The sandbox backends this machine can run, for tests parametrised over them.

Landlock needs a kernel that has it; bubblewrap needs user namespaces, which containers often
forbid. A test of sandboxed behaviour runs once per backend that works here, and not at all
where none does, rather than failing for a reason that is not toolbelt's.
"""

from __future__ import annotations

import subprocess

from toolbelt.shell.landlock import abi_version

__all__ = ["usable_backends"]


def usable_backends() -> list[str]:
    """``landlock`` and ``bwrap``, each when it works on this machine."""
    usable = []
    if abi_version() >= 1:
        usable.append("landlock")
    probe = ["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--", "true"]
    if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        usable.append("bwrap")
    return usable
