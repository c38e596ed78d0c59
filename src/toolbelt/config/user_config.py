"""The user's own agent configuration: protected wherever the workspace is.

``~/.config/toolbelt/settings.json`` holds the user's deny rules and hooks that run
unsandboxed on the next call, ``trusted.json`` says which workspaces may loosen the policy,
and the HTTP server's token (``mcp-PORT.token``, kept in ``$XDG_STATE_HOME/toolbelt/tokens``,
or a file of the user's here or in ``$XDG_RUNTIME_DIR/toolbelt``) lets any local program drive
the tools. A model that may write them can lift every limit the
user set, so writing anything there asks in every mode, bypass included, and is never
remembered; the token files are secrets, so reading them asks too. ``~/.claude/`` is protected
by its name already (``protected``); it is listed here as well so that a workspace inside it
does not unprotect the rest of it.

The directories are fixed when the policy is built (``UserConfig.current``): the check runs
for every path a listing returns, so it compares strings and touches no disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal

from toolbelt.config.state import user_state_dir
from toolbelt.config.trust import user_config_dir
from toolbelt.core.access import Protection

__all__ = ["UserConfig"]

_CONFIG = (
    "the user's toolbelt configuration holds their permission rules, hooks that run later "
    "and trusted workspaces"
)
_TOKEN = "the MCP server's token file lets any local program call the tools"
_CLAUDE = "~/.claude/ holds the user's agent settings and hooks that run later"


@dataclass(frozen=True, slots=True)
class UserConfig:
    """The configuration directories of the user running toolbelt, as real paths."""

    directories: tuple[tuple[str, str], ...]
    """(real directory + separator, why it is protected), for writes."""
    token_directories: tuple[str, ...]
    """Directories whose ``mcp-*.token`` files (every file, for the runtime one) are secrets."""
    runtime: str | None

    @classmethod
    def current(cls) -> UserConfig:
        """The directories of this process's user (``HOME``, ``XDG_CONFIG_HOME``,
        ``XDG_RUNTIME_DIR`` as they are now)."""
        home = Path.home()
        config = {_real(user_config_dir()), _real(home / ".config" / "toolbelt")}
        # where `toolbelt mcp --http` keeps its token (``cli.mcp_token``), for $XDG_STATE_HOME
        # as it is now and as the default
        tokens = {_real(user_state_dir() / "tokens"), _real(user_state_dir(home) / "tokens")}
        runtime_env = os.environ.get("XDG_RUNTIME_DIR", "")
        runtime = _real(Path(runtime_env) / "toolbelt") if os.path.isabs(runtime_env) else None
        directories = [(d, _CONFIG) for d in sorted(config)]
        directories.append((_real(home / ".claude"), _CLAUDE))
        if runtime is not None:
            directories.append((runtime, _TOKEN))
        return cls(tuple(directories), tuple(sorted(config | tokens)), runtime)

    def protection(self, path: PurePath | str, real: Path | None = None) -> Protection | None:
        """The protection of ``real`` (default ``path``) as user configuration, or None; the
        signature of ``protected.protection_of``, so the policy can ask both."""
        target = Path(path) if real is None else real
        text = str(target)
        found = self._lookup(text)
        if found is None and target.is_absolute():
            resolved = os.path.realpath(text)  # a symlink in the workspace pointing there
            if resolved != text:
                found = self._lookup(resolved)
        if found is None:
            return None
        return Protection(found[0], found[1], target)

    def secret(self, path: Path) -> bool:
        """Whether reading ``path`` (as listed, not resolved) would ask: a token file."""
        found = self._lookup(str(path))
        return found is not None and found[0] == "secret"

    def _lookup(self, text: str) -> tuple[Literal["secret", "code"], str] | None:
        parent, _, name = text.rpartition(os.sep)
        if self.runtime is not None and (text + os.sep).startswith(self.runtime + os.sep):
            return "secret", _TOKEN
        if parent in self.token_directories and name.startswith("mcp-") and name.endswith(".token"):
            return "secret", _TOKEN
        for directory, reason in self.directories:
            if (text + os.sep).startswith(directory + os.sep):
                return "code", reason
        return None


def _real(path: Path) -> str:
    return os.path.realpath(path)
