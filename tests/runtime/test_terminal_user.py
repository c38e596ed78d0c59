"""The terminal user channel: numbered choices answered by number or name, a retry on a
wrong answer, and an empty line or end of input dismissing the question."""

from __future__ import annotations

import io

import pytest

from toolbelt import Question, UserAnswer
from toolbelt.cli.user_prompt import TerminalUser

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("2\n", UserAnswer("accept", "blue")),
        ("RED\n", UserAnswer("accept", "red")),
        ("green\n3\n1\n", UserAnswer("accept", "red")),
        ("\n", UserAnswer("cancel")),
        ("", UserAnswer("cancel")),
    ],
)
async def test_choices(monkeypatch: pytest.MonkeyPatch, typed: str, expected: UserAnswer) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    monkeypatch.setattr("sys.stderr", stderr)
    answer = await TerminalUser().ask(Question("Colour?", ("red", "blue")))
    assert answer == expected
    assert "Colour?\n  1. red\n  2. blue\n> " in stderr.getvalue()


async def test_a_free_answer_and_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO("  the staging one \n"))
    monkeypatch.setattr("sys.stderr", stderr)
    user = TerminalUser()
    assert await user.ask(Question("Which server?")) == UserAnswer("accept", "the staging one")
    await user.show("Deploying now.")
    assert stderr.getvalue().endswith("> Deploying now.\n")
