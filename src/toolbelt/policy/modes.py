"""The permission modes, listed once (the CLI, the policy and the settings all use this list).

``default`` allows reads inside the workspace and read-only commands; ``accept_edits`` also
allows file edits inside the workspace; ``plan`` allows nothing that writes or executes;
``bypass`` allows everything except protected paths and dangerous commands; ``dont_ask``
behaves like default but denies instead of asking. This module imports nothing heavy: the
CLI reads it to build its parser on every start.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["MODES", "Mode"]

Mode = Literal["default", "accept_edits", "plan", "bypass", "dont_ask"]
MODES: tuple[Mode, ...] = get_args(Mode)
