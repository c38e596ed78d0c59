"""DeepSeek's tool calls: V3 and V3.1 between ``<｜tool▁calls▁begin｜>`` and
``<｜tool▁calls▁end｜>`` (full-width ``｜`` U+FF5C, ``▁`` U+2581), V3.2's DSML markup.

V3 writes ``function<｜tool▁sep｜>NAME`` and the arguments in a ```` ```json ```` fence; V3.1
writes ``NAME<｜tool▁sep｜>{...}``; both are read by either family. Models also write the
markers with ASCII ``|`` and leave out the outer ``calls▁begin``: both are accepted. V3.2 marks
each parameter ``string="true"`` (text as written) or ``string="false"`` (a JSON value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.textcalls.closers import MarkerCloser
from toolbelt.providers.textcalls.coerce import load_lenient
from toolbelt.providers.textcalls.family import (
    BadCall,
    Call,
    Family,
    Item,
    Opener,
    lone_call,
    swallowed,
)
from toolbelt.providers.textcalls.jsoncalls import load_json
from toolbelt.providers.textcalls.render import (
    dumps,
    function_definition,
    result_text,
    tool_description,
    written_calls,
)

__all__ = ["DEEPSEEK_V3", "DEEPSEEK_V31", "DEEPSEEK_V32"]

CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
V3_SHAPE = (
    f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}TOOL\n```json\n"
    f'{{"PARAM": VALUE}}\n```{CALL_END}{CALLS_END}'
)
V31_SHAPE = f'{CALLS_BEGIN}{CALL_BEGIN}TOOL{SEP}{{"PARAM": VALUE}}{CALL_END}{CALLS_END}'
DSML = "｜DSML｜"
V32_SHAPE = (
    f'<{DSML}function_calls>\n<{DSML}invoke name="TOOL">\n<{DSML}parameter name="PARAM" '
    f'string="true">VALUE</{DSML}parameter>\n</{DSML}invoke>\n</{DSML}function_calls>'
)
_CALL = re.compile(re.escape(CALL_BEGIN) + r"(.*?)(?:" + re.escape(CALL_END) + r"|$)", re.DOTALL)
_INVOKE = re.compile(rf'<{DSML}invoke\s+name="([^"]*)"\s*>(.*?)</{DSML}invoke>', re.DOTALL)
_PARAMETER = re.compile(
    rf'<{DSML}parameter\s+name="([^"]*)"(?:\s+string="(true|false)")?\s*>(.*?)</{DSML}parameter>',
    re.DOTALL,
)


# V3 ``function<sep>NAME\n``, V3.1 ``NAME<sep>``, after an optional call-begin marker.
_EARLY = re.compile(
    rf"^\s*(?:{re.escape(CALL_BEGIN)})?\s*(?:function{re.escape(SEP)}(?P<name>[^\n<]+)\n"
    rf"|(?!function<)(?P<alt>[^<\s]+)\s*{re.escape(SEP)})"
)


def _ascii_to_fullwidth(text: str) -> str:
    return text.replace("<|tool", "<｜tool").replace("|>", "｜>")


def _parse_v3(body: str, shape: str) -> list[Item]:
    calls = _CALL.findall(_ascii_to_fullwidth(body))
    if not calls:
        return [BadCall("", f"Wrap each call in {CALL_BEGIN}...{CALL_END}: {shape}")]
    return [_one_call(call, shape) for call in calls]


def _one_call(text: str, shape: str) -> Item:
    head, sep, rest = text.partition(SEP)
    if not sep:
        return BadCall("", f"Separate the tool name from its arguments with {SEP}: {shape}")
    if head.strip() == "function":  # V3: the name on the first line, then fenced JSON
        name, _, rest = rest.partition("\n")
    else:
        name = head
    name = name.strip()
    value = load_json(rest, shape)
    if isinstance(value, BadCall):
        return BadCall(name, value.problem)
    if not isinstance(value, dict):
        return BadCall(name, f"The arguments of {name} must be a JSON object: {shape}")
    return Call(name, value)


def _name_hint(body: str) -> str:
    head, _, rest = _ascii_to_fullwidth(body).rpartition(CALL_BEGIN)[2].partition(SEP)
    return rest.partition("\n")[0].strip() if head.strip() == "function" else head.strip()


def _parse_v32(body: str) -> list[Item]:
    invokes = _INVOKE.findall(body)
    if not invokes:
        return [BadCall("", f"Write each call as an invoke block: {V32_SHAPE}")]
    items: list[Item] = []
    for name, inner in invokes:
        arguments: dict[str, Any] = {}
        for key, is_string, value in _PARAMETER.findall(inner):
            if is_string == "false":
                try:
                    arguments[key] = load_lenient(value)
                    continue
                except ValueError:
                    pass
            arguments[key] = value
        items.append(Call(name, arguments, raw_text=True))
    return items


def _v32_name(body: str) -> str:
    match = re.search(rf'<{DSML}invoke\s+name="([^"]*)"', body)
    return match.group(1) if match else ""


_END_OF_SENTENCE = swallowed("<｜end▁of▁sentence｜>")


def _openers(shape: str) -> tuple[Opener, ...]:
    def parse(body: str) -> list[Item]:
        return _parse_v3(body, shape)

    ascii_begin, ascii_end = CALLS_BEGIN.replace("｜", "|"), CALLS_END.replace("｜", "|")
    return (
        Opener(
            CALLS_BEGIN, lambda: MarkerCloser(CALLS_END, ascii_end), parse, _name_hint, early=_EARLY
        ),
        Opener(ascii_begin, lambda: MarkerCloser(CALLS_END, ascii_end), parse, _name_hint),
        lone_call(CALL_BEGIN, CALL_END, parse, _name_hint, early=_EARLY),
        *_END_OF_SENTENCE,
    )


def _tools_v3(format_line: str) -> Callable[[Sequence[Tool[Any]]], str]:
    def render(tools: Sequence[Tool[Any]]) -> str:
        described = "\n\n".join(
            f"### {t.name}\nDescription: {tool_description(t)}\n\n"
            f"Parameters: {dumps(function_definition(t)['function']['parameters'])}"
            for t in tools
        )
        return (
            f"## Tools\nYou have access to the following tools:\n\n{described}\n\n"
            f"IMPORTANT: ALWAYS adhere to this exact format for tool use:\n{format_line}\n\n"
            "Where:\n- `tool_call_name` must be an exact match to one of the available tools\n"
            "- `tool_call_arguments` must be valid JSON that strictly follows the tool's "
            "Parameters Schema\n- For multiple tool calls, chain them directly without "
            "separators or spaces"
        )

    return render


def _calls_v3(calls: Sequence[ModelToolCall]) -> str:
    inner = "".join(
        f"{CALL_BEGIN}function{SEP}{c.name}\n```json\n{dumps(dict(c.arguments))}\n```{CALL_END}"
        for c in calls
    )
    return CALLS_BEGIN + inner + CALLS_END


def _calls_v31(calls: Sequence[ModelToolCall]) -> str:
    inner = "".join(f"{CALL_BEGIN}{c.name}{SEP}{dumps(dict(c.arguments))}{CALL_END}" for c in calls)
    return CALLS_BEGIN + inner + CALLS_END


def _results_v3(results: Sequence[ToolCallResult]) -> str:
    outputs = "".join(
        f"<｜tool▁output▁begin｜>{result_text(r)}<｜tool▁output▁end｜>" for r in results
    )
    return f"<｜tool▁outputs▁begin｜>{outputs}<｜tool▁outputs▁end｜>"


def _results_v31(results: Sequence[ToolCallResult]) -> str:
    return "".join(f"<｜tool▁output▁begin｜>{result_text(r)}<｜tool▁output▁end｜>" for r in results)


def _tools_v32(tools: Sequence[Tool[Any]]) -> str:
    definitions = "\n".join(dumps(function_definition(t)["function"]) for t in tools)
    return (
        "## Tools\n\nYou have access to a set of tools you can use to answer the user's "
        f'question.\nYou can invoke functions by writing a "<{DSML}function_calls>" block '
        f"like the following as part of your reply to the user:\n{V32_SHAPE}\n\n"
        "String and scalar parameters should be specified as is without any escaping or "
        'quotes, while lists and objects should use JSON format. The "string" attribute '
        'should be set to "true" for string type parameters and "false" for other types '
        "(numbers, booleans, arrays, objects).\n\nHere are the functions available in "
        f"JSONSchema format:\n<functions>\n{definitions}\n</functions>"
    )


def _calls_v32(calls: Sequence[ModelToolCall]) -> str:
    invokes = written_calls(
        calls,
        _parameter_v32,
        lambda name, params: f'<{DSML}invoke name="{name}">\n{params}</{DSML}invoke>\n',
    )
    return f"<{DSML}function_calls>\n{''.join(invokes)}</{DSML}function_calls>"


def _parameter_v32(key: str, value: Any) -> str:
    text = isinstance(value, str)
    return (
        f'<{DSML}parameter name="{key}" string="{str(text).lower()}">'
        f"{value if text else dumps(value)}</{DSML}parameter>\n"
    )


def _results_v32(results: Sequence[ToolCallResult]) -> str:
    inner = "\n".join(f"<result>{result_text(r)}</result>" for r in results)
    return f"<function_results>\n{inner}\n</function_results>"


DEEPSEEK_V3 = Family(
    "deepseek-v3",
    _openers(V3_SHAPE),
    V3_SHAPE,
    _tools_v3(
        f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}tool_call_name\n```json\n"
        f"tool_call_arguments\n```{CALL_END}{{{{additional_tool_calls}}}}{CALLS_END}"
    ),
    _calls_v3,
    _results_v3,
)

DEEPSEEK_V31 = Family(
    "deepseek-v3.1",
    _openers(V31_SHAPE),
    V31_SHAPE,
    _tools_v3(
        f"{CALLS_BEGIN}{CALL_BEGIN}tool_call_name{SEP}tool_call_arguments{CALL_END}"
        f"{{{{additional_tool_calls}}}}{CALLS_END}"
    ),
    _calls_v31,
    _results_v31,
)


def _dsml_opener(block: str) -> Opener:
    return Opener(
        f"<{DSML}{block}>",
        lambda: MarkerCloser(f"</{DSML}{block}>"),
        _parse_v32,
        _v32_name,
        early=re.compile(rf'\s*<{DSML}invoke\s+name="(?P<name>[^"]+)"'),
    )


DEEPSEEK_V32 = Family(
    "deepseek-v3.2",
    (_dsml_opener("function_calls"), _dsml_opener("tool_calls"), *_END_OF_SENTENCE),
    V32_SHAPE,
    _tools_v32,
    _calls_v32,
    _results_v32,
)
