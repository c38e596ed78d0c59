"""The terminal user channel: numbered choices answered by number or name, several at once
when the question allows it, an answer in the person's own words where allowed, a retry on a
wrong answer, and an empty line or end of input dismissing the question."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from toolbelt import Question, Runtime, RuntimeOptions, ToolCall, UserAnswer
from toolbelt.cli.user_prompt import TerminalUser

pytestmark = pytest.mark.anyio


def picked(*choices: str) -> UserAnswer:
    return UserAnswer("accept", ", ".join(choices), {"selected": list(choices)})


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("2\n", picked("blue")),
        ("RED\n", picked("red")),
        ("green\n3\n1\n", picked("red")),
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
    how = "(a number from 1 to 2 or a choice's name; an empty line dismisses the question)"
    assert f"Colour?\n  1. red\n  2. blue\n  {how}\nanswer to “Colour?” > " in stderr.getvalue()


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("1, 3\n", picked("auth", "sso")),
        ("3 1\n", picked("auth", "sso")),
        ("billing,SSO,billing\n", picked("billing", "sso")),
        ("2\n", picked("billing")),
        (
            "auth and audit logs\n",
            UserAnswer(
                "accept", "auth and audit logs", {"selected": [], "other": "auth and audit logs"}
            ),
        ),
    ],
)
async def test_several_choices_and_own_words(
    monkeypatch: pytest.MonkeyPatch, typed: str, expected: UserAnswer
) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    monkeypatch.setattr("sys.stderr", stderr)
    question = Question(
        "Which features?",
        ("auth", "billing", "sso"),
        header="Scope",
        details=("log in", "", "single sign-on"),
        multiple=True,
        other=True,
    )
    assert await TerminalUser().ask(question) == expected
    assert stderr.getvalue().startswith(
        "\n\x1b[1;36m?\x1b[0m [Scope] Which features?\n"
        "  1. auth — log in\n  2. billing\n  3. sso — single sign-on\n"
        "  (one or more numbers or names, separated by commas, or type your own answer; "
        "an empty line dismisses the question)\nanswer to “Scope” > "  # which one it answers
    )


async def test_what_the_model_wrote_cannot_drive_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    monkeypatch.setattr("sys.stderr", stderr)
    question = Question("Go?\x1b[2J", ("yes\x1b[31m", "no"), details=("\x07bell", ""))
    assert (await TerminalUser().ask(question)).text == "yes\x1b[31m"
    shown = stderr.getvalue()
    assert "\x1b[2J" not in shown and "\x1b[31m" not in shown and "\x07" not in shown
    assert "Go?\\x1b[2J\n  1. yes\\x1b[31m — \\x07bell\n" in shown


async def test_a_free_answer_and_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO("  the staging one \n"))
    monkeypatch.setattr("sys.stderr", stderr)
    user = TerminalUser()
    assert await user.ask(Question("Which server?")) == UserAnswer("accept", "the staging one")
    await user.show("Deploying now.")
    assert stderr.getvalue().endswith("answer to “Which server?” > Deploying now.\n")


async def test_asking_several_stops_at_the_first_dismissal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO("red\n\n"))
    monkeypatch.setattr("sys.stderr", stderr)
    questions = [Question("Colour?", ("red", "blue")), Question("Size?"), Question("Shape?")]
    answers = await TerminalUser().ask_all(questions)
    assert answers == [picked("red"), UserAnswer("cancel")]
    assert "Shape?" not in stderr.getvalue()


async def test_ask_user_at_a_silent_terminal_gives_up_at_the_permission_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_fd, write_fd = os.pipe()  # standard input that never sends a line
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(os.fdopen(read_fd, "rb")))
    monkeypatch.setattr("sys.stderr", io.StringIO())
    try:
        options = RuntimeOptions(permission_timeout=0.2)
        async with Runtime(tmp_path, user=TerminalUser(), options=options) as runtime:
            arguments = {"questions": [{"question": "Which server?"}]}
            [result] = await runtime.run([ToolCall("1", "ask_user", arguments)])
    finally:
        os.close(write_fd)  # the abandoned reader sees end of input and ends
    assert (result.error_kind, result.text) == (
        "tool_error",
        "The user did not answer within 0.2 s; go on with what you know and say which "
        "assumption you made, or ask again later.",
    )
