"""The user channel in a terminal: a tool's question on standard error, the answer from
standard input.

Used by ``toolbelt call`` when a person is at the terminal. Choices are numbered and may be
answered by number or by name; an empty line or the end of input dismisses the question.
Reading runs in a worker thread that is abandoned on cancellation, as the permission prompt's
does, so a question nobody answers never holds the call.
"""

from __future__ import annotations

import sys

import anyio

from toolbelt.core.user import Question, UserAnswer, UserChannel

__all__ = ["TerminalUser"]


class TerminalUser(UserChannel):
    """Asks on standard error, reads standard input."""

    async def ask(self, question: Question) -> UserAnswer:
        return await anyio.to_thread.run_sync(_ask_blocking, question, abandon_on_cancel=True)

    async def show(self, message: str) -> None:
        sys.stderr.write(f"{message}\n")
        sys.stderr.flush()


def _ask_blocking(question: Question) -> UserAnswer:
    out = sys.stderr
    out.write(f"\n\x1b[1;36m?\x1b[0m {question.prompt}\n")
    for number, choice in enumerate(question.choices, 1):
        out.write(f"  {number}. {choice}\n")
    while True:
        out.write("> ")
        out.flush()
        line = sys.stdin.readline()
        text = line.strip()
        if not text:
            return UserAnswer("cancel")
        if not question.choices:
            return UserAnswer("accept", text)
        chosen = _choice(question.choices, text)
        if chosen is not None:
            return UserAnswer("accept", chosen)
        out.write(f"Answer with a number from 1 to {len(question.choices)} or a choice's name.\n")


def _choice(choices: tuple[str, ...], text: str) -> str | None:
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1]
    return next((c for c in choices if c.lower() == text.lower()), None)
