"""The user channel in a terminal: a tool's question on standard error, the answer from
standard input.

Used by ``toolbelt call`` when a person is at the terminal. Choices are numbered and may be
answered by number or by name — several at once, separated by commas, when the question
allows more than one — or, where the question allows it, in the person's own words. An empty
line or the end of input dismisses the question. A question with a form (an MCP server's
elicitation schema) is asked field by field (``form_prompt``). Everything shown is escaped (a
label cannot move the cursor or recolour the prompt). The question is the terminal's only
interaction while it waits (``terminal_owner``), and its answer line says which question it
answers, so a question nobody answers never holds the call nor swallows another's answer.
"""

from __future__ import annotations

import re
import sys

from toolbelt.cli.form_prompt import fill_form, form_problem
from toolbelt.cli.terminal_owner import ReadLine, terminal_owner
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.core.user import Question, UserAnswer, UserChannel

__all__ = ["TerminalUser"]

_ABOUT = 80
"""Characters of the question restated on its answer line: enough for an MCP server's form
(``The MCP server `NAME` asks: …``) to say which server asks and what."""


class TerminalUser(UserChannel):
    """Asks on standard error, reads standard input."""

    async def ask(self, question: Question) -> UserAnswer:
        return await terminal_owner().interact(lambda read_line: _ask_blocking(question, read_line))

    async def show(self, message: str) -> None:
        sys.stderr.write(f"{escape_for_terminal(message, newlines=True, tabs=True)}\n")
        sys.stderr.flush()


def _ask_blocking(question: Question, read_line: ReadLine) -> UserAnswer:
    out = sys.stderr
    header = f"[{escape_for_terminal(question.header)}] " if question.header else ""
    out.write(
        f"\n\x1b[1;36m?\x1b[0m {header}{escape_for_terminal(question.prompt, newlines=True)}\n"
    )
    for number, choice in enumerate(question.choices, 1):
        detail = question.details[number - 1] if number <= len(question.details) else ""
        out.write(
            f"  {number}. {escape_for_terminal(choice)}"
            + (f" — {escape_for_terminal(detail)}" if detail else "")
        )
        out.write("\n")
    if question.choices:
        out.write(f"  ({_how_to_answer(question)})\n")
    about = " ".join(escape_for_terminal(question.header or question.prompt).split())
    about = about if len(about) <= _ABOUT else about[: _ABOUT - 1] + "…"
    if question.schema is not None:  # a form: one prompt per field, the content sent back
        problem = form_problem(question.schema)
        if problem is None:
            return fill_form(question.schema, out, read_line, about)
        out.write(f"This form cannot be filled in at a terminal ({problem}); it was declined.\n")
        return UserAnswer("decline")
    while True:
        out.write(f"answer to “{about}” > ")
        out.flush()
        text = read_line().strip()
        if not text:
            return UserAnswer("cancel")
        if not question.choices:
            return UserAnswer("accept", text)
        answer = _answer(question, text)
        if answer is not None:
            return answer
        out.write(f"Answer with {_how_to_answer(question)}.\n")


def _how_to_answer(question: Question) -> str:
    count = len(question.choices)
    how = f"a number from 1 to {count} or a choice's name"
    if question.multiple:
        how = "one or more numbers or names, separated by commas"
    if question.other:
        how += ", or type your own answer"
    return how + "; an empty line dismisses the question"


def _answer(question: Question, text: str) -> UserAnswer | None:
    """The answer ``text`` gives, or None when it gives none and must be typed again."""
    whole = _choice(question.choices, text)
    if whole is not None:  # a name may itself hold a comma
        return _chosen(question, [whole])
    if question.multiple:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if len(parts) == 1 and re.fullmatch(r"\d+(\s+\d+)+", parts[0]):  # "1 3" as "1, 3"
            parts = parts[0].split()
        picked = [_choice(question.choices, part) for part in parts]
        if parts and all(choice is not None for choice in picked):
            unique = list(dict.fromkeys(choice for choice in picked if choice is not None))
            return _chosen(question, unique)
    if question.other:
        return UserAnswer("accept", text, {"selected": [], "other": text})
    return None


def _chosen(question: Question, choices: list[str]) -> UserAnswer:
    ordered = [choice for choice in question.choices if choice in choices]
    return UserAnswer("accept", ", ".join(ordered), {"selected": ordered})


def _choice(choices: tuple[str, ...], text: str) -> str | None:
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1]
    return next((c for c in choices if c.casefold() == text.casefold()), None)
