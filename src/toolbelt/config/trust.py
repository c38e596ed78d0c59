"""Workspace trust: whether a workspace's own settings files may loosen the policy.

A repository's ``.toolbelt/settings.json`` — and a ``settings.local.json`` someone committed —
is written by whoever wrote the repository. Its hooks are commands toolbelt would run and its
allow rules are permissions it would grant: the hole behind Gemini CLI's GHSA-wpqr-6v78-jr5g
(CVSS 10: hooks and settings from a pull request honoured in CI) and Codex's CVE-2025-61260
(project config that starts programs, loaded on start). So until the user trusts a workspace,
only what restricts applies — deny and ask rules, ``disableBypassPermissionsMode`` — and its
allow rules, hooks, extra directories and default mode are ignored, with a notice saying so.

Trusted workspaces are kept in ``~/.config/toolbelt/trusted.json`` as real paths; a directory
covers everything below it except the git repositories of their own nested there.
``toolbelt trust [DIR]`` adds one, ``--trust-workspace`` trusts for a single run (CI on your own
repository). The user's own settings file always applies.

Trust also pins what it approved: the digests of the workspace's program-starting parts (MCP
server entries, hooks) and of the workspace files they name (``config.launches``) are stored
beside the directory, under ``approved``, and a part that changes afterwards does not run until
the user trusts again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolbelt.config.files import ConfigFileError, load_json_config
from toolbelt.config.launches import LaunchPin, stored_pin
from toolbelt.files.atomic import replace_file
from toolbelt.paths.containment import is_beneath

__all__ = [
    "approved_launches",
    "distrust",
    "is_trusted",
    "too_broad",
    "trust",
    "trust_file",
    "trusted_workspaces",
    "user_config_dir",
]


def user_config_dir(home: Path | None = None) -> Path:
    """``$XDG_CONFIG_HOME/toolbelt`` or ``~/.config/toolbelt``.

    An explicit ``home`` (tests, sandboxes) stands for the whole user environment, so
    ``XDG_CONFIG_HOME`` is honoured only when ``home`` is not given.
    """
    config = os.environ.get("XDG_CONFIG_HOME", "")
    if home is not None or not os.path.isabs(config):
        config = str((home or Path.home()) / ".config")
    return Path(config) / "toolbelt"


def trust_file(home: Path | None = None) -> Path:
    """Where the trusted workspaces are listed."""
    return user_config_dir(home) / "trusted.json"


def _load(home: Path | None) -> dict[str, Any]:
    """The trust file's object; a broken file (not a regular file, oversized, not strict JSON:
    ``config.files``) is empty, so it trusts and approves nothing."""
    try:
        data = load_json_config(trust_file(home))
    except ConfigFileError:
        return {}
    return data if isinstance(data, dict) else {}


def trusted_workspaces(home: Path | None = None) -> list[Path]:
    """The trusted directories, as stored (real paths)."""
    entries = _load(home).get("workspaces", [])
    if not isinstance(entries, list):
        return []
    return [Path(entry) for entry in entries if isinstance(entry, str) and entry.startswith("/")]


def approved_launches(home: Path | None = None) -> dict[str, LaunchPin]:
    """The pins of the program-starting parts the user approved (``config.launches``); a
    malformed one approves nothing."""
    pins = _load(home).get("approved", {})
    if not isinstance(pins, dict):
        return {}
    read = {key: stored_pin(value) for key, value in pins.items()}
    return {key: pin for key, pin in read.items() if pin is not None}


def is_trusted(root: Path, *, home: Path | None = None) -> bool:
    """Whether ``root`` (resolved) is a trusted directory or lies below one without crossing a
    repository of its own on the way.

    A git repository nested in a trusted directory (a submodule, ``vendor/x``, a clone made
    there later) was written by someone else: its settings' default mode and allow rules must
    not apply until the user trusts it itself — as its MCP servers and hooks already wait for
    their own approval (``config.launches``)."""
    real = Path(os.path.realpath(root))
    for entry in trusted_workspaces(home):
        if real == entry:
            return True
        if is_beneath(real, entry) and not _repository_between(entry, real):
            return True
    return False


def _repository_between(top: Path, below: Path) -> bool:
    """Whether a directory below ``top``, down to ``below`` itself, has its own ``.git`` (a
    directory, or the file a submodule or worktree has)."""
    directory = below
    while directory != top:
        if os.path.lexists(directory / ".git"):
            return True
        directory = directory.parent
    return False


def too_broad(root: Path, *, home: Path | None = None) -> str | None:
    """Why trusting ``root`` would trust far more than one project, or None.

    A trust covers every directory below it (but not the repositories nested there), so the
    file system root, the home directory, a directory holding the home directory and any
    top-level directory (``/tmp``, ``/srv``...) would let code nobody has read loosen the
    policy.
    """
    real = Path(os.path.realpath(root))
    user_home = Path(os.path.realpath(home or Path.home()))
    if real == Path("/"):
        return f"{real} is the whole file system"
    if real == user_home:
        return f"{real} is your home directory"
    if is_beneath(user_home, real):
        return f"{real} holds your home directory"
    if len(real.parts) == 2:
        return f"{real} is a top-level directory"
    return None


def trust(
    root: Path, *, home: Path | None = None, launches: Mapping[str, LaunchPin] | None = None
) -> Path:
    """Add ``root`` (resolved) to the trusted workspaces and approve ``launches``, the pins of
    its program-starting parts (``config.launches``, taken by ``toolbelt trust``), replacing the
    ones it had; with none, none of its MCP servers and hooks is approved. Returns the trust
    file."""
    real = Path(os.path.realpath(root))
    entries = trusted_workspaces(home)
    pins = _pins_of_others(real, home)
    pins.update(launches or {})
    _store([*entries] if real in entries else [*entries, real], pins, home)
    return trust_file(home)


def distrust(root: Path, *, home: Path | None = None) -> bool:
    """Remove ``root`` (resolved) from the trusted workspaces, with the approvals of the files
    below it; True if it was there."""
    real = Path(os.path.realpath(root))
    entries = trusted_workspaces(home)
    if real not in entries:
        return False
    pins = _pins_of_others(real, home)
    _store([entry for entry in entries if entry != real], pins, home)
    return True


def _pins_of_others(root: Path, home: Path | None) -> dict[str, LaunchPin]:
    """The stored pins, less those of ``root``'s own files (being replaced or dropped)."""
    pins = approved_launches(home)
    return {key: pin for key, pin in pins.items() if not _of_workspace(key, root)}


def _of_workspace(key: str, root: Path) -> bool:
    """Whether the pin ``key`` (``/real/file#part``) is of one of ``root``'s own files
    (``.mcp.json``, ``.toolbelt/...``), not of a workspace below it."""
    folder = Path(key.partition("#")[0]).parent
    return folder in (root, root / ".toolbelt")


def _store(entries: list[Path], pins: Mapping[str, LaunchPin], home: Path | None) -> None:
    """Replace the trust file atomically (a reader never sees half of it)."""
    target = trust_file(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    approved = {key: pin.stored() for key, pin in sorted(pins.items())}
    data = {"workspaces": [str(entry) for entry in entries], "approved": approved}
    replace_file(target, (json.dumps(data, indent=2) + "\n").encode(), mode=0o600)
