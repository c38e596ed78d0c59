"""``toolbelt trust``: trust a workspace's own settings, list or remove trusted workspaces; and
the warning the other commands print when an untrusted workspace's settings were cut back.

See ``config.trust`` for why a repository's settings may only restrict until trusted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from toolbelt.config.files import ConfigFileError, load_json_config
from toolbelt.config.launch_files import MAX_PINNED_BYTES, TOO_LARGE, hooks_section_launch
from toolbelt.config.launches import LaunchPin, launch_key, launch_pin
from toolbelt.config.settings import Settings, load_settings, settings_files, untrusted_notice
from toolbelt.config.trust import distrust, too_broad, trust, trusted_workspaces
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.mcp_client.config import entry_launch, mcp_config_files

__all__ = ["load_and_warn", "manage_trust", "workspace_launches"]


def manage_trust(directory: str, *, remove: bool, show: bool, force: bool = False) -> int:
    """Add (default), remove or list trusted workspaces; prints what it did. A directory far
    broader than one project (``too_broad``) needs ``force``."""
    if show:
        entries = trusted_workspaces()
        print("\n".join(map(str, entries)) if entries else "No workspace is trusted.")
        return 0
    root = Path(directory).expanduser()
    if not root.is_dir():
        print(f"toolbelt: {directory} is not a directory.", file=sys.stderr)
        return 2
    if remove:
        done = distrust(root)
        print(f"{root.resolve()} {'is no longer' if done else 'was not'} trusted.")
        return 0
    broad = too_broad(root)
    if broad and not force:
        print(
            f"toolbelt: {broad}: trusting it would let every directory below it that is not a "
            "repository of its own (an unpacked archive, a copied folder) run its own hooks and "
            "allow its own commands. Trust the project's directory instead, or add --force if "
            "you mean it.",
            file=sys.stderr,
        )
        return 2
    unpinned: list[str] = []
    launches = workspace_launches(root, unpinned=unpinned)
    where = trust(root, launches=launches)
    real = root.resolve()
    print(
        f"Trusted {real} (and the directories below it, except repositories of their own): "
        f"its .toolbelt settings now apply in full, hooks and allow rules included. Listed in "
        f"{where}."
    )
    files = len({name for pin in launches.values() for name in pin.files})
    if launches and files:
        print(
            f"Approved {_count_parts(launches)} as written now, with the {files} workspace "
            f"file{'s' if files > 1 else ''} they name: a part that changes, or whose file "
            f"changes, will not run until you review it and trust {real} again."
        )
    elif launches:
        print(
            f"Approved {_count_parts(launches)} as written now: a part that changes will not "
            f"run until you review it and trust {real} again."
        )
    for line in unpinned:
        print(f"toolbelt: note: {escape_for_terminal(line)}", file=sys.stderr)
    for name in _too_large(launches):
        print(
            f"toolbelt: warning: {escape_for_terminal(name)} is over {MAX_PINNED_BYTES >> 20} MiB, "
            "too large to pin, so the MCP server or hooks naming it will not run; name a smaller "
            "file or one outside the workspace.",
            file=sys.stderr,
        )
    if broad or not (real / ".git").exists():
        reason = broad or f"{real} is not a repository of its own"
        print(
            f"toolbelt: warning: {reason}, so this trust also covers every directory below "
            "it that is not a repository of its own (an unpacked archive, a copied folder): "
            "their hooks and allow rules will apply without asking. `toolbelt trust --remove "
            f"{real}` undoes it.",
            file=sys.stderr,
        )
    return 0


def workspace_launches(
    root: Path, *, home: Path | None = None, unpinned: list[str] | None = None
) -> dict[str, LaunchPin]:
    """The pins of ``root``'s program-starting parts as they are now, with the workspace files
    they reach (what ``toolbelt trust`` stores). A file that cannot be read pins nothing:
    loading it fails with its own error. ``unpinned`` gets one sentence per part that runs
    what trust cannot pin (``config.launch_files``), for the user to read at trust time."""
    pins: dict[str, LaunchPin] = {}
    for path in mcp_config_files(root, home=home)[1:]:
        servers = _section(path, "mcpServers")
        for name, entry in servers.items():
            launch = entry_launch(path, name, entry, root)
            pins[launch_key(path, f"mcpServers.{name}")] = launch_pin(entry, launch.pinned)
            _say_unpinned(unpinned, f"the MCP server `{name}` in {path}", launch.unpinned)
    for path in settings_files(root, home=home)[1:]:
        hooks = _section(path, "hooks")
        if hooks:
            launch = hooks_section_launch(hooks, root)
            pins[launch_key(path, "hooks")] = launch_pin(hooks, launch.pinned)
            _say_unpinned(unpinned, f"the hooks in {path}", launch.unpinned)
    return pins


def _say_unpinned(into: list[str] | None, part: str, unpinned: list[str]) -> None:
    """One sentence for a part whose launch reaches what no pin can hold."""
    if into is None or not unpinned:
        return
    into.append(
        f"{part} {'; '.join(unpinned)}: that code is not pinned, so it may change after "
        "you trust the workspace without a notice (it runs inside the sandbox)."
    )


def _too_large(launches: dict[str, LaunchPin]) -> list[str]:
    """The named files too large to pin, which will therefore never be approved."""
    names = (
        name
        for pin in launches.values()
        for name, digest in pin.files.items()
        if digest == TOO_LARGE
    )
    return sorted(set(names))


def _section(path: Path, key: str) -> dict[str, Any]:
    try:
        data = load_json_config(path)
    except ConfigFileError:
        return {}
    section = data.get(key) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def _count_parts(launches: dict[str, LaunchPin]) -> str:
    """``2 MCP servers and the hooks of 1 settings file``."""
    servers = sum("#mcpServers." in key for key in launches)
    hooks = len(launches) - servers
    parts = [
        f"{servers} MCP server{'s' if servers != 1 else ''}" if servers else "",
        f"the hooks of {hooks} settings file{'s' if hooks != 1 else ''}" if hooks else "",
    ]
    return " and ".join(part for part in parts if part)


def load_and_warn(root: Path, trusted: bool | None) -> Settings:
    """Settings for ``root``, warning on stderr about what an untrusted workspace lost."""
    settings = load_settings(root, trusted=trusted)
    notice = untrusted_notice(settings)
    if notice:
        print(f"toolbelt: {escape_for_terminal(notice)}", file=sys.stderr)
    return settings
