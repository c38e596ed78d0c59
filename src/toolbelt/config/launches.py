"""The parts of a workspace's configuration that start programs, pinned when it is trusted.

Trusting a workspace approves the programs its files name *as they are then*: the entries of
``.mcp.json`` and ``.toolbelt/mcp.json`` (each one a program toolbelt would start or a URL it
would send headers to) and the ``hooks`` of ``.toolbelt/settings.json`` and
``settings.local.json`` (commands run around every call). Were trust keyed on the directory
alone, a later ``git pull`` that edits a server's command would run it without asking again:
Cursor's CVE-2025-54136 (MCPoison, approval keyed on the name, not the content). So
``toolbelt trust`` stores a digest of each such part (``cli.trust_command`` takes them), and a
part whose digest no longer matches (edited, or added since) is not started until the user
trusts the workspace again; the rest of the workspace stays trusted. ``--trust-workspace``
approves what is there for one run, so it pins nothing and checks nothing.

A pin is keyed by the real path of its file and the part (``mcpServers.NAME`` or ``hooks``),
so a workspace below a trusted directory has pins of its own only once it is trusted itself.
The digest covers the entry as written (``${VAR}`` unexpanded): the file is what was reviewed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["changed_notice", "is_approved", "launch_digest", "launch_key"]


def launch_digest(value: Any) -> str:
    """SHA-256 of ``value`` as canonical JSON (key order and spacing do not count)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def launch_key(path: Path, part: str) -> str:
    """The pin's name: the file's real path and the part of it (``mcpServers.x``, ``hooks``)."""
    return f"{os.path.realpath(path)}#{part}"


def is_approved(approved: Mapping[str, str] | None, path: Path, part: str, value: Any) -> bool:
    """Whether ``value`` (the ``part`` of ``path``) is what the user approved; ``approved``
    None means everything present now is (``--trust-workspace``, or trust given in code)."""
    if approved is None:
        return True
    return approved.get(launch_key(path, part)) == launch_digest(value)


def changed_notice(changed: list[str], root: Path) -> str | None:
    """The warning for parts left out because they changed since the workspace was trusted."""
    if not changed:
        return None
    return (
        f"{'; '.join(changed)} changed since you trusted {root} (or were added since), so "
        f"they were not started; review them, then run `toolbelt trust {root}` to approve "
        "them as they are now."
    )
