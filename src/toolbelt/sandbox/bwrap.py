"""The bubblewrap argv for a profile's grants.

bubblewrap has no policy of its own ("the level of protection … is entirely determined by
the arguments passed"), so the whole policy is this argv, and tests pin it:

- ``--ro-bind / /``: the system readable, nothing writable — or, for the profiles of commands
  that run without a prompt, only the quiet view's hierarchies (``Grants.bases``: the system
  and toolchain trees) and the roots, read-only or (create) writable;
- each root ``--bind``-mounted writable over itself, then each protected entry in it
  re-bound read-only over itself (mounts, unlike Landlock grants, can narrow a parent; a
  protected name that does not exist yet can still be created at the root — the Landlock
  backend refuses that, since it grants the root's entries, not the root);
- each secret hidden: an empty ``--tmpfs`` over a directory, ``/dev/null`` over a file;
- a fresh ``/dev``, ``/proc`` (only the sandbox's own processes) and ``/tmp``;
- ``--unshare-pid --die-with-parent``: nothing the command starts survives the shell;
- ``--new-session``: no TIOCSTI into the agent's terminal;
- ``--unshare-net`` when the network is off: only an empty loopback inside.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from toolbelt.core.programs import program
from toolbelt.paths.containment import is_within, is_within_any
from toolbelt.sandbox.profiles import DEVICES, Grants

__all__ = ["bwrap_argv"]


def bwrap_argv(grants: Grants, argv: Sequence[str], *, cwd: Path, network: bool) -> list[str]:
    """The bwrap command line running ``argv`` with ``grants``."""
    binary = program("bwrap") or "/usr/bin/bwrap"
    if grants.bases is None:
        args = [binary, "--ro-bind", "/", "/"]
        args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for path in _under_tmp((*grants.read, *_interpreter_paths())):
            # under the private /tmp: bring it back, read-only (-try: it may vanish before
            # bwrap starts)
            args += ["--ro-bind-try", path, path]
    else:
        args = [binary, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for path in (*grants.bases, *_interpreter_paths()):
            if os.path.islink(path) and path.count("/") == 1:  # /bin -> usr/bin
                args += ["--symlink", os.readlink(path), path]
            else:
                args += ["--ro-bind-try", path, path]
    bind = "--ro-bind" if grants.root_access == "read" else "--bind"
    for root in grants.roots:
        args += [bind, root, root]
    for path in grants.write:
        if path in DEVICES or not os.path.lexists(path) or is_within_any(path, grants.roots):
            continue  # --dev provides the devices; a missing path cannot be bound
        args += ["--bind", path, path]
    for path in grants.protected:
        args += ["--ro-bind", path, path]
    emptied: list[str] = []
    for path in grants.hidden:
        if is_within_any(path, emptied):
            continue  # already hidden with its directory, which is now an empty tmpfs
        if os.path.isdir(path) and not os.path.islink(path):
            args += ["--tmpfs", path, "--remount-ro", path]
            emptied.append(path)
        elif os.path.lexists(path):
            args += ["--ro-bind", "/dev/null", path]
    args += ["--unshare-pid", "--die-with-parent", "--new-session", "--chdir", str(cwd)]
    if not network:
        args.append("--unshare-net")
    return [*args, "--", *argv]


_SIBLINGS_BOUND_AS_ONE = 32


def _under_tmp(paths: Sequence[str]) -> list[str]:
    """The read grants beneath ``/tmp`` to bind again, in few mounts.

    Beside a hidden secret, a grant lists every other entry of its directory (what Landlock
    needs); a home under a busy ``/tmp`` directory would make thousands of mounts, past
    bwrap's 9,000 arguments. Many siblings are bound as their directory instead: the secrets
    in it are hidden again by the mounts that follow, and roots and protected entries are
    mounted after it too. A path beneath one already bound is left out."""
    wanted = sorted({path for path in paths if is_within(path, "/tmp")})
    by_parent: dict[str, int] = {}
    for path in wanted:
        parent = os.path.dirname(path)
        by_parent[parent] = by_parent.get(parent, 0) + 1
    collapsed = sorted(
        {
            os.path.dirname(path)
            if by_parent[os.path.dirname(path)] > _SIBLINGS_BOUND_AS_ONE
            else path
            for path in wanted
        }
    )
    kept: list[str] = []
    for path in collapsed:  # sorted: a parent comes before what lies beneath it
        if not is_within_any(path, kept):
            kept.append(path)
    return kept


def _interpreter_paths() -> tuple[str, ...]:
    """Where the Python that runs the confining launcher lives (a virtual environment, its
    base installation, toolbelt's own package): a checkout under ``/tmp`` — CI's fresh clone —
    must stay visible under the private ``/tmp``."""
    package = Path(__file__).resolve().parents[2]  # the directory holding ``toolbelt/``
    places = {sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), str(package)}
    return tuple(sorted(os.path.realpath(place) for place in places))
