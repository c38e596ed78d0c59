"""The user channel: how a tool asks the person a question or shows them something.

It sits beside the permission requester on purpose: a permission prompt is the policy asking
"may this call run?", while a tool such as ``ask_user``, a subagent that needs a decision, or
a remote MCP server's elicitation asks the person something about the task itself. Each door
supplies its own channel (a terminal prompt, MCP elicitation, a chat UI); a session without a
person gets ``NoUser``, whose refusal tells the model to carry on without asking.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolbelt.core.errors import ToolError

__all__ = ["NoUser", "Question", "UserAnswer", "UserChannel"]


@dataclass(frozen=True, slots=True)
class Question:
    """What to ask: a prompt, optionally a closed list of choices or a form's JSON Schema."""

    prompt: str
    choices: tuple[str, ...] = ()
    """When given, the answer's ``text`` is one of them."""
    schema: Mapping[str, Any] | None = None
    """A flat object schema (MCP elicitation's ``requestedSchema``) for a form answer."""
    header: str = ""
    """A short label for the question (``Database``), for UIs that show questions as tabs."""
    details: tuple[str, ...] = ()
    """A description per choice, in the choices' order ("" where a choice has none)."""
    multiple: bool = False
    """Any number of the choices may be picked; ``UserAnswer.data["selected"]`` lists them."""
    other: bool = False
    """An answer in the person's own words is accepted instead of (with ``multiple``: beside)
    the choices; it comes back in ``UserAnswer.data["other"]``."""


@dataclass(frozen=True, slots=True)
class UserAnswer:
    """The person's reply: accepted with text (and form data), declined, or dismissed.

    For a question with choices, ``data["selected"]`` lists the chosen choices and
    ``data["other"]`` holds an answer typed in the person's own words (when allowed);
    ``text`` is what the model reads: the choices and the typed answer, joined by ", ".
    """

    action: Literal["accept", "decline", "cancel"]
    text: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        """True when the person answered (rather than declining or dismissing the question)."""
        return self.action == "accept"


class UserChannel(ABC):
    """A way to reach the person behind the session."""

    @abstractmethod
    async def ask(self, question: Question) -> UserAnswer:
        """Ask ``question`` and wait for the reply (the caller bounds the wait)."""

    @abstractmethod
    async def show(self, message: str) -> None:
        """Tell the person something without waiting for a reply."""

    async def ask_all(self, questions: Sequence[Question]) -> list[UserAnswer]:
        """Ask several questions, in order; one answer per question asked.

        Asking stops at the first answer that is not accepted (the person declined or
        dismissed), so the list can be shorter than ``questions``. A door that can show them
        together (an MCP elicitation form) asks them all at once.
        """
        answers: list[UserAnswer] = []
        for question in questions:
            answers.append(await self.ask(question))
            if not answers[-1].accepted:
                break
        return answers

    def for_call(self, call_id: str) -> UserChannel:
        """The channel one call uses; a door that routes replies per request (MCP over HTTP
        streams each call's messages on its own response) binds the call here."""
        return self


class NoUser(UserChannel):
    """No person is attached (a headless run, a server without elicitation)."""

    async def ask(self, question: Question) -> UserAnswer:
        raise ToolError(
            "No person is attached to this session, so the question cannot be asked; decide "
            "with what you know and say which assumption you made."
        )

    async def show(self, message: str) -> None:
        return None
