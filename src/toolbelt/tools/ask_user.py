"""ask_user: put one to four questions to the person and hand their answers to the model.

The questions go through the session's user channel (``ctx.user``): numbered choices at the
terminal, one elicitation form over MCP. Where nobody can be asked the channel refuses and the
call fails saying so; an answer is never guessed. A declined or dismissed questionnaire is
reported as such, with whatever was answered before it. The wait is bounded by the same
timeout as a permission prompt, and questions of concurrent calls never interleave.

Asking is not an effect on the workspace, so the call needs no permission (``INTERACT``);
Claude Code's rule name ``AskUserQuestion`` names it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import anyio
from pydantic import BaseModel, Field, model_validator

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.terminal_text import has_terminal_control
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.core.tool_hints import ToolHints
from toolbelt.core.user import Question, UserAnswer

__all__ = ["AskUserInput", "AskUserOutput", "AskUserTool"]

MAX_QUESTIONS = 4
MIN_OPTIONS, MAX_OPTIONS = 2, 4

DESCRIPTION = """\
Ask the user 1 to 4 questions when you need their decision to go on: a choice between \
approaches, a missing requirement, a preference you cannot infer. A question may offer 2 to 4 \
options (a short `label`, optionally a `description` of what it implies); the user can always \
answer in their own words instead, and with `multi_select` may pick several. Leave `options` \
out for an open question. If you recommend an option, list it first and end its label with \
"(Recommended)". Ask sparingly: when an assumption is cheap to undo, make it and say so. The \
answers come back keyed by question; a declined question comes back as declined, and where no \
one can be asked (a headless run) the call fails — then decide yourself and say what you \
assumed."""


class AskOption(ToolInput):
    """One choice offered for a question."""

    label: str = Field(
        min_length=1, max_length=80, description="The choice as the user sees it (1-5 words)."
    )
    description: str | None = Field(
        default=None, max_length=500, description="What choosing it means, or its trade-off."
    )


class AskQuestion(ToolInput):
    """One question."""

    question: str = Field(
        min_length=1, max_length=2000, description="The complete question, ending with '?'."
    )
    header: str | None = Field(
        default=None, max_length=30, description='A very short label, such as "Database".'
    )
    options: list[AskOption] | None = Field(
        default=None,
        description="2 to 4 choices; leave out for an open question. Own words are always allowed.",
    )
    multi_select: bool = Field(
        default=False, description="The user may pick several options (needs options)."
    )

    @model_validator(mode="after")
    def _check(self) -> AskQuestion:
        if not self.question.strip():
            raise ValueError("the question is blank; write the question to ask")
        if has_terminal_control(self.header or ""):
            raise ValueError("the header holds a control character; use plain text on one line")
        if self.options is None:
            if self.multi_select:
                raise ValueError("multi_select needs options; give 2 to 4 options or drop it")
            return self
        if not MIN_OPTIONS <= len(self.options) <= MAX_OPTIONS:
            raise ValueError(
                f"{_count(len(self.options), 'option')} given; give 2 to 4, or leave `options` "
                "out for an open question"
            )
        seen: set[str] = set()
        for option in self.options:
            label = option.label.strip()
            if not label or has_terminal_control(option.label):
                raise ValueError(
                    f"the option label {option.label!r} is blank or holds a control character; "
                    "use plain text on one line"
                )
            if label.casefold() in seen:
                raise ValueError(f"two options are labelled {label!r}; give each a distinct label")
            seen.add(label.casefold())
        return self


class AskUserInput(ToolInput):
    """Arguments of `ask_user`."""

    questions: list[AskQuestion] = Field(description="1 to 4 questions, asked in this order.")

    @model_validator(mode="after")
    def _check(self) -> AskUserInput:
        if not 1 <= len(self.questions) <= MAX_QUESTIONS:
            raise ValueError(
                f"{_count(len(self.questions), 'question')} given; ask 1 to 4 at a time (the "
                "most important first)"
            )
        texts = [q.question.strip() for q in self.questions]
        for text in texts:
            if texts.count(text) > 1:
                raise ValueError(f"the question {text!r} is asked twice; ask each question once")
        return self


AnswerStatus = Literal["answered", "unanswered", "declined", "dismissed", "not_asked"]


class QuestionAnswer(BaseModel):
    """What became of one question."""

    question: str
    status: AnswerStatus = Field(
        description="answered; unanswered (left blank); declined or dismissed by the user; "
        "not_asked (the user stopped before it)."
    )
    answer: str | None = Field(description="The answer as text; None unless answered.")
    selected: list[str] = Field(description="The labels of the options the user picked.")
    other: str | None = Field(description="What the user wrote in their own words, if anything.")


class AskUserOutput(BaseModel):
    """Structured result of `ask_user`."""

    outcome: Literal["answered", "declined", "dismissed"]
    answers: dict[str, str] = Field(description="Each answered question's answer, keyed by it.")
    questions: list[QuestionAnswer]


@dataclass
class _AskingTurn:
    """A session resource: one questionnaire at a time, so two calls' prompts never mix."""

    lock: anyio.Lock = field(default_factory=anyio.Lock)


class AskUserTool(Tool[AskUserInput]):
    """Ask the person through the session's user channel and return their answers."""

    name = "ask_user"
    title = "Ask the user"
    description = DESCRIPTION
    output_model = AskUserOutput
    example = {
        "questions": [
            {
                "question": "Which database should the service use?",
                "header": "Database",
                "options": [
                    {"label": "PostgreSQL (Recommended)", "description": "Already in prod."},
                    {"label": "SQLite", "description": "One file, no server."},
                ],
            }
        ]
    }
    # read-only: it changes nothing; one questionnaire at a time is _AskingTurn's job
    hints = ToolHints(readonly=True, destructive=False)
    asks_user = True  # runs alone: no permission prompt of another call beside it
    programmatic = False
    rule_aliases = ("AskUserQuestion",)

    async def access(self, args: AskUserInput, ctx: ToolContext) -> Access:
        count = len(args.questions)
        summary = f"ask the user {count} question{'s' if count > 1 else ''}"
        return Access(AccessKind.INTERACT, summary=summary)

    async def run(self, args: AskUserInput, ctx: ToolContext) -> ToolOutput:
        questions = [_question(q) for q in args.questions]
        turn = ctx.session.resource(_AskingTurn)
        answers: list[UserAnswer] | None = None
        with anyio.move_on_after(ctx.answer_timeout):
            async with turn.lock:
                answers = await ctx.user.ask_all(questions)
        if answers is None:
            raise ToolError(
                f"The user did not answer within {ctx.answer_timeout:g} s; go on with what you "
                "know and say which assumption you made, or ask again later."
            )
        return _result(args.questions, answers)


def _question(asked: AskQuestion) -> Question:
    options = asked.options or []
    return Question(
        asked.question.strip(),
        tuple(option.label.strip() for option in options),
        header=(asked.header or "").strip(),
        details=tuple((option.description or "").strip() for option in options),
        multiple=asked.multi_select,
        other=bool(options),
    )


def _result(asked: list[AskQuestion], answers: list[UserAnswer]) -> ToolOutput:
    items = [_item(q, answers[i] if i < len(answers) else None) for i, q in enumerate(asked)]
    stopped = next((a for a in answers if not a.accepted), None)
    outcome: Literal["answered", "declined", "dismissed"] = "answered"
    if stopped is not None:
        outcome = "declined" if stopped.action == "decline" else "dismissed"
    answered = {item.question: item.answer for item in items if item.answer is not None}
    structured = AskUserOutput(outcome=outcome, answers=answered, questions=items)
    return ToolOutput.text(_text(outcome, items), structured.model_dump(mode="json"))


def _item(asked: AskQuestion, answer: UserAnswer | None) -> QuestionAnswer:
    question = asked.question.strip()
    if answer is None:
        return _without_answer(question, "not_asked")
    if not answer.accepted:
        return _without_answer(question, "declined" if answer.action == "decline" else "dismissed")
    labels = [option.label.strip() for option in asked.options or []]
    if not labels:  # an open question: the text is the answer, not an "other" one
        text = answer.text.strip()
        if not text:
            return _without_answer(question, "unanswered")
        return QuestionAnswer(
            question=question, status="answered", answer=text, selected=[], other=None
        )
    picked = answer.data.get("selected")
    selected = [label for label in labels if isinstance(picked, list) and label in picked]
    other = answer.data.get("other")
    own = other.strip() if isinstance(other, str) and other.strip() else None
    parts = [*selected, *([own] if own else [])]
    if not parts:
        return _without_answer(question, "unanswered")
    return QuestionAnswer(
        question=question, status="answered", answer=", ".join(parts), selected=selected, other=own
    )


def _without_answer(question: str, status: AnswerStatus) -> QuestionAnswer:
    return QuestionAnswer(question=question, status=status, answer=None, selected=[], other=None)


def _text(outcome: str, items: list[QuestionAnswer]) -> str:
    lines = [f"{n}. {item.question} → {_shown(item)}" for n, item in enumerate(items, 1)]
    if outcome == "answered":
        head = "The user answered:"
        tail = "Go on with these answers."
        if any(item.status == "unanswered" for item in items):
            tail = "Go on with these answers; where a question was left unanswered, decide it "
            tail += "yourself and say what you chose."
        return "\n".join([head, *lines, tail])
    how = "declined to answer" if outcome == "declined" else "dismissed the questions"
    return "\n".join(
        [
            f"The user {how}:",
            *lines,
            "Do not ask the same again; go on with what you know and say which assumption you "
            "made, or stop and say what you need from the user.",
        ]
    )


def _shown(item: QuestionAnswer) -> str:
    if item.status != "answered":
        return {
            "unanswered": "(left unanswered)",
            "declined": "(declined)",
            "dismissed": "(dismissed without an answer)",
            "not_asked": "(not asked: the user stopped before it)",
        }[item.status]
    if item.other is None:
        return str(item.answer)
    if item.selected:
        return f"{', '.join(item.selected)}; and in their own words: {item.other}"
    return f"(in their own words) {item.other}"


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
