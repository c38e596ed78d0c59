"""A form question at the terminal: each field asked, checked and typed again when wrong; a
form this terminal cannot ask is declined, never accepted empty."""

from __future__ import annotations

import io
from typing import Any

import pytest

from toolbelt import Question, UserAnswer
from toolbelt.cli.user_prompt import TerminalUser

pytestmark = pytest.mark.anyio

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name\x1b[2K", "minLength": 2},
        "age": {"type": "integer", "description": "In years", "minimum": 0, "maximum": 150},
        "ratio": {"type": "number"},
        "subscribe": {"type": "boolean", "default": False},
        "plan": {
            "type": "string",
            "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}],
        },
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}},
        "note": {"type": "string"},
    },
    "required": ["name", "age", "plan"],
}


async def ask(monkeypatch: pytest.MonkeyPatch, schema: Any, typed: str) -> tuple[UserAnswer, str]:
    screen = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    monkeypatch.setattr("sys.stderr", screen)
    answer = await TerminalUser().ask(Question("Sign up?", schema=schema))
    return answer, screen.getvalue()


async def test_every_field_is_asked_checked_and_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    typed = "x\nAda\nold\n200\n36\n0.5\n\nPRO\n3, 1\n\n"
    answer, screen = await ask(monkeypatch, SCHEMA, typed)
    content = {"name": "Ada", "age": 36, "ratio": 0.5, "subscribe": False, "plan": "pro"}
    content["tags"] = ["c", "a"]
    assert answer == UserAnswer(
        "accept",
        "name: Ada, age: 36, ratio: 0.5, subscribe: False, plan: pro, tags: ['c', 'a']",
        content,
    )
    assert screen == (
        "\n\x1b[1;36m?\x1b[0m Sign up?\n"
        "  Name\\x1b[2K (required)\n  Name\\x1b[2K for “Sign up?” > "
        "  Type at least 2 characters.\n  Name\\x1b[2K for “Sign up?” > "
        "  age (required): In years\n  age for “Sign up?” > "
        "  Type a whole number.\n  age for “Sign up?” > "
        "  Type a number of at most 150.\n  age for “Sign up?” > "
        "  ratio (optional; an empty line skips it)\n  ratio for “Sign up?” > "
        "  subscribe (optional; an empty line skips it)\n    (default: false)\n"
        "  subscribe for “Sign up?” > "
        "  plan (required)\n    1. Free\n    2. Pro\n  plan for “Sign up?” > "
        "  tags (optional; an empty line skips it)\n    1. a\n    2. b\n    3. c\n"
        "  tags for “Sign up?” > "
        "  note (optional; an empty line skips it)\n  note for “Sign up?” > "
    )


@pytest.mark.parametrize("typed", ["\n", "Ada\n\n", ""])
async def test_a_required_field_left_empty_or_the_end_of_input_dismisses_it(
    monkeypatch: pytest.MonkeyPatch, typed: str
) -> None:
    answer, _ = await ask(monkeypatch, SCHEMA, typed)
    assert answer == UserAnswer("cancel")


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        (
            {"type": "object", "properties": {"address": {"type": "object"}}},
            "its field 'address' has the unsupported type 'object'",
        ),
        (
            {"type": "object", "properties": {"names": {"type": "array", "items": {}}}},
            "its field 'names' is a list of free values",
        ),
        ({"type": "string"}, "it is not a flat object of fields"),
    ],
)
async def test_a_form_the_terminal_cannot_ask_is_declined(
    monkeypatch: pytest.MonkeyPatch, schema: Any, why: str
) -> None:
    answer, screen = await ask(monkeypatch, schema, "anything\n")
    assert answer == UserAnswer("decline")
    assert screen.endswith(
        f"This form cannot be filled in at a terminal ({why}); it was declined.\n"
    )
