"""Tools' questions as one MCP elicitation form, and the form's answer back as answers.

An elicitation form is a flat object of primitive fields, so each question becomes one field:
a string for an open question, a string ``enum`` for a choice, an array of ``enum`` strings for
a multiple choice where the protocol has it (2025-11-25 on) and one boolean per choice before
that, plus an optional string beside the choices when the person may answer in their own
words. What the choices mean goes into the message, which every client shows. Values the
client sends back are checked against the choices offered: a stray one is dropped, never
passed on as if the person had picked it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolbelt.core.display import visible
from toolbelt.core.user import Question, UserAnswer

__all__ = ["answers_from_form", "question_form"]

ARRAY_VERSIONS = frozenset({"2025-11-25", "2026-07-28"})
"""Protocol revisions whose elicitation schema has multi-select (array of enum) fields."""


def question_form(questions: Sequence[Question], *, protocol: str) -> dict[str, Any]:
    """The ``elicitation/create`` parameters asking every question in one form."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for number, question in enumerate(questions, 1):
        key = _key(questions, number)
        field: dict[str, Any] = {"title": _title(questions, number)}
        if len(questions) > 1:
            field["description"] = question.prompt
        if not question.choices:
            properties[key] = {"type": "string", **field}
            required.append(key)
        elif not question.multiple:
            properties[key] = {"type": "string", **field, "enum": list(question.choices)}
            if not question.other:
                required.append(key)
        elif protocol in ARRAY_VERSIONS:
            items = {"type": "string", "enum": list(question.choices)}
            properties[key] = {"type": "array", **field, "items": items, "uniqueItems": True}
        else:  # no arrays before 2025-11-25: a checkbox per choice
            for index, choice in enumerate(question.choices, 1):
                properties[f"{key}_option_{index}"] = {
                    "type": "boolean",
                    "title": choice,
                    "description": f"{field['title']}: pick {choice!r}",
                    "default": False,
                }
        if question.choices and question.other:
            properties[f"{key}_other"] = {
                "type": "string",
                "title": "Or in your own words",
                "description": "Besides the choices" if question.multiple else "Instead",
            }
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"mode": "form", "message": _message(questions), "requestedSchema": schema}


def answers_from_form(questions: Sequence[Question], result: Mapping[str, Any]) -> list[UserAnswer]:
    """One answer per question from the client's reply to ``question_form``."""
    action = result.get("action")
    if action != "accept":
        stopped = UserAnswer("decline" if action == "decline" else "cancel")
        return [stopped for _ in questions]
    content = result.get("content")
    values: Mapping[str, Any] = content if isinstance(content, Mapping) else {}
    return [_answer(q, values, _key(questions, n)) for n, q in enumerate(questions, 1)]


def _answer(question: Question, values: Mapping[str, Any], key: str) -> UserAnswer:
    value = values.get(key)
    if not question.choices:
        return UserAnswer("accept", value.strip() if isinstance(value, str) else "")
    if question.multiple and any(name.startswith(f"{key}_option_") for name in values):
        picked = [
            choice
            for index, choice in enumerate(question.choices, 1)
            if values.get(f"{key}_option_{index}") is True
        ]
    elif question.multiple:
        picked = [c for c in question.choices if isinstance(value, list) and c in value]
    else:
        picked = [value] if isinstance(value, str) and value in question.choices else []
    typed = values.get(f"{key}_other") if question.other else None
    other = typed.strip() if isinstance(typed, str) and typed.strip() else None
    text = ", ".join([*picked, *([other] if other else [])])
    return UserAnswer("accept", text, {"selected": picked, "other": other})


def _key(questions: Sequence[Question], number: int) -> str:
    return "answer" if len(questions) == 1 else f"answer_{number}"


def _title(questions: Sequence[Question], number: int) -> str:
    header = questions[number - 1].header
    if header:
        return header
    return "Answer" if len(questions) == 1 else f"Question {number}"


def _message(questions: Sequence[Question]) -> str:
    if len(questions) == 1:
        return _described(questions[0], "")
    parts = [f"{len(questions)} questions:"]
    for number, question in enumerate(questions, 1):
        parts.append(_described(question, f"{number}. "))
    return "\n\n".join(parts)


def _described(question: Question, prefix: str) -> str:
    header = f"[{visible(question.header)}] " if question.header else ""
    lines = [f"{prefix}{header}{visible(question.prompt, newlines=True)}"]
    for index, choice in enumerate(question.choices):
        detail = question.details[index] if index < len(question.details) else ""
        if detail:
            lines.append(f"  - {visible(choice)}: {visible(detail)}")
    return "\n".join(lines)
