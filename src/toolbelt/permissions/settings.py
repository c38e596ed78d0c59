"""Settings files in Claude Code's format: permission rules and hooks, from three scopes.

``~/.config/toolbelt/settings.json`` (user), ``.toolbelt/settings.json`` (project, committed)
and ``.toolbelt/settings.local.json`` (local, where "always allow" answers are written) are
merged: rule lists and hook lists are concatenated. A file that is not valid JSON, has the
wrong shape or holds a malformed rule is an error naming the file and the line — a silently
ignored deny rule is worse than no start at all.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolbelt.core.errors import SettingsError
from toolbelt.files.atomic import atomic_write
from toolbelt.permissions.rules import Rule, parse_rule

__all__ = ["Settings", "add_local_rule", "load_settings", "settings_files"]

LISTS = ("allow", "ask", "deny")


@dataclass
class Settings:
    """Merged rules and hooks, with the files they came from."""

    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    hooks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    additional_directories: list[Path] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def settings_files(root: Path, *, home: Path | None = None) -> list[Path]:
    """User, project and local settings paths, lowest precedence first."""
    config = os.environ.get("XDG_CONFIG_HOME")
    base = Path(config) if config and home is None else (home or Path.home()) / ".config"
    return [
        base / "toolbelt" / "settings.json",
        root / ".toolbelt" / "settings.json",
        root / ".toolbelt" / "settings.local.json",
    ]


def load_settings(root: Path, *, home: Path | None = None) -> Settings:
    """Read and merge every settings file that exists under ``root`` and the user's config."""
    merged = Settings()
    for path in settings_files(root, home=home):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        data = _parse(path, text)
        merged.files.append(path)
        permissions = data.get("permissions", {})
        if not isinstance(permissions, dict):
            raise SettingsError(f"{path}: `permissions` must be an object.")
        for name in LISTS:
            entries = permissions.get(name, [])
            if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
                line = _line_of(text, name)
                raise SettingsError(f"{path}, line {line}: `permissions.{name}` must list strings.")
            for entry in entries:
                try:
                    rule = parse_rule(entry, source=str(path), project_root=root)
                except ValueError as exc:
                    raise SettingsError(f"{path}, line {_line_of(text, entry)}: {exc}.") from exc
                getattr(merged, name).append(rule)
        for directory in permissions.get("additionalDirectories", []):
            merged.additional_directories.append(Path(os.path.expanduser(str(directory))))
        hooks = data.get("hooks", {})
        if not isinstance(hooks, dict):
            raise SettingsError(
                f"{path}, line {_line_of(text, 'hooks')}: `hooks` must be an object."
            )
        for event, groups in hooks.items():
            if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
                line = _line_of(text, event)
                raise SettingsError(f"{path}, line {line}: hooks.{event} must list objects.")
            merged.hooks.setdefault(event, []).extend(groups)
    return merged


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}, line {exc.lineno}: not valid JSON ({exc.msg}).") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: the settings must be a JSON object.")
    return data


def _line_of(text: str, needle: str) -> int:
    quoted = json.dumps(needle)
    for number, line in enumerate(text.splitlines(), 1):
        if quoted in line:
            return number
    return 1


def add_local_rule(root: Path, list_name: str, rule_text: str) -> Path:
    """Append ``rule_text`` to ``list_name`` in ``.toolbelt/settings.local.json``, atomically.

    Other keys are kept, duplicates are not added, and a lock file serialises concurrent
    writers so no approval is lost.
    """
    parse_rule(rule_text)  # never persist something that would not load again
    directory = root / ".toolbelt"
    directory.mkdir(exist_ok=True)
    target = directory / "settings.local.json"
    with open(directory / ".settings.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data: dict[str, Any] = {}
        if target.exists():
            data = _parse(target, target.read_text(encoding="utf-8"))
        permissions = data.setdefault("permissions", {})
        entries = permissions.setdefault(list_name, [])
        if rule_text not in entries:
            entries.append(rule_text)
            payload = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                atomic_write(fd, target.name, payload)
            finally:
                os.close(fd)
    return target
