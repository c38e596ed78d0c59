"""Mistral's ``[TOOL_CALLS]``: a JSON array before v11 (7B v0.3, Nemo, Small 3.1), then one
``[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}`` per call from v11 (Small 3.2, Devstral).

Neither has a closing marker: a call ends where its JSON value does. A server that skips
special tokens while decoding drops ``[ARGS]``/``[CALL_ID]``, so ``[TOOL_CALLS]NAME{...}`` is
read too. Mistral requires nine-alphanumeric call ids, which is the shape toolbelt invents.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.closers import JsonCloser
from toolbelt.providers.textcalls.family import BadCall, Call, Family, Item, Opener
from toolbelt.providers.textcalls.jsoncalls import call_from_object, load_json, name_from_json
from toolbelt.providers.textcalls.render import dumps, function_definition, result_text

__all__ = ["MISTRAL", "MISTRAL_V11", "OPENER"]

MARKER = "[TOOL_CALLS]"
SHAPE = '[TOOL_CALLS][{"name": "TOOL", "arguments": {"PARAM": VALUE}}]'
V11_SHAPE = '[TOOL_CALLS]TOOL[ARGS]{"PARAM": VALUE}'
_V11_HEAD = re.compile(r"^\s*([^\[{\s]*)\s*(?:\[CALL_ID\]\s*([A-Za-z0-9]*)\s*)?(?:\[ARGS\])?\s*$")


def _parse_array(body: str) -> list[Item]:
    value = load_json(body, SHAPE)
    if isinstance(value, list):
        return [call_from_object(v, SHAPE) for v in value] or [
            BadCall("", f"[TOOL_CALLS] is followed by an empty list; use: {SHAPE}")
        ]
    return [call_from_object(value, SHAPE)]


class _EitherCloser:
    """Picks the closer once the first character after ``[TOOL_CALLS]`` shows the version."""

    def __init__(self) -> None:
        self._closer: JsonCloser | None = None

    def scan(self, buf: str, *, final: bool) -> tuple[int, int] | None:
        if self._closer is None:
            text = buf.lstrip()
            if not text:
                return None
            self._closer = JsonCloser("[{" if text[0] in "[{" else "{")
        return self._closer.scan(buf, final=final)


def _parse_either(body: str) -> list[Item]:
    return _parse_array(body) if body.lstrip()[:1] in ("[", "{") else _parse_v11(body)


def _either_name(body: str) -> str:
    return name_from_json(body) if body.lstrip()[:1] in ("[", "{") else _v11_name(body)


OPENER = Opener(
    MARKER,
    _EitherCloser,
    _parse_either,
    _either_name,
    early=re.compile(
        r"^\s*(?P<name>[^\s\[{\"]+)\s*(?:\[CALL_ID\]\s*(?P<id>[A-Za-z0-9]+)\s*)?(?:\[ARGS\]|\{)"
    ),
)
"""Both versions read by either family: a model fine-tuned from another version's base may
write the other form."""


def _parse_v11(body: str) -> list[Item]:
    brace = body.find("{")
    head = _V11_HEAD.match(body[: brace if brace >= 0 else len(body)])
    name = head.group(1) if head else ""
    if brace < 0 or head is None or not name:
        return [
            BadCall(
                name, f"Write each call as the tool name, [ARGS] and a JSON object: {V11_SHAPE}"
            )
        ]
    value = load_json(body[brace:], V11_SHAPE)
    if isinstance(value, BadCall):
        return [BadCall(name, value.problem)]
    if not isinstance(value, dict):
        return [BadCall(name, f"The arguments of {name} must be a JSON object: {V11_SHAPE}")]
    return [Call(name, value, id=head.group(2) or None)]


def _v11_name(body: str) -> str:
    match = re.match(r"\s*([^\[{\s]+)", body)
    return match.group(1) if match else ""


def _tools(tools: Sequence[Tool[Any]]) -> str:
    return f"[AVAILABLE_TOOLS]{dumps([function_definition(t) for t in tools])}[/AVAILABLE_TOOLS]"


def _calls(calls: Sequence[ModelToolCall]) -> str:
    items = [{"name": c.name, "arguments": dict(c.arguments), "id": c.id} for c in calls]
    return MARKER + dumps(items)


def _results(results: Sequence[ToolCallResult]) -> str:
    return "".join(
        f"[TOOL_RESULTS]{dumps({'content': result_text(r), 'call_id': r.call_id})}[/TOOL_RESULTS]"
        for r in results
    )


def _v11_calls(calls: Sequence[ModelToolCall]) -> str:
    return "".join(
        f"{MARKER}{c.name}[CALL_ID]{c.id}[ARGS]{dumps(dict(c.arguments))}" for c in calls
    )


def _v11_results(results: Sequence[ToolCallResult]) -> str:
    return "".join(f"[TOOL_RESULTS]{result_text(r)}[/TOOL_RESULTS]" for r in results)


MISTRAL = Family(
    "mistral",
    (OPENER,),
    SHAPE,
    _tools,
    _calls,
    _results,
)

MISTRAL_V11 = Family(
    "mistral-v11",
    (OPENER,),
    V11_SHAPE,
    _tools,
    _v11_calls,
    _v11_results,
)
