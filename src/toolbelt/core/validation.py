"""Arguments checked against a tool's input model, with errors a model can act on.

Every failure becomes one ``InvalidInputError`` that names the offending fields — a missing
one, an unknown one (with the known names), a wrong value (with what was sent) — and ends
with a correct example call, so the next attempt can be right. Pydantic-declared tools and
tools defined by a JSON Schema alone word their errors the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from toolbelt.core.errors import InvalidInputError

if TYPE_CHECKING:  # the model brings pydantic along: a door that validates nothing loads none
    from pydantic import BaseModel

__all__ = [
    "MAX_NAME",
    "MAX_PROBLEMS",
    "example_text",
    "invalid_arguments",
    "location",
    "short_value",
    "unknown_field",
    "validate_with_model",
]

MAX_PROBLEMS = 10
"""Problems listed in one error; a call with a thousand stray keys needs no thousand lines."""
MAX_NAME = 80
"""Characters of a field name shown (a stray key can be as long as the model likes)."""

ModelT = TypeVar("ModelT", bound="BaseModel")


def validate_with_model(
    tool_name: str, model: type[ModelT], data: Mapping[str, Any], example: Mapping[str, Any]
) -> ModelT:
    """``data`` validated by ``model``; ``InvalidInputError`` naming every problem otherwise."""
    cleaned = _drop_null_optionals(model, data)
    try:
        return model.model_validate(cleaned)
    except Exception as exc:
        from pydantic import ValidationError  # loaded with the model: costs nothing here

        if not isinstance(exc, ValidationError):
            raise
        known = tuple(model.model_fields)
        problems: list[str] = []
        for error in exc.errors(include_url=False):
            where = location(error["loc"])
            kind = error["type"]
            if kind == "missing":
                problems.append(f"`{where}` is required")
            elif kind == "extra_forbidden":
                problems.append(unknown_field(where, tool_name, known))
            else:
                shown = short_value(error.get("input"))
                problems.append(f"`{where}`: {error['msg']} (got {shown})")
        raise invalid_arguments(tool_name, problems, example) from exc


def invalid_arguments(
    tool_name: str, problems: list[str], example: Mapping[str, Any]
) -> InvalidInputError:
    """The error listing ``problems`` (at most ``MAX_PROBLEMS``) and a correct call."""
    shown = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        shown.append(f"and {len(problems) - MAX_PROBLEMS} more problems")
    return InvalidInputError(
        f"Invalid arguments for `{tool_name}`: {'; '.join(shown)}. {example_text(example)}"
    )


def unknown_field(where: str, tool_name: str, known: Iterable[str]) -> str:
    names = ", ".join(f"`{name}`" for name in known)
    return f"`{where}` is not a parameter of `{tool_name}` (known: {names})"


def location(parts: Iterable[str | int]) -> str:
    """A dotted field path, cut at ``MAX_NAME`` characters."""
    where = ".".join(str(part) for part in parts) or "arguments"
    return where if len(where) <= MAX_NAME else where[: MAX_NAME - 1] + "…"


def example_text(example: Mapping[str, Any]) -> str:
    return f"A correct call looks like: {json.dumps(example, ensure_ascii=False)}"


def short_value(value: object, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _drop_null_optionals(model: type[BaseModel], data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``null`` for a field that has a non-null default means "use the default"."""
    if None not in data.values():
        return data
    from pydantic_core import PydanticUndefined

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
