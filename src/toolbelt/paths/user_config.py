"""The user's own agent configuration: protected wherever the workspace is.

``~/.config/toolbelt/settings.json`` holds the user's deny rules and hooks that run
unsandboxed on the next call, ``trusted.json`` says which workspaces may loosen the policy,
and the HTTP server's token (``mcp-PORT.token``, kept in ``$XDG_STATE_HOME/toolbelt/tokens``,
or a file of the user's here or in ``$XDG_RUNTIME_DIR/toolbelt``) lets any local program drive
the tools. A model that may write them can lift every limit the
user set, so writing anything there asks in every mode, bypass included, and is never
remembered. Both directories are secrets as a whole, wherever ``XDG_CONFIG_HOME`` and
``XDG_RUNTIME_DIR`` put them: reading there asks too, and the sandbox hides them from commands
(``~/.config/toolbelt`` is among the home secrets already, ``core.secret_paths``).
``~/.claude/`` is protected by its name already (``protected``); it is listed here as well so
that a workspace inside it does not unprotect the rest of it.

The directories are fixed when the session's ``Protections`` are built (``config.factory``
says where they are): the check runs for every path a listing returns, so it compares strings
and touches no disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal

from toolbelt.core.access import Protection
from toolbelt.paths.containment import is_within, is_within_any

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
    """(real directory, why it is protected as code), for writes: ``~/.claude``."""
    token_directories: tuple[str, ...]
    """The configuration directories: secrets as a whole, their ``mcp-*.token`` files said to
    be token files."""
    runtime: str | None
    """The runtime directory of the HTTP server's tokens: a secret as a whole."""

    @classmethod
    def at(cls, config_dirs: Iterable[Path], *, home: Path, runtime_dir: Path | None) -> UserConfig:
        """The user's toolbelt configuration in ``config_dirs``, ``~/.claude`` below ``home``
        and the HTTP server's tokens in ``runtime_dir`` (None: there is none)."""
        config = {_real(directory) for directory in config_dirs}
        runtime = _real(runtime_dir) if runtime_dir is not None else None
        directories = ((_real(home / ".claude"), _CLAUDE),)
        return cls(directories, tuple(sorted(config)), runtime)

    @property
    def secret_directories(self) -> tuple[str, ...]:
        """The directories that are secrets as a whole (for the sandbox to hide)."""
        runtime = () if self.runtime is None else (self.runtime,)
        return (*self.token_directories, *runtime)

    def protection(self, path: PurePath | str, real: Path | None = None) -> Protection | None:
        """The protection of ``real`` (default ``path``) as user configuration, or None; a
        ``path`` given without its real path is resolved when it is not found as written."""
        target = Path(path) if real is None else real
        text = str(target)
        found = self._lookup(text)
        if found is None and real is None and target.is_absolute():
            resolved = os.path.realpath(text)  # a symlink in the workspace pointing there
            if resolved != text:
                found = self._lookup(resolved)
        if found is None:
            return None
        return Protection(found[0], found[1], target)

    def secret(self, path: Path) -> bool:
        """Whether reading ``path`` (as listed, not resolved) would ask: in a configuration
        or token directory."""
        found = self._lookup(str(path))
        return found is not None and found[0] == "secret"

    def _lookup(self, text: str) -> tuple[Literal["secret", "code"], str] | None:
        parent, _, name = text.rpartition(os.sep)
        if self.runtime is not None and is_within(text, self.runtime):
            return "secret", _TOKEN
        if parent in self.token_directories and name.startswith("mcp-") and name.endswith(".token"):
            return "secret", _TOKEN
        if is_within_any(text, self.token_directories):
            return "secret", _CONFIG
        for directory, reason in self.directories:
            if is_within(text, directory):
                return "code", reason
        return None


def _real(path: Path) -> str:
    return os.path.realpath(path)
