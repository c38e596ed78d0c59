"""The runtime: one session, its settings, policy, hooks and executor, assembled in one place.

Every door opens tools the same way — a library user, ``toolbelt call``, ``toolbelt mcp``
(one runtime per connection) and, next, an agent loop and its subagents — so the order that
matters is written once: the session fixes the roots, the settings are read with the
workspace's trust (an untrusted repository's settings may only restrict), the policy applies
the settings' mode, rules and extra directories to that session, the hooks come from the same
settings, and the executor runs whichever toolset the caller injects (the built-ins by
default, or a filtered or extended set) — wrapped so that its file and command tools leave
checkpoints (``checkpoints``), unless the settings turn them off.

Building is synchronous and starts nothing, so a bad mode or root fails before anything has to
be closed; ``async with`` (or ``open``) opens the toolset (a toolset may hold connections) and
on exit closes the session — ending every process it started — and the toolset, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from toolbelt.checkpoints.session import Checkpoints
from toolbelt.checkpoints.toolset import CheckpointToolset
from toolbelt.config.factory import build_hooks, build_policy
from toolbelt.config.settings import Settings, load_settings, untrusted_notice
from toolbelt.core.context import Session, SessionConfig, ToolModel
from toolbelt.core.events import EventBus
from toolbelt.core.executor import Executor, ToolCall, ToolCallResult
from toolbelt.core.permission import PermissionRequester
from toolbelt.core.registry import CombinedToolset, Toolset
from toolbelt.core.user import UserChannel
from toolbelt.policy.policy import ToolbeltPolicy

if TYPE_CHECKING:
    from toolbelt.mcp_client.config import McpConfig
    from toolbelt.mcp_client.shared import SharedServers
    from toolbelt.mcp_client.toolset import McpToolset
    from toolbelt.providers.model import ModelClient
    from toolbelt.sandbox.sandbox import SandboxSettings

__all__ = ["Runtime"]

_MAX_NAME_MISSES = 64


class Runtime:
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
        config: SessionConfig | None = None,
        session_id: str | None = None,
        events: EventBus | None = None,
        permission_timeout: float = 300.0,
        user: UserChannel | None = None,
        mcp_servers: SharedServers | None = None,
        small_model: ModelClient | None = None,
    ) -> None:
        """Assemble everything; raises ``UsageError`` for a bad root, mode or directory.

        ``mode`` None means the settings' ``defaultMode`` (else ``default``); ``trusted``
        True applies the workspace's own settings in full for this runtime, None uses the
        stored trust; ``settings`` replaces reading the settings files altogether;
        ``requester`` answers permission prompts and ``user`` carries the tools' own questions
        to the person (``NoUser`` when nobody is there); ``mcp_servers`` are MCP servers the
        caller opened and shares between runtimes, used instead of starting the configured ones;
        ``small_model`` is the model tools
        may use for their own small jobs (web_fetch condensing a page against its prompt),
        reached as ``ToolContext.model`` — None leaves those jobs to the calling model.
        """
        self.session = Session(root, add_dirs=add_dirs, config=config, session_id=session_id)
        self.settings = (
            settings if settings is not None else load_settings(self.session.root, trusted=trusted)
        )
        self.policy: ToolbeltPolicy = build_policy(self.session, mode, settings=self.settings)
        self.mcp_config: McpConfig | None = None
        """The MCP servers configured for this workspace (None: a toolset was injected)."""
        self.mcp_servers: McpToolset | None = None
        """Their tools, when any server is configured."""
        if toolset is None:
            from toolbelt.tools import builtin_toolset

            # the skill tool lists the workspace's skills only when the workspace is trusted
            toolset = builtin_toolset(workspace=self.session.root, trusted=self.settings.trusted)
            toolset = self._with_mcp_servers(toolset, mcp_servers)
        self.toolset = toolset
        self.checkpoints = Checkpoints(
            self.session.root, session_id=self.session.id, settings=self.settings.checkpoints
        )
        """The workspace's checkpoints: list, undo and redo calls' changes (any process's)."""
        if self.settings.checkpoints.enabled:  # the tools record through the session's
            self.session.resource(Checkpoints, lambda: self.checkpoints)
            toolset = CheckpointToolset(toolset, self.checkpoints)
        self._closed = False
        self._listed_for: set[str] = set()
        """The unknown MCP tool names a listing was made for (``_list_for``)."""
        self.executor = Executor(
            toolset,
            self.session,
            policy=self.policy,
            requester=requester,
            hooks=build_hooks(self.session, self.settings),
            events=events,
            permission_timeout=permission_timeout,
            user=user,
            model=small_model,
        )

    def _with_mcp_servers(self, builtins: Toolset, shared: SharedServers | None) -> Toolset:
        """The built-ins plus the configured MCP servers' tools (``mcp_client``; its SDK is
        imported only when a server is configured), with ``tool_search`` over them: past the
        deferral threshold a request offers only the tools a search has loaded."""
        from toolbelt.mcp_client.config import load_mcp_config
        from toolbelt.toolsearch.tool import ToolSearchToolset

        self.mcp_config = load_mcp_config(
            self.session.root,
            trusted=self.settings.trusted,
            home=self.settings.home,
            approved=self.settings.approved,
        )
        if shared is not None:
            self.mcp_servers = shared.servers
            return ToolSearchToolset(CombinedToolset(builtins, shared))
        if not self.mcp_config.servers:
            return builtins
        from toolbelt.mcp_client.toolset import McpToolset

        self.mcp_servers = McpToolset(self.mcp_config.servers, taken=frozenset(builtins.names()))
        return ToolSearchToolset(CombinedToolset(builtins, self.mcp_servers))

    @property
    def mode(self) -> str:
        """The permission mode in force (after the settings' ``defaultMode``)."""
        return self.policy.mode

    @property
    def notice(self) -> str | None:
        """What an untrusted workspace's settings (and MCP servers) lost, to tell the user;
        None if nothing."""
        mcp = self.mcp_config.notice if self.mcp_config is not None else None
        notices = [n for n in (untrusted_notice(self.settings), mcp, self._mcp_rules_notice()) if n]
        return " ".join(notices) or None

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

    def use_small_model(self, model: ModelClient) -> None:
        """Let tools use ``model`` for their own small jobs (an agent lends its model to a
        runtime that has none, so web_fetch can answer its ``prompt`` from the page)."""
        self.executor.model = model

    def use_requester(self, requester: PermissionRequester) -> None:
        """Ask the user through ``requester`` from now on (a door that can only build its
        requester once it exists itself, like an MCP connection, sets it here)."""
        self.executor.requester = requester

    def use_sandbox(self, sandbox: SandboxSettings) -> None:
        """Run this runtime's commands in ``sandbox`` (the default is ``auto``); call it before
        the first command, as the doors do with what ``--sandbox`` and the settings chose."""
        from toolbelt.sandbox.sandbox import SandboxSettings  # the shell's modules load on use

        self.session.resource(SandboxSettings, lambda: sandbox)

    async def run(self, calls: Sequence[ToolCall]) -> list[ToolCallResult]:
        """Run a batch of the model's calls; one result per call, in order."""
        await self._list_for(calls)
        return await self.executor.run(calls)

    async def run_one(self, call: ToolCall) -> ToolCallResult:
        """Run a single call."""
        await self._list_for((call,))
        return await self.executor.run_one(call)

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
        the session closed, as nothing may run in a runtime that did not open."""
        try:
            await self.toolset.open()
        except BaseException:
            await self.session.aclose()
            raise

    async def aclose(self) -> None:
        """Close the session (ending every process it started), then the toolset, and delete
        the session's directory of spilled output, background jobs' output and the sandbox's
        temporary files: nothing can read them once the session is over. Closing twice (a
        door that closes its server inside ``async with runtime``) closes once."""
        from toolbelt.shell.output import remove_spill_dir  # the shell's modules load on use

        if self._closed:
            return
        self._closed = True
        try:
            await self.session.aclose()
        finally:
            try:
                await self.toolset.aclose()
            finally:
                remove_spill_dir(self.session.id)

    async def __aenter__(self) -> Runtime:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"<Runtime {self.session.root} mode={self.mode} tools={len(self.toolset)}>"
