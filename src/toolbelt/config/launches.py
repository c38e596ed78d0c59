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
It holds the digest of the entry as written (``${VAR}`` unexpanded: the file is what was
reviewed) and, since the words are not what runs, the SHA-256 of each workspace file the entry
names as it resolves now — ``python server.py``'s ``server.py``, a hook's
``.toolbelt/hooks/check.sh`` (``config.launch_files`` has the rule and its limit). A part whose
entry or one of whose files changed, went missing or was added is left out and named in the
notice; the user reviews it and trusts again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolbelt.config.launch_files import (
    MAX_PINNED_BYTES,
    TOO_LARGE,
    Pinned,
    file_digests,
    pinned_path,
)

__all__ = [
    "LaunchPin",
    "changed_notice",
    "launch_digest",
    "launch_key",
    "launch_pin",
    "stored_pin",
    "unapproved",
]


@dataclass(frozen=True, slots=True)
class LaunchPin:
    """What the user approved of one part: its entry's digest and its files' digests."""

    entry: str
    files: Mapping[str, str] = field(default_factory=dict)

    def stored(self) -> str | dict[str, Any]:
        """As kept in the trust file: the digest alone when the part names no file."""
        if not self.files:
            return self.entry
        return {"entry": self.entry, "files": dict(sorted(self.files.items()))}


def stored_pin(value: object) -> LaunchPin | None:
    """A pin read back from the trust file (``LaunchPin.stored``); None if malformed."""
    if isinstance(value, str):
        return LaunchPin(value)
    if not isinstance(value, dict) or not isinstance(value.get("entry"), str):
        return None
    files = value.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return None
    return LaunchPin(value["entry"], {str(k): v for k, v in files.items()})


def launch_digest(value: Any) -> str:
    """SHA-256 of ``value`` as canonical JSON (key order and spacing do not count)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def launch_pin(value: Any, files: Iterable[Pinned]) -> LaunchPin:
    """The pin of an entry ``value`` reaching ``files`` (``config.launch_files``), as they are."""
    return LaunchPin(launch_digest(value), file_digests(files))


def launch_key(path: Path, part: str) -> str:
    """The pin's name: the file's real path and the part of it (``mcpServers.x``, ``hooks``)."""
    return f"{os.path.realpath(path)}#{part}"


def unapproved(
    approved: Mapping[str, LaunchPin] | None,
    path: Path,
    part: str,
    value: Any,
    files: Callable[[], Iterable[Pinned]],
) -> str | None:
    """None if ``value`` (the ``part`` of ``path``) and the ``files`` it names now are what the
    user approved; else what changed, for the notice: "" for the entry itself, or `` (its file
    /ws/server.py)``. ``approved`` None approves everything present now (``--trust-workspace``,
    or trust given in code), and then no file is read."""
    if approved is None:
        return None
    pin = approved.get(launch_key(path, part))
    if pin is None or pin.entry != launch_digest(value):
        return ""
    now = file_digests(files())
    changed = [
        _file_note(name, now.get(name))
        for name in sorted({*now, *pin.files})
        if now.get(name) != pin.files.get(name) or now.get(name) == TOO_LARGE
    ]
    if not changed:
        return None
    return f" ({'its files' if len(changed) > 1 else 'its file'} {', '.join(changed)})"


def _file_note(name: str, digest: str | None) -> str:
    if digest is None:
        there = os.path.lexists(pinned_path(name))
        return f"{name}, {'no longer what it runs' if there else 'now gone'}"
    if digest == TOO_LARGE:
        return f"{name}, over {MAX_PINNED_BYTES >> 20} MiB and so too large to pin"
    return name


def changed_notice(changed: list[str], root: Path) -> str | None:
    """The warning for parts left out because they changed since the workspace was trusted."""
    if not changed:
        return None
    return (
        f"{'; '.join(changed)} changed since you trusted {root} (or were added since), so "
        f"they were not started; review them, then run `toolbelt trust {root}` to approve "
        "them as they are now."
    )
