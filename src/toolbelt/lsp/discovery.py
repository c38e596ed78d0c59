"""Finding the program of a language server, and whose code it is.

In order: the command the settings name for the language; then, for each known server of the
language (best first), the workspace's own copy — ``node_modules/.bin``, ``.venv/bin``,
``venv/bin`` at a root — when the workspace is trusted; the environment toolbelt runs from
(a server installed beside it); the user's PATH outside the workspace (``core.programs``). A
program whose real path lies inside the workspace is the workspace's code, whichever way it
was found: like a hook or an MCP server the workspace declares, it runs only in a trusted
workspace (and sandboxed, like every server). An untrusted workspace's server is skipped with
a note saying why, so the result can tell the model what it did not get.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolbelt.core.programs import inside_workspace, program
from toolbelt.lsp.languages import SERVERS, ServerSpec
from toolbelt.lsp.settings import LspSettings

__all__ = ["Discovery", "FoundServer", "find_server"]

WORKSPACE_BIN_DIRS = ("node_modules/.bin", ".venv/bin", "venv/bin")


@dataclass(frozen=True, slots=True)
class FoundServer:
    """A server to start: what it is and the command that starts it."""

    spec: ServerSpec
    argv: tuple[str, ...]
    workspace_code: bool
    """The program lies inside the workspace (only ever found when it is trusted)."""


@dataclass(frozen=True, slots=True)
class Discovery:
    """The server found for a language (or None), and why a workspace server was skipped."""

    server: FoundServer | None
    skipped: str | None = None


def find_server(language: str, settings: LspSettings, roots: Sequence[Path]) -> Discovery:
    """The server to start for ``language``, if any."""
    if language in settings.servers:
        command = settings.servers[language]
        if command is None:
            return Discovery(None)
        return _configured(language, command, settings, roots)
    skipped = None
    for spec in (s for s in SERVERS if language in s.languages):
        for candidate in _candidates(spec.program, roots):
            if inside_workspace(candidate) and not settings.trusted:
                skipped = skipped or _untrusted(spec.name, candidate)
                continue
            found = FoundServer(spec, (candidate, *spec.args), inside_workspace(candidate))
            return Discovery(found, skipped)
    return Discovery(None, skipped)


def _configured(
    language: str, command: tuple[str, ...], settings: LspSettings, roots: Sequence[Path]
) -> Discovery:
    """The settings' command, with the known server's answers when it is one toolbelt knows."""
    name = Path(command[0]).name
    if len(command) > 1 and (name.startswith("python") or name == "node"):
        name = Path(command[1]).name  # the script an interpreter runs names the server
    spec = next(
        (s for s in SERVERS if s.program == name and language in s.languages),
        ServerSpec(name, name, (), frozenset({language})),
    )
    resolved = command[0]
    if os.sep in resolved and not os.path.isabs(resolved):
        resolved = str(roots[0] / resolved)  # relative to the workspace, like its cwd
    elif os.sep not in resolved:
        resolved = next(iter(_candidates(resolved, roots)), "") if settings.trusted else ""
        resolved = resolved or program(command[0]) or ""
    if not resolved:
        return Discovery(None)
    if inside_workspace(resolved) and not settings.trusted:
        return Discovery(None, _untrusted(name, resolved))
    found = FoundServer(spec, (resolved, *command[1:]), inside_workspace(resolved))
    return Discovery(found)


def _candidates(name: str, roots: Sequence[Path]) -> list[str]:
    """Where ``name`` may be: the workspace's bin directories, toolbelt's environment, PATH."""
    found: list[str] = []
    for root in roots:
        found += [str(root / d / name) for d in WORKSPACE_BIN_DIRS]
    found.append(str(Path(sys.prefix) / "bin" / name))
    on_path = program(name)
    if on_path is not None:
        found.append(on_path)
    return list(dict.fromkeys(c for c in found if _runnable(c)))


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _untrusted(name: str, path: str) -> str:
    return (
        f"{name} at {path} is the workspace's own program and the workspace is not trusted, "
        "so it was not started (trust the workspace with `toolbelt trust` to use it)"
    )
