"""Values are coerced by the tool's schema, and only where the schema asks for another type."""

from __future__ import annotations

from typing import Any

import pytest

from toolbelt.providers.textcalls import coerce_arguments, coerce_value

NULLABLE_INT = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
NULLABLE_STRING = {"type": ["string", "null"]}
STRING_OR_INT = {"anyOf": [{"type": "string"}, {"type": "integer"}]}


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        ("5", {"type": "integer"}, 5),
        (" -12\n", {"type": "integer"}, -12),
        ("1.5", {"type": "number"}, 1.5),
        ("3", {"type": "number"}, 3),
        ("2.0", {"type": "number"}, 2.0),
        ("1e3", {"type": "number"}, 1000.0),
        ("false", {"type": "boolean"}, False),
        ("True", {"type": "boolean"}, True),
        ('{"a": [1, 2]}', {"type": "object"}, {"a": [1, 2]}),
        ("{'a': None}", {"type": "object"}, {"a": None}),
        ('["x", "y"]', {"type": "array", "items": {"type": "string"}}, ["x", "y"]),
        ("null", NULLABLE_INT, None),
        ("7", NULLABLE_INT, 7),
        ("a", {"enum": ["a", "b"]}, "a"),
        ("2", {"enum": [1, 2]}, 2),
    ],
)
def test_text_becomes_the_schema_type(value: str, schema: dict[str, Any], expected: Any) -> None:
    result = coerce_value(value, schema)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize("value", ["false", "42", "null", '{"a": 1}', "[1]", "  spaced  \n"])
def test_a_string_parameter_is_never_coerced(value: str) -> None:
    assert coerce_value(value, {"type": "string"}) == value
    assert coerce_value(value, {"type": "string"}, raw_text=True) == value


@pytest.mark.parametrize("value", ["five", "5.5", "", "yes", "{broken", "[1, 2]"])
def test_text_that_is_not_the_type_is_left_for_the_validator(value: str) -> None:
    """The validator then tells the model what the parameter needs."""
    assert coerce_value(value, {"type": "integer"}) == value


def test_a_union_with_string_prefers_the_other_type_only_for_exact_json() -> None:
    assert coerce_value("12", STRING_OR_INT) == 12
    assert coerce_value("12 apples", STRING_OR_INT) == "12 apples"


def test_null_text_is_null_for_a_nullable_string_only_when_values_arrive_as_text() -> None:
    assert coerce_value("None", NULLABLE_STRING, raw_text=True) is None
    assert coerce_value("None", NULLABLE_STRING) == "None"


def test_nested_objects_and_arrays_are_coerced_by_their_own_schemas() -> None:
    schema = {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"line": {"type": "integer"}, "text": {"type": "string"}},
                },
            }
        },
    }
    arguments = {"edits": '[{"line": "4", "text": "7"}]', "extra": "5"}
    assert coerce_arguments(arguments, schema) == {
        "edits": [{"line": 4, "text": "7"}],
        "extra": "5",  # not in the schema: untouched, the validator rejects or accepts it
    }


def test_typed_values_are_left_alone() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}
    assert coerce_arguments({"n": 3, "s": 4}, schema) == {"n": 3, "s": 4}
