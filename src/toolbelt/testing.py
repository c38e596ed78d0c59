"""What you need to test your own tools, policies and permission prompts with toolbelt.

Everything here runs the real code paths — the runtime, the executor, the policy — with a
person replaced by a script::

    from toolbelt.testing import ScriptedRequester, run_call

    async def test_my_tool_asks_before_deploying(tmp_path):
        requester = ScriptedRequester(Answer(Approval.DENY, "not today"))
        result = await run_call(DeployTool(), {"env": "prod"}, root=tmp_path, requester=requester)
        assert result.error_kind == "permission_denied"
        assert requester.prompts == [("deploy", "deploy runs a command.")]

An agent built on toolbelt is tested the same way with ``ScriptedModel``, a model client that
plays back replies written in advance and keeps every request it was sent.

``run_call`` ignores the settings files of the machine it runs on (its own and the user's),
so a test does not depend on who runs it; pass ``settings`` to test rules and hooks.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from toolbelt.agent.scripted import ScriptedModel
from toolbelt.checkpoints.settings import CheckpointSettings
from toolbelt.config.settings import Settings
from toolbelt.core.context import Session, SessionConfig, ToolContext
from toolbelt.core.events import Event, EventBus, StateEvent
from toolbelt.core.executor import ToolCall, ToolCallResult
from toolbelt.core.permission import (
    Answer,
    Approval,
    Ask,
    PermissionRequest,
    PermissionRequester,
)
from toolbelt.core.registry import ToolRegistry
from toolbelt.core.tool import Tool
from toolbelt.core.user import NoUser, Question, UserAnswer, UserChannel
from toolbelt.runtime import Runtime, RuntimeOptions

__all__ = [
    "EventLog",
    "NeverAnswers",
    "NeverReplies",
    "ScriptedModel",
    "ScriptedRequester",
    "ScriptedUser",
    "run_call",
    "tool_context",
]


class ScriptedRequester(PermissionRequester):
    """Answers permission prompts from a script, in order, and records every question.

    When the script runs out it denies, saying so, so a test that asks more than it expected
    fails on an assertion rather than hanging.
    """

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[PermissionRequest, Ask]] = []

    @property
    def prompts(self) -> list[tuple[str, str]]:
        """What a person would have read, in order: each question's tool and reason."""
        return _prompts(self.asked)

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        self.asked.append((request, decision))
        if self.answers:
            return self.answers.pop(0)
        return Answer(Approval.DENY, "The test's script of answers ran out.")


class NeverAnswers(PermissionRequester):
    """A person who never answers: the executor's permission timeout or a cancel must end
    the wait. ``asking`` is set once the first question arrives."""

    def __init__(self) -> None:
        self.asked: list[tuple[PermissionRequest, Ask]] = []
        self.asking = anyio.Event()

    @property
    def prompts(self) -> list[tuple[str, str]]:
        """Each question's tool and reason, in order."""
        return _prompts(self.asked)

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        self.asked.append((request, decision))
        self.asking.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable: sleep_forever returned")


def _prompts(asked: list[tuple[PermissionRequest, Ask]]) -> list[tuple[str, str]]:
    return [(request.tool, decision.reason) for request, decision in asked]


class ScriptedUser(UserChannel):
    """A person who replies to tools' questions from a script and reads what they are shown.

    Strings in the script are accepted answers; ``UserAnswer`` objects are replied as they
    are (to decline, say). When the script runs out the question is dismissed (``cancel``).
    """

    def __init__(self, *replies: str | UserAnswer) -> None:
        self.replies = list(replies)
        self.questions: list[Question] = []
        self.shown: list[str] = []

    async def ask(self, question: Question) -> UserAnswer:
        self.questions.append(question)
        if not self.replies:
            return UserAnswer("cancel")
        reply = self.replies.pop(0)
        return UserAnswer("accept", reply) if isinstance(reply, str) else reply

    async def show(self, message: str) -> None:
        self.shown.append(message)


class NeverReplies(UserChannel):
    """A person who sees a tool's question and never replies: the permission timeout or a
    cancel must end the wait. ``asking`` is set once the first question arrives; what they are
    shown is kept in ``shown``."""

    def __init__(self) -> None:
        self.questions: list[Question] = []
        self.shown: list[str] = []
        self.asking = anyio.Event()

    async def ask(self, question: Question) -> UserAnswer:
        self.questions.append(question)
        self.asking.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable: sleep_forever returned")

    async def show(self, message: str) -> None:
        self.shown.append(message)


class EventLog:
    """Every event of an ``EventBus``, in order; ``states(call_id)`` tells a call's story."""

    def __init__(self, events: EventBus) -> None:
        self.events: list[Event] = []
        events.subscribe(self.events.append)

    def states(self, call_id: str) -> list[str]:
        """The states ``call_id`` went through (``pending``, ``executing``, ``success``...)."""
        return [
            event.state.value
            for event in self.events
            if isinstance(event, StateEvent) and event.call_id == call_id
        ]


_NO_CHECKPOINTS = CheckpointSettings(enabled=False)


async def run_call(
    tool: Tool[Any],
    arguments: str | Mapping[str, Any] | None = None,
    *,
    root: str | Path,
    mode: str = "default",
    requester: PermissionRequester | None = None,
    settings: Settings | None = None,
    config: SessionConfig | None = None,
    permission_timeout: float = 300.0,
    user: UserChannel | None = None,
) -> ToolCallResult:
    """Run one call of ``tool`` the way every door does (validation, hooks, policy, the user's
    answer, the tool), in a session of its own that is closed afterwards. Without
    ``settings``, no settings file is read and no checkpoint is recorded (a test's changes
    do not belong in the user's undo history)."""
    runtime = Runtime(
        root,
        toolset=ToolRegistry([tool]),
        mode=mode,
        settings=settings if settings is not None else Settings(checkpoints=_NO_CHECKPOINTS),
        requester=requester,
        user=user,
        options=RuntimeOptions(config=config, permission_timeout=permission_timeout),
    )
    async with runtime:
        return await runtime.run_one(ToolCall("test-1", tool.name, arguments))


def tool_context(
    session: Session,
    tool_name: str = "test",
    call_id: str = "test-1",
    *,
    user: UserChannel | None = None,
) -> ToolContext:
    """A context to call a tool's ``access`` or ``run`` directly, without the executor."""
    return ToolContext(session, call_id, tool_name, EventBus(), user=user or NoUser())
