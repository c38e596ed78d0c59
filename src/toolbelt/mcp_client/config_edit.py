"""``toolbelt mcp-servers add|remove``: one entry of an MCP configuration file, written safely.

The user's file (``$XDG_CONFIG_HOME/toolbelt/mcp.json``) by default, the workspace's
``.mcp.json`` with ``--scope project`` (Claude Code's file and word: a file the repository
commits, so the entry must hold no secret — ``${VAR}`` for those). Only ``mcpServers.NAME``
changes: every other key and entry is kept as written. The entry is checked as loading would
check it before anything is written, so an entry that would not load is never saved; the
file is replaced atomically under a lock beside it, so two commands at once both land.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from toolbelt.config.files import ConfigFileError, load_json_config
from toolbelt.config.trust import user_config_dir
from toolbelt.core.errors import SettingsError
from toolbelt.files.atomic import atomic_write
from toolbelt.mcp_client.config import check_entry

__all__ = ["Scope", "add_entry", "remove_entry", "scope_file"]

Scope = Literal["user", "project"]


def scope_file(scope: Scope, root: Path) -> Path:
    """The file a scope writes: the user's ``mcp.json``, or the workspace's ``.mcp.json``."""
    return user_config_dir() / "mcp.json" if scope == "user" else root / ".mcp.json"


def add_entry(path: Path, name: str, entry: dict[str, Any], *, replace: bool = False) -> None:
    """Write ``entry`` as ``mcpServers.NAME`` of ``path``; ``SettingsError`` when the entry
    would not load, or the name is taken and ``replace`` is not given."""
    check_entry(path, name, entry)

    def change(servers: dict[str, Any]) -> None:
        if name in servers and not replace:
            raise SettingsError(
                f"{path} already has an MCP server `{name}`; remove it first "
                "(`toolbelt mcp-servers remove`) or choose another name."
            )
        servers[name] = entry

    _edit(path, change)


def remove_entry(path: Path, name: str) -> bool:
    """Remove ``mcpServers.NAME`` from ``path``; False when it was not there."""
    removed: list[bool] = []

    def change(servers: dict[str, Any]) -> None:
        removed.append(servers.pop(name, None) is not None)

    if not path.exists():
        return False
    _edit(path, change)
    return removed[0]


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            data = load_json_config(path)
        except ConfigFileError as exc:
            raise SettingsError(f"{exc} Fix it by hand first; it was not changed.") from exc
        data = {} if data is None else data
        if not isinstance(data, dict) or not isinstance(data.setdefault("mcpServers", {}), dict):
            raise SettingsError(
                f"{path}: `mcpServers` must be an object of server name to entry; fix the file "
                "by hand first; it was not changed."
            )
        change(data["mcpServers"])
        payload = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
        private = path.parent == user_config_dir()  # the user's own: theirs alone
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            atomic_write(dir_fd, path.name, payload, mode=0o600 if private else None)
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
