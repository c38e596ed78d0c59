"""Which language a file is in, and which servers and checkers know that language.

A server is named by its program and the arguments that make it speak LSP on stdio; several
languages may share one (typescript-language-server serves JavaScript too), and then one
process serves them all. ``settings`` is what the client answers to ``workspace/configuration``
for the server's sections: pyright-family servers default to a "standard" check when the
project has no configuration of its own (basedpyright's default reports every unknown type,
noise for an edit's result); a project's ``pyrightconfig.json`` or ``pyproject.toml`` still
wins, as it does in an editor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

__all__ = ["CHECKERS", "LANGUAGES", "SERVERS", "Checker", "ServerSpec", "language_of"]

LANGUAGES: Mapping[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".go": "go",
    ".rs": "rust",
    ".sh": "shellscript",
    ".bash": "shellscript",
    ".ipynb": "python-notebook",
}
"""File suffix → LSP language id (``python-notebook``: no server; ruff checks notebooks)."""

_PYRIGHT_SETTINGS: Mapping[str, Any] = {
    "python": {"analysis": {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}},
    "basedpyright": {
        "analysis": {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}
    },
    "pyright": {},
}


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """A language server toolbelt knows how to start."""

    name: str
    program: str
    args: tuple[str, ...]
    languages: frozenset[str]
    settings: Mapping[str, Any] = field(default_factory=dict)
    init_options: Mapping[str, Any] = field(default_factory=dict)


_PY = frozenset({"python"})
_TS = frozenset({"typescript", "typescriptreact", "javascript", "javascriptreact"})

SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec("basedpyright", "basedpyright-langserver", ("--stdio",), _PY, _PYRIGHT_SETTINGS),
    ServerSpec("pyright", "pyright-langserver", ("--stdio",), _PY, _PYRIGHT_SETTINGS),
    ServerSpec("ty", "ty", ("server",), _PY),
    ServerSpec("pyrefly", "pyrefly", ("lsp",), _PY),
    ServerSpec(
        "typescript-language-server",
        "typescript-language-server",
        ("--stdio",),
        _TS,
        init_options={"disableAutomaticTypingAcquisition": True},
    ),
    ServerSpec("gopls", "gopls", (), frozenset({"go"})),
    ServerSpec("rust-analyzer", "rust-analyzer", (), frozenset({"rust"})),
    ServerSpec(
        "bash-language-server", "bash-language-server", ("start",), frozenset({"shellscript"})
    ),
)
"""Known servers, best first for each language."""


@dataclass(frozen=True, slots=True)
class Checker:
    """A fast command that reads a file's text on stdin and reports what is wrong with it."""

    name: str
    program: str
    args: tuple[str, ...]
    """``{path}`` in an argument stands for the file's path (for messages and configuration)."""


_RUFF = (
    "check",
    "--isolated",
    "--no-cache",
    "--output-format",
    "json",
    "--select",
    "E9,F63,F7,F82",
)

CHECKERS: Mapping[str, Checker] = {
    # The fatal set (syntax errors, undefined names): what breaks when the code runs.
    "python": Checker("ruff", "ruff", (*_RUFF, "--stdin-filename", "{path}", "-")),
    # ruff reads a notebook's JSON (the .ipynb name says so), reporting cell and row
    "python-notebook": Checker("ruff", "ruff", (*_RUFF, "--stdin-filename", "{path}", "-")),
    "javascript": Checker("node", "node", ("--check", "-")),
    "shellscript": Checker("bash", "bash", ("-n",)),
    "go": Checker("gofmt", "gofmt", ("-e",)),
}
"""Language → the checker used where no server is."""


def language_of(path: PurePath) -> str | None:
    """The LSP language id of ``path``, from its suffix; None for files no server knows."""
    return LANGUAGES.get(path.suffix.lower())
