"""A client's reply to a question form is checked against what was offered: a value outside
the choices, a wrong type or a forged field never becomes the user's answer."""

from __future__ import annotations

from typing import Any

import pytest

from toolbelt.core.user import Question, UserAnswer
from toolbelt.mcp.question_form import answers_from_form, question_form

COLOUR = Question("Colour?", ("red", "blue"), other=True)
SIZES = Question("Sizes?", ("S", "M", "L"), multiple=True, other=True)
NOTE = Question("Note?")


def accepted(content: dict[str, Any]) -> list[UserAnswer]:
    return answers_from_form([COLOUR, SIZES, NOTE], {"action": "accept", "content": content})


def test_values_outside_the_choices_are_dropped() -> None:
    colour, sizes, note = accepted(
        {
            "answer_1": "purple",
            "answer_2": ["XL", "M", "S", "M"],
            "answer_2_other": 7,
            "answer_3": ["not", "text"],
        }
    )
    assert colour == UserAnswer("accept", "", {"selected": [], "other": None})
    assert sizes == UserAnswer("accept", "S, M", {"selected": ["S", "M"], "other": None})
    assert note == UserAnswer("accept", "")


def test_a_multiple_choice_that_is_not_a_list_picks_nothing() -> None:
    _, sizes, _ = accepted({"answer_2": "S", "answer_2_other": "  XS  "})
    assert sizes == UserAnswer("accept", "XS", {"selected": [], "other": "XS"})


@pytest.mark.parametrize(
    ("action", "expected"), [("decline", "decline"), ("cancel", "cancel"), (None, "cancel")]
)
def test_a_form_not_accepted_stops_every_question(action: str | None, expected: str) -> None:
    answers = answers_from_form([COLOUR, NOTE], {"action": action} if action else {})
    assert answers == [UserAnswer(expected), UserAnswer(expected)]


def test_only_choices_without_own_words_are_required() -> None:
    plain = Question("Pick", ("a", "b"))
    form = question_form([plain, COLOUR, NOTE], protocol="2025-11-25")
    assert form["requestedSchema"]["required"] == ["answer_1", "answer_3"]
