"""The ``lsp`` section of the settings: whether servers run, how long an edit waits, which.

::

    "lsp": {
      "diagnostics": true,          // diagnostics after edits (default on)
      "timeoutMs": 2000,            // the most an edit's result waits for them
      "servers": {                  // by language: a command, or false for none
        "python": ["pyright-langserver", "--stdio"],
        "typescript": false
      }
    }

A command is a program a session starts, so the workspace's own settings files may name one
only when the workspace is trusted (``config.settings``); turning things off is always allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["DEFAULT_TIMEOUT", "LspSettings"]

DEFAULT_TIMEOUT = 2.0
"""Seconds an edit's result waits for diagnostics at most."""


@dataclass(frozen=True, slots=True)
class LspSettings:
    """What the settings say about language servers (everything on by default)."""

    diagnostics: bool = True
    """Diagnostics after edits; False: edits say nothing about the code."""
    timeout: float = DEFAULT_TIMEOUT
    servers: Mapping[str, tuple[str, ...] | None] = field(default_factory=dict)
    """Language → the command to start (None: no server for it, only the fast checker)."""
    trusted: bool = False
    """Whether the workspace is trusted: its own servers (``.venv/bin``, ``node_modules/.bin``)
    run only then."""
