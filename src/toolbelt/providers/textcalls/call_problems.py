"""What the model is told about a text call that did not run, and the test of a tool name.

Every family shares these answers: a name that cannot be a tool's, a call written inside the
reasoning, a call the output limit cut off. Each is one sentence saying what went wrong and
how to write the call instead (with the family's own call shape), kept here so the parser's
state machine holds no prose.
"""

from __future__ import annotations

import re

__all__ = ["CUT_OFF", "is_tool_name", "not_a_tool_name", "written_in_reasoning"]

# Template leaks (``{{ tc.name }}``), quotes, tags and spaces never belong in a tool name.
_BAD_NAME = re.compile(r"[{}<>\"'\s]")

CUT_OFF = (
    "This tool call was cut off by the output limit before it was complete, so it "
    "did not run; make it again with shorter arguments (write a large file in parts)."
)


def is_tool_name(name: str) -> bool:
    """Whether ``name`` could name a tool: not empty, no template leak, quote, tag or space."""
    return bool(name) and _BAD_NAME.search(name) is None


def not_a_tool_name(name: str, shape: str) -> str:
    return (
        f"{name!r} is not a tool name; call one of the offered tools by its "
        f"exact name, in this shape: {shape}"
    )


def written_in_reasoning(marker: str, shape: str) -> str:
    """The call came before ``marker``, the end of reasoning whose start was in the prompt."""
    return (
        f"This call was written inside your reasoning (before {marker}), so it did not "
        f"run; to make it, write it after your reasoning ends: {shape}"
    )
