"""Turn a model's raw arguments into validated input, or an error it can act on.

Models send arguments as a JSON string (OpenAI), a dict (Anthropic, Gemini), JSON with
``null`` for optional fields (OpenAI strict mode makes every field required and nullable), or
something broken. Text that is not a JSON object fails here, with a correct example call; the
object itself is checked by the tool (``Tool.validate``), against its pydantic model or its
JSON Schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolbelt.core.errors import InvalidInputError
from toolbelt.core.strict_json import StrictJsonError, strict_loads
from toolbelt.core.tool import Tool
from toolbelt.core.validation import example_text

__all__ = ["parse_arguments"]


def parse_arguments(tool: Tool[Any], raw: str | Mapping[str, Any] | None) -> Any:
    """Validate ``raw`` for ``tool``; raise ``InvalidInputError`` otherwise."""
    return tool.validate(_as_mapping(tool, raw))


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
            f"{exc.pos}). {example_text(tool.example)}"
        ) from exc
    except StrictJsonError as exc:
        raise InvalidInputError(
            f"The arguments for `{tool.name}` are refused: {exc}. {example_text(tool.example)}"
        ) from exc
    if isinstance(value, str):
        # Some models double-encode: a JSON string holding the JSON object.
        return _as_mapping(tool, value)
    if not isinstance(value, dict):
        raise InvalidInputError(
            f"The arguments for `{tool.name}` must be a JSON object, not "
            f"{type(value).__name__}. {example_text(tool.example)}"
        )
    return value
