"""Turn a model's raw arguments into a validated input model, or an error it can act on.

Models send arguments as a JSON string (OpenAI), a dict (Anthropic, Gemini), JSON with
``null`` for optional fields (OpenAI strict mode makes every field required and nullable), or
something broken. Every failure becomes one ``InvalidInputError`` that names the offending
fields and ends with a correct example call, so the next attempt can be right.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticUndefined

from toolbelt.core.errors import InvalidInputError
from toolbelt.core.strict_json import StrictJsonError, strict_loads
from toolbelt.core.tool import Tool, ToolInput

__all__ = ["parse_arguments"]

MAX_PROBLEMS = 10
"""Problems listed in one error; a call with a thousand stray keys needs no thousand lines."""
MAX_NAME = 80
"""Characters of a field name shown (a stray key can be as long as the model likes)."""


def parse_arguments(tool: Tool[Any], raw: str | Mapping[str, Any] | None) -> ToolInput:
    """Validate ``raw`` against ``tool.input_model``; raise ``InvalidInputError`` otherwise."""
    data = _as_mapping(tool, raw)
    data = _drop_null_optionals(tool.input_model, data)
    try:
        return tool.input_model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInputError(_describe(tool, exc)) from exc


def _as_mapping(tool: Tool[Any], raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    text = raw.strip()
    if not text:
        return {}
    try:
        value = strict_loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"The arguments for `{tool.name}` are not valid JSON ({exc.msg} at character "
            f"{exc.pos}). {_example(tool)}"
        ) from exc
    except StrictJsonError as exc:
        raise InvalidInputError(
            f"The arguments for `{tool.name}` are refused: {exc}. {_example(tool)}"
        ) from exc
    if isinstance(value, str):
        # Some models double-encode: a JSON string holding the JSON object.
        return _as_mapping(tool, value)
    if not isinstance(value, dict):
        raise InvalidInputError(
            f"The arguments for `{tool.name}` must be a JSON object, not "
            f"{type(value).__name__}. {_example(tool)}"
        )
    return value


def _drop_null_optionals(model: type[ToolInput], data: dict[str, Any]) -> dict[str, Any]:
    """``null`` for a field that has a non-null default means "use the default"."""
    if None not in data.values():
        return data
    cleaned = dict(data)
    for name, field in model.model_fields.items():
        key = field.alias or name
        if key in cleaned and cleaned[key] is None:
            default = field.default
            if (
                default is not PydanticUndefined and default is not None
            ) or field.default_factory is not None:
                del cleaned[key]
    return cleaned


def _describe(tool: Tool[Any], exc: ValidationError) -> str:
    problems: list[str] = []
    errors = exc.errors(include_url=False)
    for error in errors[:MAX_PROBLEMS]:
        location = ".".join(str(part) for part in error["loc"]) or "arguments"
        if len(location) > MAX_NAME:
            location = location[: MAX_NAME - 1] + "…"
        kind = error["type"]
        if kind == "missing":
            problems.append(f"`{location}` is required")
        elif kind == "extra_forbidden":
            known = ", ".join(f"`{name}`" for name in tool.input_model.model_fields)
            problems.append(f"`{location}` is not a parameter of `{tool.name}` (known: {known})")
        else:
            shown = _short(error.get("input"))
            problems.append(f"`{location}`: {error['msg']} (got {shown})")
    if len(errors) > MAX_PROBLEMS:
        problems.append(f"and {len(errors) - MAX_PROBLEMS} more problems")
    return f"Invalid arguments for `{tool.name}`: {'; '.join(problems)}. {_example(tool)}"


def _example(tool: Tool[Any]) -> str:
    return f"A correct call looks like: {json.dumps(tool.example, ensure_ascii=False)}"


def _short(value: object, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"
