"""Workspace trust: whether a workspace's own settings files may loosen the policy.

A repository's ``.toolbelt/settings.json`` — and a ``settings.local.json`` someone committed —
is written by whoever wrote the repository. Its hooks are commands toolbelt would run and its
allow rules are permissions it would grant: the hole behind Gemini CLI's GHSA-wpqr-6v78-jr5g
(CVSS 10: hooks and settings from a pull request honoured in CI) and Codex's CVE-2025-61260
(project config that starts programs, loaded on start). So until the user trusts a workspace,
only what restricts applies — deny and ask rules, ``disableBypassPermissionsMode`` — and its
allow rules, hooks, extra directories and default mode are ignored, with a notice saying so.

Trusted workspaces are kept in ``~/.config/toolbelt/trusted.json`` as real paths; a directory
covers everything below it. ``toolbelt trust [DIR]`` adds one, ``--trust-workspace`` trusts for
a single run (CI on your own repository). The user's own settings file always applies.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from toolbelt.config.files import ConfigFileError, load_json_config

__all__ = [
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


def trusted_workspaces(home: Path | None = None) -> list[Path]:
    """The trusted directories, as stored (real paths); a broken file (not a regular file,
    oversized, not strict JSON: ``config.files``) trusts nothing."""
    try:
        data = load_json_config(trust_file(home))
    except ConfigFileError:
        return []
    entries = data.get("workspaces", []) if isinstance(data, dict) else []
    return [Path(entry) for entry in entries if isinstance(entry, str) and entry.startswith("/")]


def is_trusted(root: Path, *, home: Path | None = None) -> bool:
    """Whether ``root`` (resolved) is a trusted directory or lies below one."""
    real = Path(os.path.realpath(root))
    return any(real == entry or entry in real.parents for entry in trusted_workspaces(home))


def too_broad(root: Path, *, home: Path | None = None) -> str | None:
    """Why trusting ``root`` would trust far more than one project, or None.

    A trust covers every directory below it, repositories cloned there later included, so the
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
    if real in user_home.parents:
        return f"{real} holds your home directory"
    if len(real.parts) == 2:
        return f"{real} is a top-level directory"
    return None


def trust(root: Path, *, home: Path | None = None) -> Path:
    """Add ``root`` (resolved) to the trusted workspaces; returns the trust file."""
    real = Path(os.path.realpath(root))
    entries = trusted_workspaces(home)
    if real not in entries:
        _store([*entries, real], home)
    return trust_file(home)


def distrust(root: Path, *, home: Path | None = None) -> bool:
    """Remove ``root`` (resolved) from the trusted workspaces; True if it was there."""
    real = Path(os.path.realpath(root))
    entries = trusted_workspaces(home)
    if real not in entries:
        return False
    _store([entry for entry in entries if entry != real], home)
    return True


def _store(entries: list[Path], home: Path | None) -> None:
    """Replace the trust file atomically (a reader never sees half of it)."""
    target = trust_file(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps({"workspaces": [str(entry) for entry in entries]}, indent=2) + "\n"
    fd, temp = tempfile.mkstemp(prefix=".trusted-", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
