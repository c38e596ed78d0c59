"""Which edit tools a model is offered: patches to GPT-family models, replacements to others.

GPT-family models were trained on the V4A patch format Codex gives them, and Codex and
OpenCode offer them ``apply_patch`` instead of string replacement (aider measured the edit
format alone moving a model from 20% to 61% on its refactoring benchmark). Other models
(Claude, Gemini, open models) were trained on ``old_string`` → ``new_string`` edits. So by
default a GPT-family model is offered ``apply_patch`` without ``edit_file``, ``multi_edit``
and ``write_file`` (a patch adds, changes and deletes files), and every other model those
three without ``apply_patch``. The ``editTool`` setting chooses for every model; a toolset
that lacks the chosen tool keeps the other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolbelt.core.tool import Tool

__all__ = ["PATCH_TOOLS", "REPLACE_TOOLS", "edit_tools_for", "gpt_family"]

PATCH_TOOLS = frozenset({"apply_patch"})
REPLACE_TOOLS = frozenset({"edit_file", "multi_edit", "write_file"})
_GPT = re.compile(r"^(?:gpt-(?:[5-9]|\d{2,}|4\.1|oss)|o[34](?:-|$)|codex)")


def gpt_family(model: str) -> bool:
    """Whether ``model`` (``provider:name``, the name possibly ``org/name``) is a GPT-family
    model trained on V4A patches: gpt-4.1, gpt-5 and later, gpt-oss, o3, o4, codex."""
    name = model.split(":", 1)[1] if ":" in model else model
    return bool(_GPT.match(name.rsplit("/", 1)[-1].lower()))


def edit_tools_for(
    tools: Sequence[Tool[Any]], model: str, choice: str | None
) -> tuple[Tool[Any], ...]:
    """``tools`` without the edit tools ``model`` is not offered under ``choice`` (the
    ``editTool`` setting: ``auto`` or None, ``apply_patch``, ``edit_file``)."""
    names = {tool.name for tool in tools}
    patches = choice == "apply_patch" or (choice in (None, "auto") and gpt_family(model))
    if patches and names & PATCH_TOOLS:
        hidden = REPLACE_TOOLS
    elif not patches and "edit_file" in names:
        hidden = PATCH_TOOLS
    else:
        return tuple(tools)
    return tuple(tool for tool in tools if tool.name not in hidden)
