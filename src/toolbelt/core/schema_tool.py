"""Tools defined by a JSON Schema alone, with no pydantic model behind them.

Tools from another MCP server arrive as a name, a description and a JSON Schema; a user may
prefer to write a schema by hand. ``SchemaTool`` takes the schema as it is, brings it to the
neutral form every provider format starts from (objects that list their keys closed, maps
open, no ``$ref``), and validates arguments against that same form with ``jsonschema`` (locked
with the MCP SDK), so unknown fields are refused, a map takes any key, and errors read exactly
as they do for built-in tools: the field at fault, what was sent, and a correct example call.
A subclass implements ``run`` and, when the tool touches files, commands or the network,
``access``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

# jsonschema ships no type stubs; its three names are used as documented
from jsonschema import Draft202012Validator, ValidationError  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]
from jsonschema.validators import validator_for  # type: ignore[import-untyped]
from pydantic import ConfigDict

from toolbelt.core.errors import UsageError
from toolbelt.core.schema import JsonSchema, SchemaTooLarge, forms, lifted, validation_form
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.core.validation import invalid_arguments, location, short_value, unknown_field

__all__ = ["SchemaArguments", "SchemaTool", "example_from_schema"]


class SchemaArguments(ToolInput):
    """Arguments a ``SchemaTool`` validated: the JSON object as sent, read with ``values()``."""

    model_config = ConfigDict(extra="allow")

    def values(self) -> dict[str, Any]:
        """The validated arguments as a plain dict."""
        return dict(self.model_extra or {})


class SchemaTool(Tool[SchemaArguments]):
    """A tool whose arguments are described and checked by a JSON Schema."""

    input_model = SchemaArguments

    def __init__(
        self,
        name: str,
        *,
        description: str,
        input_schema: Mapping[str, Any],
        title: str | None = None,
        example: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        readonly: bool = False,
        destructive: bool = True,
        idempotent: bool = False,
        open_world: bool = False,
        programmatic: bool = True,
        hints: ToolHints | None = None,
    ) -> None:
        """Raises ``UsageError`` when the schema is not a valid object schema or ``example``
        does not satisfy it (a wrong example would mislead the model). The behaviour hints
        come one by one (``readonly=True``) or as one value (``hints``, which wins)."""
        self.name = name
        self.title = title or name.replace("_", " ").capitalize()
        self.description = description
        self.hints = hints or ToolHints(readonly, destructive, idempotent, open_world)
        self.programmatic = programmatic
        try:
            rules = validation_form(dict(input_schema))
        except SchemaTooLarge as exc:
            raise UsageError(f"The input schema of `{name}` cannot be used: {exc}.") from exc
        # what providers are sent has no anyOf/oneOf/if at its top; the validator keeps them
        self._schema = lifted(rules)
        self._output_schema = dict(output_schema) if output_schema is not None else None
        validator_class = validator_for(input_schema, default=Draft202012Validator)
        try:
            validator_class.check_schema(rules)
        except SchemaError as exc:
            raise UsageError(f"The input schema of `{name}` is not valid: {exc.message}.") from exc
        self._validator = validator_class(rules)
        self.example = dict(example) if example is not None else example_from_schema(rules)
        problems = list(self._problems(self.example))
        if problems:
            raise UsageError(
                f"The example for `{name}` does not satisfy its schema ({'; '.join(problems)}); "
                "pass an `example` that does."
            )

    def input_schema(self) -> JsonSchema:
        return copy.deepcopy(self._schema)

    def output_schema(self) -> JsonSchema | None:
        return copy.deepcopy(self._output_schema)

    def validate(self, arguments: Mapping[str, Any]) -> SchemaArguments:
        data = self._without_null_optionals(arguments)
        problems = list(dict.fromkeys(self._problems(data)))
        if problems:
            raise invalid_arguments(self.name, problems, self.example)
        return SchemaArguments.model_validate(data)

    def _without_null_optionals(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """``null`` for an optional field means "not given" (OpenAI strict mode sends it)."""
        required = set(self._schema.get("required", ()))
        return {k: v for k, v in arguments.items() if v is not None or k in required}

    def _problems(self, data: Mapping[str, Any]) -> Iterator[str]:
        errors = sorted(
            self._validator.iter_errors(data),
            key=lambda e: [str(part) for part in e.absolute_path],
        )
        for error in errors:
            yield from self._describe(error)

    def _describe(self, error: ValidationError) -> Iterator[str]:
        path = list(error.absolute_path)
        instance = error.instance
        got = short_value(instance)
        schema = error.schema if isinstance(error.schema, dict) else {}
        match error.validator:
            case "required" if isinstance(instance, dict):
                for missing in error.validator_value:
                    if missing not in instance:
                        yield f"`{location([*path, missing])}` is required"
            case "additionalProperties" if isinstance(instance, dict):
                known = tuple(schema.get("properties", {}))
                for extra in instance:
                    if extra not in known:
                        yield unknown_field(location([*path, extra]), self.name, known)
            case "type":
                expected = error.validator_value
                wanted = " or ".join(expected) if isinstance(expected, list) else expected
                yield f"`{location(path)}`: should be of type {wanted} (got {got})"
            case "enum":
                options = ", ".join(short_value(option) for option in error.validator_value)
                yield f"`{location(path)}`: should be one of {options} (got {got})"
            case "anyOf" | "oneOf" if isinstance(error.validator_value, list):
                several = error.validator == "oneOf" and "is valid under each of" in error.message
                how = "matches more than one of" if several else "matches none of"
                yield f"`{location(path)}` {how} its forms ({forms(error.validator_value)})"
            case _:
                yield f"`{location(path)}`: {error.message}"


def _first_parts(schema: Mapping[str, Any], key: str) -> list[Any]:
    """Every ``allOf`` member, or the first alternative of ``anyOf``/``oneOf``."""
    options = schema.get(key)
    if not isinstance(options, list) or not options:
        return []
    return list(options) if key == "allOf" else [options[0]]


_PLACEHOLDERS: dict[str, Any] = {
    "string": "text",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "null": None,
}


def example_from_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A call with every required field filled (defaults, examples, enums, else placeholders)."""
    value = _example_value(schema)
    return value if isinstance(value, dict) else {}


def _example_value(schema: Mapping[str, Any]) -> Any:
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    for key in ("examples", "enum"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return options[0]
    parts = [p for k in ("allOf", "anyOf", "oneOf") for p in _first_parts(schema, k)]
    shapes = [p for p in parts if isinstance(p, dict) and ("properties" in p or "required" in p)]
    if shapes and len(shapes) == len(parts):  # an object made of parts: their keys together
        rest = {k: v for k, v in schema.items() if k not in ("allOf", "anyOf", "oneOf")}
        properties = dict(rest.get("properties", {}))
        required = list(rest.get("required", ()))
        for part in shapes:
            for name, sub in part.get("properties", {}).items():
                if properties.get(name) in (None, {}):
                    properties[name] = sub
            required += part.get("required", ())
        return _example_value({**rest, "properties": properties, "required": required})
    if parts and not ("properties" in schema or "required" in schema):
        return _example_value(parts[0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {
            name: _example_value(properties.get(name, {})) for name in schema.get("required", ())
        }
    return _PLACEHOLDERS.get(str(kind), "text")
