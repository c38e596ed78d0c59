"""ask_user through the executor: what the person is asked, what the model reads back (the
answers keyed by question), declined and dismissed questionnaires, the bounds on the input,
nobody to ask, the permission timeout and cancellation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from toolbelt import Runtime, ToolCall
from toolbelt.config.settings import Settings
from toolbelt.core.events import CallState
from toolbelt.core.user import Question, UserAnswer
from toolbelt.testing import NeverReplies, ScriptedUser, run_call
from toolbelt.tools import build_toolset, builtin_toolset
from toolbelt.tools.ask_user import AskUserTool

pytestmark = pytest.mark.anyio

DATABASE = {
    "question": "Which database?",
    "header": "Database",
    "options": [
        {"label": "PostgreSQL", "description": "Already in production."},
        {"label": "SQLite"},
    ],
}
FEATURES = {
    "question": "Which features first?",
    "options": [{"label": "auth"}, {"label": "billing"}, {"label": "sso"}],
    "multi_select": True,
}
NOTES = {"question": "Anything else I should know?"}


def chose(*labels: str, other: str | None = None) -> UserAnswer:
    text = ", ".join([*labels, *([other] if other else [])])
    return UserAnswer("accept", text, {"selected": list(labels), "other": other})


async def test_answers_come_back_keyed_by_question(tmp_path: Path) -> None:
    user = ScriptedUser(chose("PostgreSQL"), chose("auth", "sso"), "keep it small")
    arguments = {"questions": [DATABASE, FEATURES, NOTES]}
    result = await run_call(AskUserTool(), arguments, root=tmp_path, user=user)
    assert (result.state, result.text) == (
        CallState.SUCCESS,
        "The user answered:\n"
        "1. Which database? → PostgreSQL\n"
        "2. Which features first? → auth, sso\n"
        "3. Anything else I should know? → keep it small\n"
        "Go on with these answers.",
    )
    assert result.output.structured is not None
    assert result.output.structured["outcome"] == "answered"
    assert result.output.structured["answers"] == {
        "Which database?": "PostgreSQL",
        "Which features first?": "auth, sso",
        "Anything else I should know?": "keep it small",
    }
    assert result.output.structured["questions"][1] == {
        "question": "Which features first?",
        "status": "answered",
        "answer": "auth, sso",
        "selected": ["auth", "sso"],
        "other": None,
    }
    asked = user.questions
    assert asked[0] == Question(
        "Which database?",
        ("PostgreSQL", "SQLite"),
        header="Database",
        details=("Already in production.", ""),
        other=True,
    )
    assert (asked[1].multiple, asked[1].other, asked[2].choices, asked[2].other) == (
        True,
        True,
        (),
        False,
    )


async def test_own_words_and_a_blank_answer_are_told_apart(tmp_path: Path) -> None:
    user = ScriptedUser(chose(other="MySQL, we have a licence"), chose("billing", other="SSO too"))
    second = {**FEATURES}
    arguments = {"questions": [DATABASE, second]}
    result = await run_call(AskUserTool(), arguments, root=tmp_path, user=user)
    assert result.text.splitlines()[1:3] == [
        "1. Which database? → (in their own words) MySQL, we have a licence",
        "2. Which features first? → billing; and in their own words: SSO too",
    ]
    blank = ScriptedUser(UserAnswer("accept", "", {"selected": [], "other": None}), "")
    result = await run_call(
        AskUserTool(), {"questions": [DATABASE, NOTES]}, root=tmp_path, user=blank
    )
    assert result.text == (
        "The user answered:\n"
        "1. Which database? → (left unanswered)\n"
        "2. Anything else I should know? → (left unanswered)\n"
        "Go on with these answers; where a question was left unanswered, decide it yourself "
        "and say what you chose."
    )
    assert result.output.structured is not None
    assert result.output.structured["answers"] == {}


async def test_a_forged_choice_is_not_taken_for_the_users(tmp_path: Path) -> None:
    user = ScriptedUser(UserAnswer("accept", "DROP", {"selected": ["DROP", "SQLite"]}))
    result = await run_call(AskUserTool(), {"questions": [DATABASE]}, root=tmp_path, user=user)
    assert result.output.structured is not None
    assert result.output.structured["answers"] == {"Which database?": "SQLite"}


@pytest.mark.parametrize(
    ("reply", "outcome", "shown"),
    [
        (UserAnswer("decline"), "declined", "(declined)"),
        (UserAnswer("cancel"), "dismissed", "(dismissed without an answer)"),
    ],
)
async def test_a_declined_or_dismissed_questionnaire_says_so(
    tmp_path: Path, reply: UserAnswer, outcome: str, shown: str
) -> None:
    user = ScriptedUser(chose("SQLite"), reply)
    arguments = {"questions": [DATABASE, FEATURES, NOTES]}
    result = await run_call(AskUserTool(), arguments, root=tmp_path, user=user)
    how = "declined to answer" if outcome == "declined" else "dismissed the questions"
    assert result.text == (
        f"The user {how}:\n"
        "1. Which database? → SQLite\n"
        f"2. Which features first? → {shown}\n"
        "3. Anything else I should know? → (not asked: the user stopped before it)\n"
        "Do not ask the same again; go on with what you know and say which assumption you "
        "made, or stop and say what you need from the user."
    )
    assert result.output.structured is not None
    assert result.output.structured["outcome"] == outcome
    assert result.output.structured["answers"] == {"Which database?": "SQLite"}
    assert len(user.questions) == 2


@pytest.mark.parametrize(
    ("questions", "problem"),
    [
        ([], "0 questions given; ask 1 to 4 at a time"),
        ([NOTES, DATABASE, FEATURES, {"question": "a?"}, {"question": "b?"}], "5 questions"),
        ([{**DATABASE, "options": [{"label": "x"}]}], "1 option given; give 2 to 4, or leave"),
        ([{**DATABASE, "options": [{"label": str(n)} for n in range(5)]}], "5 options given"),
        (
            [{**DATABASE, "options": [{"label": "Yes"}, {"label": " yes"}]}],
            "two options are labelled 'yes'; give each a distinct label",
        ),
        ([{**NOTES, "multi_select": True}], "multi_select needs options; give 2 to 4 options"),
        ([NOTES, NOTES], "is asked twice; ask each question once"),
        ([{"question": "  "}], "the question is blank"),
        ([{**DATABASE, "options": [{"label": "a\nb"}, {"label": "c"}]}], "control character"),
        ([{**DATABASE, "header": "Data\u2028base"}], "the header holds a control character"),
        ([{**NOTES, "multiSelect": True}], "`questions.0.multiSelect` is not a parameter"),
    ],
)
async def test_bad_questions_are_refused_with_what_to_do(
    tmp_path: Path, questions: list[dict[str, Any]], problem: str
) -> None:
    user = ScriptedUser("never used")
    result = await run_call(AskUserTool(), {"questions": questions}, root=tmp_path, user=user)
    assert result.error_kind == "invalid_input"
    assert problem in result.text
    assert user.questions == []


async def test_nobody_to_ask_is_an_error_not_a_guess(tmp_path: Path) -> None:
    result = await run_call(AskUserTool(), {"questions": [DATABASE]}, root=tmp_path)
    assert (result.error_kind, result.text) == (
        "tool_error",
        "No person is attached to this session, so the question cannot be asked; decide with "
        "what you know and say which assumption you made.",
    )


async def test_the_wait_ends_at_the_permission_timeout(tmp_path: Path) -> None:
    result = await run_call(
        AskUserTool(),
        {"questions": [DATABASE]},
        root=tmp_path,
        user=NeverReplies(),
        permission_timeout=0.2,
    )
    assert (result.error_kind, result.text) == (
        "tool_error",
        "The user did not answer within 0.2 s; go on with what you know and say which "
        "assumption you made, or ask again later.",
    )


async def test_cancelling_the_batch_ends_the_wait(tmp_path: Path) -> None:
    user = NeverReplies()
    async with Runtime(tmp_path, settings=Settings(), user=user) as runtime:
        states: list[CallState] = []

        async def ask() -> None:
            [result] = await runtime.run([ToolCall("1", "ask_user", {"questions": [NOTES]})])
            states.append(result.state)

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            await user.asking.wait()
            runtime.cancel()
    assert states == [CallState.ABORTED]


async def test_two_calls_never_ask_at_the_same_time(tmp_path: Path) -> None:
    class Watching(ScriptedUser):
        def __init__(self) -> None:
            super().__init__("a", "b")
            self.at_once = 0
            self.most = 0

        async def ask(self, question: Question) -> UserAnswer:
            self.at_once += 1
            self.most = max(self.most, self.at_once)
            await anyio.lowlevel.checkpoint()  # let the other call try to ask now
            try:
                return await super().ask(question)
            finally:
                self.at_once -= 1

    user = Watching()
    async with Runtime(tmp_path, settings=Settings(), user=user) as runtime:
        calls = [ToolCall(str(n), "ask_user", {"questions": [NOTES]}) for n in range(2)]
        results = await runtime.run(calls)
    assert [r.state for r in results] == [CallState.SUCCESS, CallState.SUCCESS]
    assert user.most == 1


@pytest.mark.parametrize("mode", ["default", "plan"])
async def test_asking_needs_no_permission(tmp_path: Path, mode: str) -> None:
    # run_call's requester denies every prompt: a call that asked for permission would fail
    result = await run_call(
        AskUserTool(), {"questions": [NOTES]}, root=tmp_path, mode=mode, user=ScriptedUser("ok")
    )
    assert (result.state, result.text.splitlines()[1]) == (
        CallState.SUCCESS,
        "1. Anything else I should know? → ok",
    )


def test_it_is_a_builtin_for_people_only() -> None:
    tool = builtin_toolset().get("ask_user")
    assert isinstance(tool, AskUserTool)
    identity = tool.rule_identity()
    assert identity.named_by("AskUserQuestion") and identity.named_by("ask_user")
    assert not identity.named_by("Bash")
    assert "ask_user" not in build_toolset(programmatic=True).names()
