"""Subagents: the ``task`` tool, which hands part of the work to an agent of its own.

A ``task`` call starts a subagent with its own conversation on a runtime of its own that
shares what must be shared and separates what must not (Kode's Task, Keen Code's
``delegate_task``, Claude Code's Task/Agent):

- shared with the parent: the workspace and its roots, the settings (rules, hooks), the
  permission policy itself — a "yes for this session" holds for both, a profile's stricter
  ``mode`` is a twin of it sharing the same approvals — the OS sandbox, and the person: its
  permission prompts reach the parent's requester labelled with its name
  (``PermissionRequest.agent``), its questions the parent's user channel;
- its own: transcript, read tracker, todo list, shell and processes (a session of its own),
  and the tools its profile allows, never ``task`` (a subagent cannot start subagents).

Several ``task`` calls of one turn run at once (``subagents.maxParallel``, default 4): the
call counts as read-only for the parent's executor, and the subagents' own calls share one
readers–writer gate, so two subagents never write at the same moment. Cancelling the parent
cancels the ``task`` call, which unwinds the subagent's run and ends its processes before the
call answers. The subagent answers with its final text and the files it changed; its tokens
and cost come in the result's structured data (``Conversation`` adds them to the session's).
A ``SubagentStop`` hook may send it back to work, as ``Stop`` does for the parent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import Field

from toolbelt.agent.compaction import closed_transcript, files_changed
from toolbelt.agent.conversation import MAX_STOP_CONTINUATIONS
from toolbelt.agent.message_codec import usage_to_json
from toolbelt.agent.profiles import AgentProfile
from toolbelt.agent.system_prompt import build_system_prompt
from toolbelt.agent.transcript import Transcript
from toolbelt.core.access import Access
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.events import Event, StateEvent
from toolbelt.core.gate import ReadWriteGate
from toolbelt.core.permission import (
    Answer,
    Ask,
    PermissionPolicy,
    PermissionRequest,
    PermissionRequester,
)
from toolbelt.core.registry import AnyTool, FilteredToolset, ToolRegistry, Toolset
from toolbelt.core.tool import Tool, ToolInput
from toolbelt.hooks.session_hooks import SessionHooks
from toolbelt.providers.catalog import total_cost
from toolbelt.providers.model import Usage
from toolbelt.runtime import Runtime, RuntimeOptions

if TYPE_CHECKING:
    from toolbelt.agent.loop import Agent

__all__ = ["SubagentRequester", "TaskInput", "TaskTool", "enable_subagents"]

_STRICTNESS = ("plan", "dont_ask", "default", "accept_edits", "bypass")
"""Permission modes, strictest first: a subagent never runs looser than its parent."""


class TaskInput(ToolInput):
    description: str = Field(
        min_length=1,
        max_length=80,
        description="What the subagent does, in 3 to 5 words (shown to the user).",
    )
    prompt: str = Field(
        min_length=1,
        description="The whole task for the subagent. It sees nothing of this conversation "
        "(unless its profile has no tools), so say everything it needs: the goal, the files, "
        "what to answer with.",
    )
    agent: str | None = Field(
        default=None, description="The subagent profile to use (default: general)."
    )


@dataclass
class _Host:
    """What the ``task`` tool needs of the agent it serves."""

    agent: Agent
    profiles: Mapping[str, AgentProfile]
    hooks: SessionHooks | None
    limiter: anyio.CapacityLimiter
    gate: ReadWriteGate = field(default_factory=ReadWriteGate)
    started: int = 0


class SubagentRequester(PermissionRequester):
    """The parent's requester, told which subagent is asking."""

    def __init__(self, inner: PermissionRequester, agent: str) -> None:
        self.inner = inner
        self.agent = agent

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        return await self.inner.ask(replace(request, agent=self.agent), decision)


class TaskTool(Tool[TaskInput]):
    """Runs a subagent and answers with its final text and the files it changed."""

    name = "task"
    title = "Delegate to a subagent"
    example = {
        "description": "Find the CLI entry point",
        "prompt": "Find where the command line is parsed and list its subcommands.",
        "agent": "explore",
    }

    def __init__(self, host: _Host) -> None:
        self._host = host
        listing = "\n".join(
            f"- {p.name}: {p.description}" for p in sorted(host.profiles.values(), key=_name)
        )
        self.description = (
            "Hand a self-contained part of the work to a subagent, which works on its own and "
            "answers with its result and the files it changed. Use it for searches over many "
            "files, independent changes, or a second opinion; several task calls in one turn "
            "run at the same time. Profiles (agent):\n" + listing
        )

    def is_readonly(self, args: TaskInput) -> bool:
        return True  # several run at once; what each subagent does meets the policy itself

    async def access(self, args: TaskInput, ctx: ToolContext) -> Access:
        return Access.none()

    async def run(self, args: TaskInput, ctx: ToolContext) -> ToolOutput:
        host = self._host
        name = args.agent or "general"
        profile = host.profiles.get(name)
        if profile is None:
            known = ", ".join(sorted(host.profiles))
            raise ToolError(f"There is no subagent profile {name!r}; choose one of: {known}.")
        async with host.limiter:
            host.started += 1
            return await _run_subagent(host, profile, args, ctx, f"{name}-{host.started}")


def enable_subagents(
    agent: Agent,
    profiles: Mapping[str, AgentProfile],
    *,
    hooks: SessionHooks | None = None,
    max_parallel: int = 4,
) -> TaskTool:
    """Give ``agent`` the ``task`` tool (added to its runtime's tools) over ``profiles``."""
    tool = TaskTool(_Host(agent, profiles, hooks, anyio.CapacityLimiter(max_parallel)))
    agent.runtime.add_tools(ToolRegistry([tool]))
    return tool


async def _run_subagent(
    host: _Host, profile: AgentProfile, args: TaskInput, ctx: ToolContext, agent_id: str
) -> ToolOutput:
    from toolbelt.agent.loop import Agent
    from toolbelt.agent.opening import open_client
    from toolbelt.sandbox.sandbox import SandboxSettings

    parent = host.agent.runtime
    child = Runtime(
        parent.session.root,
        toolset=_Borrowed(parent.toolset, profile),
        mode=parent.mode,
        add_dirs=parent.session.add_dirs,
        settings=parent.settings,
        requester=SubagentRequester(parent.executor.requester, profile.name),
        user=parent.executor.user,
        options=RuntimeOptions(sandbox=parent.session.peek(SandboxSettings)),
    )
    child.executor.policy = _policy_for(parent.policy, profile)
    child.executor.gate = host.gate
    model = open_client(profile.model) if profile.model else host.agent.model
    unsubscribe = child.events.subscribe(_reporter(ctx, profile.name))
    try:
        await child.open()
        system = build_system_prompt(
            child.session.root,
            mode=child.mode,
            tools=child.toolset.tools(),
            policy=child.policy,
        )
        agent = Agent(model, child, system=f"{system}\n\n# Your role\n\n{profile.system}")
        if profile.tools == ():  # no tools: it answers with the conversation's context
            agent.transcript = Transcript(closed_transcript(host.agent.transcript.messages))
        result = await agent.run(args.prompt)
        turns = list(result.turns)
        for active in range(MAX_STOP_CONTINUATIONS):
            if host.hooks is None or not host.hooks.configured("SubagentStop"):
                break
            if result.stop != "end_turn":
                break
            reason = await host.hooks.subagent_stop(profile.name, agent_id, active=active > 0)
            if reason is None:
                break
            result = await agent.run(f"SubagentStop hook feedback:\n{reason}")
            turns += result.turns
    finally:
        unsubscribe()
        with anyio.CancelScope(shield=True):
            await child.aclose()
            if profile.model:
                await model.aclose()
    changed = files_changed(agent.transcript.messages)
    usage = Usage.summed(turn.usage for turn in turns)
    cost = total_cost(turn.cost for turn in turns)
    text = result.text.strip() or "(The subagent ended without an answer.)"
    if result.stop != "end_turn":
        text += f"\n\n(The subagent stopped early: {result.stop.replace('_', ' ')}.)"
    if changed:
        text += "\n\nFiles changed: " + ", ".join(changed)
    structured = {
        "agent": profile.name,
        "agent_id": agent_id,
        "stop": result.stop,
        "files_changed": changed,
        "usage": usage_to_json(usage),
        "cost": cost,
        "turns": len(turns),
    }
    return ToolOutput.text(text, structured)


class _Borrowed(FilteredToolset):
    """The parent's tools a profile allows, without ``task``; opened and closed by the
    parent only (its MCP connections are shared, not reopened)."""

    def __init__(self, inner: Toolset, profile: AgentProfile) -> None:
        allowed = None if profile.tools is None else frozenset(profile.tools)

        def keep(tool: AnyTool) -> bool:
            if tool.name == "task":
                return False
            return allowed is None or tool.name in allowed or tool.claude_name in allowed

        super().__init__(inner, keep)

    async def open(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


def _policy_for(parent: PermissionPolicy, profile: AgentProfile) -> PermissionPolicy:
    """The parent's policy, or its twin in the profile's mode when that is stricter."""
    if profile.mode is None or parent.mode not in _STRICTNESS:
        return parent
    if _STRICTNESS.index(profile.mode) >= _STRICTNESS.index(parent.mode):
        return parent
    twin = getattr(parent, "in_mode", None)
    return twin(profile.mode) if twin is not None else parent


def _reporter(ctx: ToolContext, agent: str) -> Any:
    """Each finished call of the subagent, as a progress line of the ``task`` call."""

    def report(event: Event) -> None:
        if isinstance(event, StateEvent) and event.state.terminal:
            ctx.progress(f"{agent}: {event.tool}: {event.state.value}")

    return report


def _name(profile: AgentProfile) -> str:
    return profile.name
