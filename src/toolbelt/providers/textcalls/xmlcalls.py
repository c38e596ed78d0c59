"""Calls written as XML-ish key/value markup, every value as text: Qwen3-Coder's
``<function=NAME><parameter=KEY>value</parameter></function>`` and GLM's
``NAME<arg_key>KEY</arg_key><arg_value>value</arg_value>``.

Values are significant text (code): Qwen3-Coder's exactly-one newline on each side is
removed and nothing else; GLM's values are kept as written. A closing tag that appears inside
a value (code that mentions ``</parameter>``) only ends the value when the markup continues
after it; a missing ``</parameter>`` is forgiven when the next parameter starts.
"""

from __future__ import annotations

import re

from toolbelt.providers.textcalls.family import BadCall, Call, Item

__all__ = ["glm_name_hint", "parse_glm", "parse_qwen_xml", "qwen_name_hint"]

_FUNCTION = "<function="
_PARAMETER = re.compile(r"<parameter=")
_GLM_PAIR = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", re.DOTALL)
_GLM_NAME_END = re.compile(r"<arg_key>|\s")


def parse_qwen_xml(body: str, shape: str) -> list[Item]:
    """Every ``<function=...>`` block in ``body`` (the text inside one ``<tool_call>``)."""
    rest = body.strip()
    if not rest.startswith(_FUNCTION):
        return [BadCall("", f"The tool call must start with <function=NAME>; use: {shape}")]
    items: list[Item] = []
    while rest.startswith(_FUNCTION):
        header_end = rest.find(">")
        if header_end < 0:
            return [*items, BadCall("", f"<function= is missing its closing >; use: {shape}")]
        name = rest[len(_FUNCTION) : header_end].strip()
        close = _structural_end(rest, "</function>", header_end, _FUNCTION)
        inner = rest[header_end + 1 : close if close >= 0 else len(rest)]
        arguments, problem = _qwen_parameters(inner)
        if problem:
            items.append(BadCall(name, f"In the call to {name}, {problem}; use: {shape}"))
        else:
            items.append(Call(name, arguments, raw_text=True))
        rest = rest[close + len("</function>") :].strip() if close >= 0 else ""
    return items


def _qwen_parameters(inner: str) -> tuple[dict[str, str], str]:
    starts = [m.start() for m in _PARAMETER.finditer(inner)]
    if inner[: starts[0] if starts else len(inner)].strip():
        return {}, "there is text outside <parameter=...> blocks"
    arguments: dict[str, str] = {}
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(inner)
        segment = inner[start + len("<parameter=") : end]
        header_end = segment.find(">")
        if header_end < 0:
            return {}, "a <parameter= tag is missing its closing >"
        key = segment[:header_end].strip()
        value = segment[header_end + 1 :]
        close = value.rfind("</parameter>")
        if close >= 0 and not value[close + len("</parameter>") :].strip():
            value = value[:close]
        value = value.removeprefix("\n")
        arguments[key] = value.removesuffix("\n") if close >= 0 else value.rstrip("\n")
    return arguments, ""


def _structural_end(text: str, tag: str, start: int, follower: str) -> int:
    """The ``tag`` that really closes the block: the last one, or one followed by the next
    block; a mention inside a value is followed by more value text."""
    index = text.find(tag, start)
    found = -1
    while index >= 0:
        after = text[index + len(tag) :].lstrip()
        if not after or after.startswith(follower):
            return index
        found = index
        index = text.find(tag, index + 1)
    return found


def qwen_name_hint(body: str) -> str:
    match = re.search(r"<function=([^>\n]*)", body)
    return match.group(1).strip() if match else ""


def parse_glm(body: str, shape: str) -> list[Item]:
    """One GLM call: the name, then ``<arg_key>``/``<arg_value>`` pairs (4.5/4.6 put newlines
    between them, 4.7 does not; both are read)."""
    name = glm_name_hint(body)
    if not name:
        return [BadCall("", f"The tool call must start with the tool's name; use: {shape}")]
    pairs = _GLM_PAIR.findall(body)
    if body.count("<arg_key>") != len(pairs):
        return [
            BadCall(
                name, f"In the call to {name}, every <arg_key> needs its <arg_value>; use: {shape}"
            )
        ]
    return [Call(name, dict(pairs), raw_text=True)]


def glm_name_hint(body: str) -> str:
    text = body.lstrip()
    match = _GLM_NAME_END.search(text)
    return text[: match.start() if match else len(text)]
