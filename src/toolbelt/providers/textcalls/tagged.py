"""The ``<tool_call>`` families: Hermes/Qwen JSON and Qwen3-Coder XML here, GLM in ``glm``.

They share the tags and the ``<tool_response>`` result shape, and models trained on one often
write another's body, so every one of them reads all three bodies (told apart by the first
character: ``{`` JSON, ``<function=`` XML, else a GLM name); what differs is what they teach
in the prompt and how they replay history.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.closers import MarkerCloser
from toolbelt.providers.textcalls.family import Family, Item, Opener
from toolbelt.providers.textcalls.jsoncalls import (
    call_from_object,
    json_values,
    load_json,
    name_from_json,
)
from toolbelt.providers.textcalls.render import (
    dumps,
    result_text,
    tool_description,
    tool_schema,
    tools_in_xml_tags,
    written_calls,
)
from toolbelt.providers.textcalls.xmlcalls import (
    glm_name_hint,
    parse_glm,
    parse_qwen_xml,
    qwen_name_hint,
)

__all__ = [
    "GLM45_SHAPE",
    "GLM47_SHAPE",
    "HERMES",
    "QWEN3_CODER",
    "text_value",
    "tool_call_opener",
    "tool_responses",
]

HERMES_SHAPE = '<tool_call>\n{"name": "TOOL", "arguments": {"PARAM": VALUE}}\n</tool_call>'
QWEN_SHAPE = (
    "<tool_call>\n<function=TOOL>\n<parameter=PARAM>\nVALUE\n</parameter>\n"
    "</function>\n</tool_call>"
)
GLM45_SHAPE = (
    "<tool_call>TOOL\n<arg_key>PARAM</arg_key>\n<arg_value>VALUE</arg_value>\n</tool_call>"
)
GLM47_SHAPE = "<tool_call>TOOL<arg_key>PARAM</arg_key><arg_value>VALUE</arg_value></tool_call>"


def parse_tool_call_body(body: str, shape: str) -> list[Item]:
    """Whichever of the three bodies ``body`` is; problems quote the family's ``shape``."""
    text = body.lstrip()
    if text.startswith("<function="):
        return parse_qwen_xml(text, shape)
    if text.startswith(("{", "[", "```")) or not text:
        values = json_values(text)  # two calls are sometimes written into one pair of tags
        if values and not isinstance(values[0], list):
            return [call_from_object(v, shape) for v in values]
        value = load_json(text, shape)
        if isinstance(value, list):
            return [call_from_object(v, shape) for v in value] or [call_from_object(None, shape)]
        return [call_from_object(value, shape)]
    return parse_glm(text, shape)


def _name_hint(body: str) -> str:
    text = body.lstrip()
    if text.startswith("<function="):
        return qwen_name_hint(text)
    if text.startswith(("{", "[", "```")):
        return name_from_json(text)
    return glm_name_hint(text)


# JSON ``{"name": "x"``, XML ``<function=x>`` or GLM ``x\n``/``x<arg_key>``: complete names only.
_EARLY_NAME = re.compile(
    r'^\s*(?:\{\s*"name"\s*:\s*"|<function=)?(?P<name>[^\s"\\<>{}\[`]+)["\s<>]'
)


def tool_call_opener(shape: str) -> Opener:
    """``<tool_call>`` ... ``</tool_call>``, any of the three bodies."""
    return Opener(
        "<tool_call>",
        lambda: MarkerCloser("</tool_call>"),
        lambda body: parse_tool_call_body(body, shape),
        _name_hint,
        early=_EARLY_NAME,
    )


def _bare_function_opener() -> Opener:
    """Qwen3-Coder sometimes leaves out ``<tool_call>`` and starts at ``<function=``."""
    return Opener(
        "<function=",
        lambda: MarkerCloser("</function>"),
        lambda body: parse_qwen_xml(f"<function={body}</function>", QWEN_SHAPE),
        lambda body: qwen_name_hint("<function=" + body),
        early=re.compile(r"^(?P<name>[^\s\"<>]+)>"),
    )


def tool_responses(results: Sequence[ToolCallResult]) -> str:
    return "\n".join(f"<tool_response>\n{result_text(r)}\n</tool_response>" for r in results)


def text_value(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value)


# Hermes / Qwen2.5 / Qwen3 -------------------------------------------------------------------


def _hermes_tools(tools: Sequence[Tool[Any]]) -> str:
    return (
        tools_in_xml_tags(tools)
        + "For each function call, return a json object with function name and arguments "
        "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


def _hermes_calls(calls: Sequence[ModelToolCall]) -> str:
    return "\n".join(
        f"<tool_call>\n{dumps({'name': c.name, 'arguments': dict(c.arguments)})}\n</tool_call>"
        for c in calls
    )


HERMES = Family(
    "hermes",
    (tool_call_opener(HERMES_SHAPE),),
    HERMES_SHAPE,
    _hermes_tools,
    _hermes_calls,
    tool_responses,
)

# Qwen3-Coder / Qwen3.5 ----------------------------------------------------------------------


def _qwen_parameter(name: str, schema: dict[str, Any]) -> str:
    lines = [f"<parameter>\n<name>{name}</name>"]
    kind = schema.get("type")
    lines.append(f"<type>{kind if isinstance(kind, str) else dumps(kind or 'any')}</type>")
    if "description" in schema:
        lines.append(f"<description>{schema['description']}</description>")
    for key, value in schema.items():
        if key not in ("type", "description"):
            lines.append(f"<{key}>{dumps(value)}</{key}>")
    return "\n".join(lines) + "\n</parameter>"


def _qwen_tools(tools: Sequence[Tool[Any]]) -> str:
    blocks = []
    for tool in tools:
        schema = tool_schema(tool)
        required = schema.get("required") or []
        params = "\n".join(
            _qwen_parameter(name, prop) for name, prop in (schema.get("properties") or {}).items()
        )
        blocks.append(
            f"<function>\n<name>{tool.name}</name>\n<description>{tool_description(tool)}"
            f"</description>\n<parameters>\n{params}\n<required>{json.dumps(required)}"
            "</required>\n</parameters>\n</function>"
        )
    return (
        "# Tools\n\nYou have access to the following functions:\n\n<tools>\n"
        + "\n".join(blocks)
        + "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format "
        "with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n"
        "<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\n"
        "This is the value for the second parameter\nthat can span\nmultiple lines\n"
        "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminders:\n"
        "- Function calls MUST follow the specified format: an inner <function=...></function> "
        "block must be nested within <tool_call></tool_call> XML tags\n"
        "- Required parameters MUST be specified\n"
        "- You may provide optional reasoning for your function call in natural language "
        "BEFORE the function call, but NOT after\n"
        "- If there is no function call available, answer the question like normal with your "
        "current knowledge and do not tell the user about function calls\n</IMPORTANT>"
    )


def _qwen_calls(calls: Sequence[ModelToolCall]) -> str:
    written = written_calls(
        calls,
        lambda key, value: f"<parameter={key}>\n{text_value(value)}\n</parameter>\n",
        lambda name, params: f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>",
    )
    return "\n".join(written)


QWEN3_CODER = Family(
    "qwen3-coder",
    (tool_call_opener(QWEN_SHAPE), _bare_function_opener()),
    QWEN_SHAPE,
    _qwen_tools,
    _qwen_calls,
    tool_responses,
)
