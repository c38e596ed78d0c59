"""The user channel: how a tool asks the person a question or shows them something.

It sits beside the permission requester on purpose: a permission prompt is the policy asking
"may this call run?", while a tool such as ``ask_user``, a subagent that needs a decision, or
a remote MCP server's elicitation asks the person something about the task itself. Each door
supplies its own channel (a terminal prompt, MCP elicitation, a chat UI); a session without a
person gets ``NoUser``, whose refusal tells the model to carry on without asking.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
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


@dataclass(frozen=True, slots=True)
class UserAnswer:
    """The person's reply: accepted with text (and form data), declined, or dismissed."""

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
