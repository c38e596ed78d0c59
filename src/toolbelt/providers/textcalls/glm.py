"""GLM-4.5/4.6 and GLM-4.7: ``<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>
</tool_call>``, with newlines between the parts before 4.7 and none from 4.7 on.

Both read either layout (and the other ``<tool_call>`` bodies, see ``tagged``); they differ in
the layout they teach and replay. Values are rendered raw when they are strings and as JSON
otherwise, the way GLM's template writes them, so ``false`` and the string "false" look alike
in history and the schema decides when parsing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.family import Family
from toolbelt.providers.textcalls.render import tools_in_xml_tags, written_calls
from toolbelt.providers.textcalls.tagged import (
    GLM45_SHAPE,
    GLM47_SHAPE,
    text_value,
    tool_call_opener,
    tool_responses,
)

__all__ = ["GLM45", "GLM47"]


def _glm_tools(layout: str) -> Callable[[Sequence[Tool[Any]]], str]:
    def render(tools: Sequence[Tool[Any]]) -> str:
        return (
            tools_in_xml_tags(tools)
            + "For each function call, output the function name and arguments within the "
            f"following XML format:\n{layout}"
        )

    return render


def _glm_calls(separator: str) -> Callable[[Sequence[ModelToolCall]], str]:
    def render(calls: Sequence[ModelToolCall]) -> str:
        written = written_calls(
            calls,
            lambda key, value: (
                f"{separator}<arg_key>{key}</arg_key>{separator}"
                f"<arg_value>{text_value(value)}</arg_value>"
            ),
            lambda name, pairs: f"<tool_call>{name}{pairs}{separator}</tool_call>",
        )
        return "\n".join(written)

    return render


GLM45 = Family(
    "glm-4.5",
    (tool_call_opener(GLM45_SHAPE),),
    GLM45_SHAPE,
    _glm_tools(
        "<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}"
        "</arg_value>\n<arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-value-2}</arg_value>\n"
        "...\n</tool_call>"
    ),
    _glm_calls("\n"),
    tool_responses,
)

GLM47 = Family(
    "glm-4.7",
    (tool_call_opener(GLM47_SHAPE),),
    GLM47_SHAPE,
    _glm_tools(
        "<tool_call>{function-name}<arg_key>{arg-key-1}</arg_key><arg_value>{arg-value-1}"
        "</arg_value><arg_key>{arg-key-2}</arg_key><arg_value>{arg-value-2}</arg_value>..."
        "</tool_call>"
    ),
    _glm_calls(""),
    tool_responses,
)
