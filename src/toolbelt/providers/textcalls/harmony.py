"""gpt-oss Harmony: every message is ``<|channel|>NAME<|message|>...`` ended by ``<|end|>``,
``<|call|>`` or ``<|return|>``; a message addressed ``to=functions.TOOL`` is a call.

The recipient may sit in the channel header (``<|channel|>commentary to=functions.x
<|constrain|>json<|message|>``) or in the role header (``<|start|>assistant to=functions.x
<|channel|>commentary json<|message|>``). ``final`` and ``commentary`` messages are for the
reader and stream as visible text; ``analysis`` is the model's reasoning and is not shown. A
final message needs no terminator (the server stops at ``<|return|>``); a call does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.closers import MarkerCloser
from toolbelt.providers.textcalls.family import (
    BadCall,
    Call,
    Family,
    Item,
    Opener,
    Visible,
    swallowed,
)
from toolbelt.providers.textcalls.jsoncalls import load_json
from toolbelt.providers.textcalls.render import dumps, result_text, tool_description, tool_schema

__all__ = ["HARMONY"]

SHAPE = (
    '<|channel|>commentary to=functions.TOOL <|constrain|>json<|message|>{"PARAM": VALUE}<|call|>'
)
_ENDS = ("<|end|>", "<|call|>", "<|return|>")
_RECIPIENT = re.compile(r"to=([^\s<]+)")
_CHANNEL = re.compile(r"<\|channel\|>\s*(\w+)")


def _header(body: str) -> str:
    return body.partition("<|message|>")[0]


def _parse(body: str) -> list[Item]:
    header, has_message, content = body.partition("<|message|>")
    recipient = _RECIPIENT.search(header)
    if recipient and recipient.group(1) != "assistant":
        target = recipient.group(1)
        if not target.startswith("functions."):
            return [
                BadCall(
                    target,
                    f"There is no built-in tool {target}; call one of the "
                    f"offered functions: {SHAPE}",
                )
            ]
        name = target.removeprefix("functions.")
        if not has_message:
            return [BadCall(name, f"The call to {name} has no <|message|> with arguments: {SHAPE}")]
        value = load_json(content, SHAPE) if content.strip() else {}
        if isinstance(value, BadCall):
            return [BadCall(name, value.problem)]
        if not isinstance(value, dict):
            return [BadCall(name, f"The arguments of {name} must be a JSON object: {SHAPE}")]
        return [Call(name, value)]
    channel = _CHANNEL.search(header)
    if channel and channel.group(1) == "analysis":
        return []
    return [Visible(content)] if content else []


def _name_hint(body: str) -> str:
    recipient = _RECIPIENT.search(_header(body))
    return recipient.group(1).removeprefix("functions.") if recipient else ""


def _is_not_call(body: str) -> bool:
    return "to=functions." not in _header(body)


def _shown(header: str) -> bool:
    """A message for the reader: no recipient but the assistant, and not the analysis."""
    recipient = _RECIPIENT.search(header)
    if recipient and recipient.group(1) != "assistant":
        return False
    channel = _CHANNEL.search(header)
    return not (channel and channel.group(1) == "analysis")


class _MessageCloser:
    """A message for the reader ends its block at ``<|message|>``: its text then streams as
    ordinary text (its terminator is swallowed by ``_TERMINATORS``). A call or the analysis
    runs on to its terminator; a call cut off at the end of the stream is left open."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._to_end: MarkerCloser | None = None

    def scan(self, buf: str, *, final: bool) -> tuple[int, int] | None:
        if self._to_end is None:
            index = buf.find("<|message|>")
            if index < 0:
                if final and _is_not_call(self._prefix + buf):
                    return len(buf), len(buf)  # a header and nothing after it
                return None
            if _shown(self._prefix + buf[:index]):
                return index, index + len("<|message|>")
            self._to_end = MarkerCloser(
                *_ENDS, ends_at_eos=lambda b: _is_not_call(self._prefix + b)
            )
        return self._to_end.scan(buf, final=final)


def _opener(marker: str, prefix: str) -> Opener:
    return Opener(
        marker,
        lambda: _MessageCloser(prefix),
        lambda body: _parse(prefix + body) if "<|message|>" in body else [],
        lambda body: _name_hint(prefix + body),
        early=re.compile(r"^[^<]*(?:<\|channel\|>[^<]*)?to=functions\.(?P<name>[^\s<]+)[\s<]"),
    )


_TERMINATORS = swallowed(*_ENDS)


def _ts_type(schema: dict[str, Any]) -> str:
    """A JSON schema as the TypeScript-like type Harmony's tool namespace uses."""
    if "enum" in schema:
        return " | ".join(dumps(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(_ts_type(option) for option in schema["anyOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_ts_type({**schema, "type": k}) for k in kind)
    if kind == "array":
        item = _ts_type(schema.get("items") or {})
        return f"Array<{item}>"
    if kind == "object" and schema.get("properties"):
        return "{\n" + _ts_fields(schema) + "}"
    return {
        "integer": "number",
        "number": "number",
        "string": "string",
        "boolean": "boolean",
        "null": "null",
        "object": "object",
    }.get(str(kind), "any")


def _ts_fields(schema: dict[str, Any]) -> str:
    required = set(schema.get("required") or [])
    lines = []
    for name, prop in (schema.get("properties") or {}).items():
        if "description" in prop:
            lines.append(_comment(prop["description"]))
        optional = "" if name in required else "?"
        default = f" // default: {dumps(prop['default'])}" if "default" in prop else ""
        lines.append(f"{name}{optional}: {_ts_type(prop)},{default}")
    return "".join(line + "\n" for line in lines)


def _comment(text: str) -> str:
    return "\n".join(f"// {line}" for line in text.splitlines() or [""])


def _tools(tools: Sequence[Tool[Any]]) -> str:
    blocks = []
    for tool in tools:
        schema = tool_schema(tool)
        signature = f"(_: {{\n{_ts_fields(schema)}}})" if schema.get("properties") else "()"
        blocks.append(
            f"{_comment(tool_description(tool))}\ntype {tool.name} = {signature} => any;\n"
        )
    return (
        "# Tools\n\n## functions\n\nnamespace functions {\n\n"
        + "\n".join(blocks)
        + ("\n} // namespace functions")
    )


def _calls(calls: Sequence[ModelToolCall]) -> str:
    return "".join(
        f"<|channel|>commentary to=functions.{c.name} <|constrain|>json<|message|>"
        f"{dumps(dict(c.arguments))}<|call|>"
        for c in calls
    )


def _results(results: Sequence[ToolCallResult]) -> str:
    return "".join(
        f"<|start|>functions.{r.tool} to=assistant<|channel|>commentary<|message|>"
        f"{dumps(result_text(r))}<|end|>"
        for r in results
    )


HARMONY = Family(
    "harmony",
    (_opener("<|channel|>", "<|channel|>"), _opener("<|start|>", ""), *_TERMINATORS),
    SHAPE,
    _tools,
    _calls,
    _results,
)
