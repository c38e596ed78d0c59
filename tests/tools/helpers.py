"""Drive built-in tools through the real executor, with a scripted permission requester."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.closing import close_at_end

from toolbelt.config.factory import build_policy, configure_session
from toolbelt.config.settings import Settings
from toolbelt.core.context import Session, SessionConfig
from toolbelt.core.executor import Executor, ToolCall, ToolCallResult
from toolbelt.core.permission import (
    Answer,
    Approval,
    Ask,
    PermissionRequest,
    PermissionRequester,
)
from toolbelt.tools import builtin_toolset


class Requester(PermissionRequester):
    """Answers every prompt the same way and records what was asked."""

    def __init__(self, approval: Approval = Approval.ONCE) -> None:
        self.approval = approval
        self.asked: list[tuple[str, str]] = []

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        self.asked.append((request.tool, decision.reason))
        return Answer(self.approval)


class Harness:
    """One session, one executor; ``call`` runs a tool and returns its result."""

    def __init__(
        self,
        root: Path,
        *,
        mode: str = "default",
        approve: bool = True,
        settings: Settings | None = None,
        **config: Any,
    ) -> None:
        """``settings`` are applied to the session as the runtime applies them."""
        self.root = root
        self.session = Session(root, config=SessionConfig(**config))
        if settings is not None:
            configure_session(self.session, settings)
        self.requester = Requester(Approval.ONCE if approve else Approval.DENY)
        self.executor = Executor(
            builtin_toolset(),
            self.session,
            policy=build_policy(self.session, mode, settings=settings),
            requester=self.requester,
        )
        close_at_end(self.session.aclose)  # a test that does not close it has it closed

    async def call(self, tool: str, **arguments: Any) -> ToolCallResult:
        return await self.executor.run_one(ToolCall("t", tool, arguments))


async def call_once(
    session: Session,
    tool: str,
    arguments: dict[str, Any],
    *,
    mode: str,
    settings: Settings,
    approve: bool = True,
) -> tuple[ToolCallResult, Requester]:
    """One call of a built-in tool in ``session`` under ``settings``' rules, every prompt
    answered ``approve``; the result, the requester (what was asked), and the session closed."""
    requester = Requester(Approval.ONCE if approve else Approval.DENY)
    configure_session(session, settings)
    executor = Executor(
        builtin_toolset(),
        session,
        policy=build_policy(session, mode, settings=settings),
        requester=requester,
    )
    try:
        return await executor.run_one(ToolCall("c1", tool, arguments)), requester
    finally:
        await session.aclose()
