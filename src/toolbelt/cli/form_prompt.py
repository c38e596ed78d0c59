"""A form (an MCP server's elicitation ``requestedSchema``) filled in at the terminal.

The MCP specification allows a flat object of primitive fields: strings (with ``enum``,
titled ``oneOf`` choices, length bounds), numbers and integers (with bounds), booleans, and
multi-select arrays of enum strings. Each field is asked in turn — its title, description and
whether it is required, all escaped, so a server cannot move the cursor or imitate toolbelt —
and the typed value is checked before the next field: a wrong value is asked again, an empty
line skips an optional field (or takes its default) and dismisses the form at a required one.
What the person typed goes back as the answer's ``data``, matching the schema. A form with a
field this terminal cannot ask for (a nested object, an array of free text) is declined with a
line saying why, rather than accepted with missing fields.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.core.user import UserAnswer

__all__ = ["fill_form", "form_problem"]

Value = str | int | float | bool | list[str]
_YES = {"y", "yes", "true", "1"}
_NO = {"n", "no", "false", "0"}


def form_problem(schema: Mapping[str, Any]) -> str | None:
    """Why ``schema`` cannot be asked at a terminal, or None when every field can."""
    properties = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(properties, Mapping):
        return "it is not a flat object of fields"
    for name, field in properties.items():
        if not isinstance(field, Mapping):
            return f"its field {escape_for_terminal(str(name))!r} has no description"
        kind = field.get("type")
        if kind == "array" and _choices(field.get("items")) is None:
            return f"its field {escape_for_terminal(str(name))!r} is a list of free values"
        if kind not in ("string", "number", "integer", "boolean", "array"):
            return f"its field {escape_for_terminal(str(name))!r} has the unsupported type {kind!r}"
    return None


def fill_form(schema: Mapping[str, Any], out: TextIO, read_line: Callable[[], str]) -> UserAnswer:
    """Ask every field of ``schema`` (``form_problem`` is None for it) and return the content;
    ``cancel`` when the person dismisses it at a required field or input ends."""
    properties: Mapping[str, Mapping[str, Any]] = schema["properties"]
    required = set(schema.get("required") or ())
    content: dict[str, Value] = {}
    for name, field in properties.items():
        label = escape_for_terminal(str(field.get("title") or name))
        description = field.get("description")
        need = "required" if name in required else "optional; an empty line skips it"
        out.write(
            f"  {label} ({need})"
            + (f": {escape_for_terminal(str(description))}" if description else "")
        )
        out.write("\n")
        choices = _choices(field) or _choices(field.get("items"))
        for number, (_, title) in enumerate(choices or [], 1):
            out.write(f"    {number}. {escape_for_terminal(title)}\n")
        if "default" in field:
            out.write(f"    (default: {escape_for_terminal(_shown(field['default']))})\n")
        while True:
            out.write("  > ")
            out.flush()
            line = read_line()
            if not line:  # end of input
                return UserAnswer("cancel")
            typed = line.strip()
            if not typed:
                if "default" in field:
                    content[name] = field["default"]
                elif name in required:
                    return UserAnswer("cancel")
                break
            value, problem = _parse(field, choices, typed)
            if problem is None:
                content[name] = value
                break
            out.write(f"  {problem}\n")
    text = ", ".join(f"{key}: {value}" for key, value in content.items())
    return UserAnswer("accept", text, content)


def _choices(field: Any) -> list[tuple[str, str]] | None:
    """(value, title) of a field's enum or titled ``oneOf``/``anyOf`` choices, else None."""
    if not isinstance(field, Mapping):
        return None
    enum = field.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        names = field.get("enumNames")
        titles = names if isinstance(names, list) and len(names) == len(enum) else enum
        return [(value, str(title)) for value, title in zip(enum, titles, strict=True)]
    options = field.get("oneOf") or field.get("anyOf")
    if isinstance(options, list) and options:
        pairs = [
            (o["const"], str(o.get("title") or o["const"]))
            for o in options
            if isinstance(o, Mapping) and isinstance(o.get("const"), str)
        ]
        return pairs if len(pairs) == len(options) else None
    return None


def _parse(
    field: Mapping[str, Any], choices: list[tuple[str, str]] | None, typed: str
) -> tuple[Value, str | None]:
    """The value ``typed`` gives the field, or a problem saying what to type instead."""
    kind = field.get("type")
    if kind == "array":
        assert choices is not None
        picked = [_pick(choices, part.strip()) for part in typed.split(",") if part.strip()]
        if not picked or None in picked:
            return "", f"Type one or more of 1 to {len(choices)} (or names), separated by commas."
        values = list(dict.fromkeys(p for p in picked if p is not None))
        return values, _count_problem(field, len(values))
    if choices is not None:
        value = _pick(choices, typed)
        if value is None:
            return "", f"Type a number from 1 to {len(choices)} or a choice's name."
        return value, None
    if kind == "boolean":
        if typed.casefold() in _YES | _NO:
            return typed.casefold() in _YES, None
        return "", "Type y or n."
    if kind in ("number", "integer"):
        return _number(field, typed)
    return typed, _length_problem(field, typed)


def _pick(choices: list[tuple[str, str]], typed: str) -> str | None:
    if typed.isdigit() and 1 <= int(typed) <= len(choices):
        return choices[int(typed) - 1][0]
    for value, title in choices:
        if typed.casefold() in (value.casefold(), title.casefold()):
            return value
    return None


def _number(field: Mapping[str, Any], typed: str) -> tuple[Value, str | None]:
    integer = field.get("type") == "integer"
    try:
        value: int | float = int(typed) if integer else float(typed)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        return "", "Type a whole number." if integer else "Type a number."
    low, high = field.get("minimum"), field.get("maximum")
    if isinstance(low, int | float) and value < low:
        return "", f"Type a number of at least {low}."
    if isinstance(high, int | float) and value > high:
        return "", f"Type a number of at most {high}."
    return value, None


def _length_problem(field: Mapping[str, Any], typed: str) -> str | None:
    low, high = field.get("minLength"), field.get("maxLength")
    if isinstance(low, int) and len(typed) < low:
        return f"Type at least {low} characters."
    if isinstance(high, int) and len(typed) > high:
        return f"Type at most {high} characters."
    return None


def _count_problem(field: Mapping[str, Any], count: int) -> str | None:
    low, high = field.get("minItems"), field.get("maxItems")
    if isinstance(low, int) and count < low:
        return f"Pick at least {low}."
    if isinstance(high, int) and count > high:
        return f"Pick at most {high}."
    return None


def _shown(value: Any) -> str:
    """A default as the schema writes it: ``true``/``false``/``null`` and JSON for lists and
    objects, not Python's ``True`` (what the person types back is JSON's word)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
