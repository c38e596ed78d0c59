"""The runtime: one session, its settings, policy, hooks and executor, assembled in one place.

Every door opens tools the same way — a library user, ``toolbelt call``, ``toolbelt demo``,
``toolbelt mcp`` (one runtime per connection) and the agent loop — and calls them through the
runtime (``run``, ``run_one``, ``cancel``), never through the executor behind it, so the order
that matters is written once: the session fixes the roots, the settings are read with the
workspace's trust (an untrusted repository's settings may only restrict) and applied to the
session (extra directories; the one catalogue of protected paths the path guard, the policy
and the sandbox share), the policy applies the settings' mode and rules, the hooks come from
the same settings, and the executor runs whichever toolset the caller injects (the built-ins by
default, or a filtered or extended set) — wrapped so that its file and command tools leave
checkpoints (``checkpoints``), unless the settings turn them off.

What a caller usually chooses is an argument (``root``, ``toolset``, ``mode``, ``add_dirs``,
``trusted``, ``settings``, the ``requester`` that answers permission prompts, the ``user``
channel tools ask through); the rest, each with a default, is one ``RuntimeOptions``.

Building is synchronous and starts nothing, so a bad mode or root fails before anything has to
be closed. The runtime has a lifecycle (``RuntimeState``, like httpx's client states):
``UNOPENED`` once built — calls may run already —, ``OPENED`` by ``async with`` (or ``open``),
which opens the toolset (a toolset may hold connections), and ``CLOSED`` by leaving it (or
``aclose``), which closes the session — ending every process it started — and the toolset,
once. A closed runtime refuses every call with a ``UsageError``, and so does opening one twice.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Self

from toolbelt.checkpoints.session import Checkpoints
from toolbelt.checkpoints.toolset import CheckpointToolset
from toolbelt.config.factory import build_hooks, build_policy, configure_session
from toolbelt.config.settings import Settings, load_settings, untrusted_notice
from toolbelt.core.authorization import read_allowed
from toolbelt.core.context import Session, SessionConfig, ToolModel
from toolbelt.core.errors import UsageError
from toolbelt.core.events import EventBus
from toolbelt.core.executor import Executor, ToolCall, ToolCallResult
from toolbelt.core.permission import Decision, PermissionRequester
from toolbelt.core.registry import CombinedToolset, Toolset
from toolbelt.core.resource import AsyncResource
from toolbelt.core.user import UserChannel
from toolbelt.policy.policy import ToolbeltPolicy

if TYPE_CHECKING:
    from toolbelt.mcp_client.config import McpConfig, ServerConfig
    from toolbelt.mcp_client.shared import SharedServers
    from toolbelt.mcp_client.toolset import McpToolset
    from toolbelt.providers.model import ModelClient
    from toolbelt.runners.runner import Runner
    from toolbelt.sandbox.settings import SandboxSettings

__all__ = ["Runtime", "RuntimeOptions", "RuntimeState"]

_MAX_NAME_MISSES = 64


class RuntimeState(enum.Enum):
    """Where a runtime is in its life; only ``CLOSED`` refuses calls."""

    UNOPENED = "unopened"
    """Built: calls may run, the toolset has not been opened."""
    OPENED = "opened"
    """``open`` (or ``async with``) opened the toolset."""
    CLOSED = "closed"
    """``aclose`` ended the session, its processes and the toolset: nothing runs any more."""


@dataclass(frozen=True, kw_only=True)
class RuntimeOptions:
    """What else a runtime is built with; every field has a default."""

    config: SessionConfig | None = None
    """Limits and switches of the session (``SessionConfig``: concurrency, read-before-write,
    background jobs); None: the defaults."""
    session_id: str | None = None
    """The session's id (hook input, spill directories); None: a random one."""
    events: EventBus | None = None
    """The bus every call's events go to; None: a new one (``Runtime.events``)."""
    permission_timeout: float = 300.0
    """Seconds a permission prompt, or a tool's question to the user, may wait for an answer."""
    sandbox: SandboxSettings | None = None
    """The OS sandbox commands run in; None: ``auto`` (``Runtime.use_sandbox`` changes it
    until the first command has run)."""
    small_model: ModelClient | None = None
    """A model tools may use for their own small jobs (web_fetch answering its ``prompt`` from
    a page), reached as ``ToolContext.model``; None leaves those jobs to the calling model."""
    mcp_servers: SharedServers | None = None
    """MCP servers the caller opened and shares between runtimes (the HTTP door opens the
    workspace's once for every session), used instead of starting the configured ones."""


class Runtime(AsyncResource):
    """Session, settings (with trust), policy, hooks and executor for one conversation."""

    def __init__(
        self,
        root: str | Path = ".",
        *,
        toolset: Toolset | None = None,
        mode: str | None = None,
        add_dirs: Sequence[str | Path] = (),
        trusted: bool | None = None,
        settings: Settings | None = None,
        requester: PermissionRequester | None = None,
        user: UserChannel | None = None,
        options: RuntimeOptions | None = None,
    ) -> None:
        """Assemble everything; raises ``UsageError`` for a bad root, mode or directory.

        ``toolset`` None serves the built-in tools and the workspace's configured MCP servers;
        ``mode`` None means the settings' ``defaultMode`` (else ``default``); ``trusted`` True
        applies the workspace's own settings in full for this runtime, None uses the stored
        trust; ``settings`` replaces reading the settings files altogether; ``requester``
        answers permission prompts (none: every prompt is refused) and ``user`` carries the
        tools' own questions to the person (none: ``NoUser``, nobody is there).
        """
        options = options if options is not None else RuntimeOptions()
        self.session = Session(
            root, add_dirs=add_dirs, config=options.config, session_id=options.session_id
        )
        if options.sandbox is not None:
            self._provide_sandbox(options.sandbox)
        self.settings = (
            settings if settings is not None else load_settings(self.session.root, trusted=trusted)
        )
        self.protections = configure_session(self.session, self.settings)
        """The session's protected paths: the path guard, the policy and the sandbox use these."""
        self.policy: ToolbeltPolicy = build_policy(
            self.session, mode, settings=self.settings, protections=self.protections
        )
        self.mcp_config: McpConfig | None = None
        """The MCP servers configured for this workspace (None: a toolset was injected)."""
        self.mcp_servers: McpToolset | None = None
        """Their tools, when any server is configured."""
        self.builtins_only = False
        """The toolset is the built-in tools and nothing else: listing it fetches nothing, so
        a door need not list it before its first request (each tool loads on first use)."""
        if toolset is None:
            from toolbelt.tools import builtin_toolset

            # the skill tool lists the workspace's skills only when the workspace is trusted,
            # and only those read_file would show without asking
            policy = self.policy
            toolset = builtin_toolset(
                workspace=self.session.root,
                trusted=self.settings.trusted,
                read_check=lambda path: read_allowed(policy, path),
            )
            builtins = toolset
            toolset = self._with_mcp_servers(toolset, options.mcp_servers)
            self.builtins_only = toolset is builtins
        self.toolset = toolset
        self.checkpoints = Checkpoints(
            self.session.root, session_id=self.session.id, settings=self.settings.checkpoints
        )
        """The workspace's checkpoints: list, undo and redo calls' changes (any process's)."""
        if self.settings.checkpoints.enabled:  # the tools record through the session's
            self.session.resource(Checkpoints, lambda: self.checkpoints)
            toolset = CheckpointToolset(toolset, self.checkpoints)
        self._state = RuntimeState.UNOPENED
        self._listed_for: set[str] = set()
        """The unknown MCP tool names a listing was made for (``_list_for``)."""
        self.executor = Executor(
            toolset,
            self.session,
            policy=self.policy,
            requester=requester,
            hooks=build_hooks(self.session, self.settings),
            events=options.events,
            permission_timeout=options.permission_timeout,
            user=user,
            model=options.small_model,
        )

    def _with_mcp_servers(self, builtins: Toolset, shared: SharedServers | None) -> Toolset:
        """The built-ins plus the configured MCP servers' tools (``mcp_client``; its SDK is
        imported only when a server is configured), with ``tool_search`` over them: past the
        deferral threshold a request offers only the tools a search has loaded."""
        from toolbelt.mcp_client.config import load_mcp_config, server_choice

        self.mcp_config = load_mcp_config(
            self.session.root,
            trusted=self.settings.trusted,
            home=self.settings.home,
            approved=self.settings.approved,
            choice=server_choice(self.settings),
        )
        if shared is None and not self.mcp_config.servers:
            return builtins
        from toolbelt.toolsearch.tool import ToolSearchToolset  # with a server only

        if shared is not None:
            self.mcp_servers = shared.servers
            return ToolSearchToolset(CombinedToolset(builtins, shared))
        from toolbelt.config.runners import session_runner
        from toolbelt.mcp_client.toolset import McpToolset
        from toolbelt.paths.containment import is_within

        session = self.session

        def runner(server: ServerConfig) -> Callable[[], Runner] | None:
            """The workspace's own servers start inside the session's sandbox (the runner
            rule); the user's own ones start as the user configured them."""
            if not is_within(server.source, session.root):
                return None
            return lambda: session_runner(session, "mcp")

        self.mcp_servers = McpToolset(
            self.mcp_config.servers, taken=frozenset(builtins.names()), runner=runner
        )
        return ToolSearchToolset(CombinedToolset(builtins, self.mcp_servers))

    @property
    def mode(self) -> str:
        """The permission mode in force (after the settings' ``defaultMode``)."""
        return self.policy.mode

    @property
    def notice(self) -> str | None:
        """Every notice (``notices``), one per line; None if there is none."""
        return "\n".join(self.notices) or None

    @property
    def notices(self) -> list[str]:
        """What to tell the user, one sentence each: what an untrusted workspace's settings
        (and MCP servers) lost, what changed since it was trusted, and configuration that was
        skipped (a broken MCP file, an unknown settings key)."""
        config = self.mcp_config
        found = [
            untrusted_notice(self.settings),
            config.notice if config is not None else None,
            self._mcp_rules_notice(),
            *self.settings.warnings,
            *(config.warnings if config is not None else ()),
        ]
        return [notice for notice in found if notice]

    @property
    def change_notices(self) -> list[str]:
        """The notices (among ``notices``) about parts of a trusted workspace that changed
        since it was trusted: a door may show each once per change rather than every run."""
        config = self.mcp_config
        changed = [
            untrusted_notice(self.settings) if self.settings.changed else None,
            config.notice if config is not None and config.changed else None,
        ]
        return [notice for notice in changed if notice]

    def _mcp_rules_notice(self) -> str | None:
        """The permission rules that name no configured MCP server (they match nothing)."""
        if self.mcp_servers is None:
            return None
        from toolbelt.mcp_client.rule_check import unknown_server_notice

        rules = [*self.settings.allow, *self.settings.ask, *self.settings.deny]
        return unknown_server_notice(rules, self.mcp_servers.servers)

    @property
    def events(self) -> EventBus:
        """State, progress and diff events of every call."""
        return self.executor.events

    @property
    def small_model(self) -> ToolModel | None:
        """The model tools use for their own small jobs (``ToolContext.model``), if any."""
        return self.executor.model

    @property
    def state(self) -> RuntimeState:
        """Where the runtime is in its life: built, opened or closed."""
        return self._state

    def use_small_model(self, model: ModelClient) -> None:
        """Let tools use ``model`` for their own small jobs (an agent lends its model to a
        runtime that has none, so web_fetch can answer its ``prompt`` from the page)."""
        self.executor.model = model

    def add_tools(self, toolset: Toolset) -> None:
        """Offer ``toolset``'s tools beside the runtime's own, under the same executor (an
        agent's ``task`` tool, which needs the agent to exist); a name both have is refused."""
        self.toolset = CombinedToolset(self.toolset, toolset)
        self.executor.toolset = self.toolset

    def use_sandbox(self, sandbox: SandboxSettings) -> None:
        """Run this runtime's commands in ``sandbox`` (the default is ``auto``), as the doors do
        with what ``--sandbox`` and the settings chose. Only before the first command: the
        shells it started run on in the sandbox they were started in, so a later choice is a
        ``UsageError`` rather than a choice that silently does nothing."""
        self._refuse_if_closed("choose a sandbox")
        # the sandbox's modules load with the first command: before they are, none has run
        loaded = sys.modules.get("toolbelt.sandbox.sandbox")
        if loaded is not None and self.session.peek(loaded.Sandbox) is not None:
            raise UsageError(
                "use_sandbox came after this runtime's first command, which already runs in "
                "the sandbox chosen then; choose it right after building the runtime, or pass "
                "RuntimeOptions(sandbox=...)."
            )
        self._provide_sandbox(sandbox)

    def _provide_sandbox(self, sandbox: SandboxSettings) -> None:
        from toolbelt.sandbox.settings import SandboxSettings

        self.session.provide(SandboxSettings, sandbox)

    async def run(self, calls: Sequence[ToolCall]) -> list[ToolCallResult]:
        """Run a batch of the model's calls; one result per call, in order."""
        self._refuse_if_closed("run tools")
        await self._list_for(calls)
        return await self.executor.run(calls)

    async def run_one(self, call: ToolCall) -> ToolCallResult:
        """Run a single call (what the MCP server and ``toolbelt call`` do)."""
        self._refuse_if_closed("run tools")
        await self._list_for((call,))
        return await self.executor.run_one(call)

    async def decide(self, call: ToolCall) -> Decision:
        """What the permission step would decide for ``call`` now — ``Allow``, ``Ask`` (the
        question the user would be asked) or ``Deny`` (why) — without running it or asking
        anyone: validation, PreToolUse hooks, the tool's ``access`` and the policy, as a run
        combines them. A call that cannot run raises the error its run would report.
        """
        self._refuse_if_closed("decide on calls")
        await self._list_for((call,))
        return await self.executor.decide(call)

    def cancel(self) -> None:
        """Abort the batches in flight: running calls and calls not yet started end
        ``aborted`` once their processes are gone; a ``run`` started afterwards is not
        affected."""
        self.executor.cancel()

    def _refuse_if_closed(self, what: str) -> None:
        if self._state is RuntimeState.CLOSED:
            raise UsageError(
                f"This runtime is closed, so it cannot {what}; build a new Runtime (its session "
                "and every process it started ended with it)."
            )

    async def _list_for(self, calls: Sequence[ToolCall]) -> None:
        """List the toolset once for each MCP tool name it does not know yet, so a library
        call works without a listing first, as in the CLI: servers start on their first
        listing. Each name is tried once and at most ``_MAX_NAME_MISSES`` names in all, so a
        model inventing names cannot make every call restart a failing server."""
        if self.mcp_servers is None:
            return
        for call in calls:
            name = call.name
            if not name.startswith("mcp__") or self.toolset.get(name) is not None:
                continue
            if name in self._listed_for or len(self._listed_for) >= _MAX_NAME_MISSES:
                continue
            self._listed_for.add(name)
            await self.toolset.list_tools()

    async def open(self) -> None:
        """Open the toolset (it may connect somewhere); a toolset that fails to open leaves
        the runtime closed, as nothing may run in a runtime that did not open. A runtime opens
        once: opening it again, or after it closed, is a ``UsageError``."""
        self._refuse_if_closed("open again")
        if self._state is RuntimeState.OPENED:
            raise UsageError("This runtime is already open; open it once (`async with`).")
        try:
            await self.toolset.open()
        except BaseException:
            await self._end(close_toolset=False)
            raise
        if self._state is RuntimeState.UNOPENED:  # not closed while the toolset opened
            self._state = RuntimeState.OPENED

    async def aclose(self) -> None:
        """Close the session (ending every process it started), then the toolset, and delete
        the session's directory of spilled output, background jobs' output and the sandbox's
        temporary files: nothing can read them once the session is over. Closing twice (a
        door that closes its server inside ``async with runtime``) closes once."""
        if self._state is not RuntimeState.CLOSED:
            await self._end(close_toolset=True)

    async def _end(self, *, close_toolset: bool) -> None:
        self._state = RuntimeState.CLOSED
        try:
            await self.session.aclose()
        finally:
            try:
                if close_toolset:
                    await self.toolset.aclose()
            finally:
                # only the shell's output module makes spill directories: a process that
                # never loaded it made none (a call of think does not load it to find out)
                output = sys.modules.get("toolbelt.shell.output")
                if output is not None:
                    output.remove_spill_dir(self.session.id)

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    def __repr__(self) -> str:
        return (
            f"<Runtime {self.session.root} mode={self.mode} tools={len(self.toolset)} "
            f"{self._state.value}>"
        )
