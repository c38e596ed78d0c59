"""Values a settings file may give that both the settings and the file's models know: the
permission modes by the names a file may use, and the edit tools. Apart from both so that
``config.settings`` loads without the models (``config.settings_file``) and the models need
nothing of it."""

from __future__ import annotations

from typing import Literal

__all__ = ["SETTING_MODES", "EditTool"]

SETTING_MODES = {
    "default": "default",
    "manual": "default",
    "acceptEdits": "accept_edits",
    "accept_edits": "accept_edits",
    "plan": "plan",
    "bypassPermissions": "bypass",
    "bypass": "bypass",
    "dontAsk": "dont_ask",
    "dont_ask": "dont_ask",
}
"""A file's ``defaultMode`` (Claude Code's names and toolbelt's) → toolbelt's mode."""

EditTool = Literal["auto", "apply_patch", "edit_file"]
