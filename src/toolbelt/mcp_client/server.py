"""One configured MCP server as a toolset: its connection, its tools, its restarts.

The SDK session lives in a task of the toolset's own task group (entered by ``open``), so it
can be started from whichever task first needs it — a ``list_tools`` at start-up, or later —
and outlives the call that started it. It starts on the first ``list_tools`` (or at ``open``
for ``"startup": "eager"``), initializes and lists within the configured start-up time, and
follows ``notifications/tools/list_changed`` (one listing in flight and one pending, however
many arrive: ``coalesce``). When the server goes away (it exited, or broke
the stdio contract and was disconnected) the session ends and the next use starts it again,
after a back-off that doubles with each failure in a row (0.5 s up to 30 s, ``restart_backoff``).

A call runs under the server's call timeout; leaving its scope — timeout, or our own
cancellation — makes the SDK send ``notifications/cancelled``, so the remote work stops.
Remote progress becomes the call's progress events, and an elicitation goes to the person
through the calling tool's user channel (declined when nobody is there); at most
``server_requests.MAX_PENDING`` of the server's own requests are answered at once.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import mcp_types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp.client.session import ClientRequestContext, ClientSession, IncomingMessage
from mcp.shared.exceptions import MCPError

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.core.registry import AnyTool, Toolset
from toolbelt.mcp_client.coalesce import Coalesced
from toolbelt.mcp_client.config import ServerConfig, output_cap
from toolbelt.mcp_client.elicitation import ask_person, asked_person
from toolbelt.mcp_client.failures import (
    answered_badly,
    call_timed_out,
    connection_closed,
    could_not_run,
    could_not_start,
    describe_exit,
    first_error,
    not_open,
    refused,
    stopped_during,
)
from toolbelt.mcp_client.http_connection import ServerAnswers
from toolbelt.mcp_client.oauth_provider import LoginHandlers, login_command
from toolbelt.mcp_client.restart_backoff import RestartBackoff
from toolbelt.mcp_client.results import output_from_result
from toolbelt.mcp_client.server_requests import RequestCap, bounded_requests
from toolbelt.mcp_client.stdio import StdioConnection
from toolbelt.mcp_client.tool_listing import build_tools, list_remote_tools
from toolbelt.mcp_client.tools import McpTool, server_prefixes, tool_names
from toolbelt.mcp_client.transports import connect
from toolbelt.runners.runner import Runner

__all__ = ["McpServerToolset"]

T = TypeVar("T")


def client_info() -> types.Implementation:
    """Who toolbelt says it is to a server: its name and its real version."""
    from toolbelt.core.distribution import installed_version

    return types.Implementation(name="toolbelt", version=installed_version())


class McpServerToolset(Toolset):
    """The tools of one MCP server, each ``mcp__<server>__<tool>``."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        taken: frozenset[str] = frozenset(),
        prefix: str | None = None,
        spellings: tuple[str, ...] = (),
        login: LoginHandlers | None = None,
        runner: Callable[[], Runner] | None = None,
    ) -> None:
        """``taken``: names its tools must not use; ``prefix``: the server's part of their
        names (default: as ``server_prefixes`` makes it for a server alone); ``spellings``:
        the names rules may call it by (default: as configured and its prefix); ``login``: a
        person is there to log in to a remote server that asks (``toolbelt mcp-servers
        login``), else such a server is left ``needs-login``; ``runner``: gives the runner a
        stdio server starts with, at each start (None: unconfined)."""
        self.config = config
        self._runner = runner
        self.prefix = prefix or server_prefixes([config.name])[0]
        self.spellings = spellings or tuple(dict.fromkeys((config.name, self.prefix)))
        self.state = "not started"
        """``not started``, ``running``, ``stopped`` (it exited; restarts on use),
        ``needs-login`` (a remote server that wants a person to log in) or ``failed``."""
        self.instructions: str | None = None
        """What the server's ``initialize`` said about using it (``instructions``)."""
        self.capabilities: types.ServerCapabilities | None = None
        self._login = login
        self._answers = ServerAnswers()
        self.error: str | None = None
        self.skipped: list[str] = []
        """Remote tools left out, each with the reason (a schema toolbelt cannot use)."""
        self._taken = taken
        self.listed: tuple[types.Tool, ...] = ()
        """The server's own listing, as it gave it (the latest one)."""
        self._tools: dict[str, McpTool] = {}
        self._given: dict[str, str] = {}
        """Every name handed out this session (remote → ours): stable, never reused."""
        self._group: TaskGroup | None = None
        self._session: ClientSession | None = None
        self._stdio: StdioConnection | None = None
        self._stop: anyio.Event | None = None
        self._lock: anyio.Lock | None = None
        self._backoff = RestartBackoff()
        self._callers: list[ToolContext] = []
        self._refreshes = Coalesced(self._refresh)

    # -- Toolset ------------------------------------------------------------------------

    def tools(self) -> tuple[AnyTool, ...]:
        return tuple(self._tools.values())

    def get(self, name: str) -> AnyTool | None:
        return self._tools.get(name)

    async def list_tools(self) -> tuple[AnyTool, ...]:
        """Start the server if it is not running; a server that cannot start lists nothing
        (``state`` and ``error`` say why) rather than taking the other tools down."""
        with contextlib.suppress(ToolError):
            await self._ensure_started()
        return self.tools()

    async def open(self) -> None:
        """Enter the task group the session will live in (``aclose`` must run in the same
        task, as ``Runtime`` and ``async with`` do); an eager server starts here."""
        if self._group is not None:
            return
        self._lock = anyio.Lock()
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        if self.config.eager:
            await self.list_tools()

    async def aclose(self) -> None:
        """Stop the server (its whole process tree) and the task that held its session."""
        group, self._group = self._group, None
        if group is None:
            return
        if self._stop is not None:
            self._stop.set()
        group.cancel_scope.cancel()
        await group.__aexit__(None, None, None)

    async def start(self) -> None:
        """Start the server unless it runs; ``ToolError`` saying why it could not."""
        await self._ensure_started()

    async def request(self, what: str, send: Callable[[ClientSession], Awaitable[T]]) -> T:
        """``send`` a request other than a tool call (resources, prompts) on the running
        session, within the call timeout; ``ToolError`` saying what went wrong (``what``:
        the request, for the message)."""
        session = await self._ensure_started()
        try:
            with anyio.fail_after(self.config.call_timeout):
                return await send(session)
        except TimeoutError:
            raise call_timed_out(self.config.name, what, self.config.call_timeout) from None
        except MCPError as exc:
            if self._answers.login_required is not None:
                self.state, self.error = "needs-login", str(self._answers.login_required)
                raise ToolError(self.unavailable() or str(exc)) from exc
            raise refused(self.config.name, what, exc) from exc
        except Exception as exc:  # the transport's own failures
            why = self._describe_exit(first_error(exc))
            raise could_not_run(self.config.name, what, why) from exc

    def unavailable(self) -> str | None:
        """Why this server's tools cannot be called now, for the model; None if they can."""
        if self.state == "needs-login":
            return (
                f"The MCP server `{self.config.name}` needs a login before its tools can be "
                f"used: ask the user to run `{login_command(self.config.name)}`, and continue "
                "without it meanwhile."
            )
        if self.state == "failed" and self.error:
            return str(could_not_start(self.config.name, self.error))
        return None

    def remote_tools(self) -> tuple[McpTool, ...]:
        """The server's tools, as ``McpTool`` (with their remote names)."""
        return tuple(self._tools.values())

    def remote_tool(self, name: str) -> McpTool | None:
        """Our tool for the remote name ``name`` (or our own name for it)."""
        for tool in self._tools.values():
            if name in (tool.remote_name, tool.name):
                return tool
        return None

    # -- the connection -----------------------------------------------------------------

    async def _ensure_started(self) -> ClientSession:
        if self._group is None or self._lock is None:
            raise not_open(self.config.name)
        async with self._lock:
            if self._session is not None and not self._stopping():
                return self._session
            if self._group is None:
                raise not_open(self.config.name)
            await self._backoff.wait()
            try:
                with anyio.fail_after(self.config.start_timeout):
                    await self._group.start(self._run)
            except TimeoutError:
                self._failed(f"it did not finish starting within {self.config.start_timeout:g} s")
            except Exception as exc:  # whatever a foreign server or transport throws at start
                login = self._answers.login_required
                if login is not None:
                    self.state, self.error = "needs-login", str(login)
                else:
                    self._failed(self._describe_exit(first_error(exc)))
            if self._session is None:
                raise could_not_start(self.config.name, self.error)
            return self._session

    def _stopping(self) -> bool:
        """The running session is going away (its server exited or was disconnected)."""
        return self._stop is not None and self._stop.is_set()

    def _stop_session(self) -> None:
        """End the running session (its ``_run`` returns; the next use starts a new one)."""
        if self._stop is not None:
            self._stop.set()

    def _failed(self, why: str) -> None:
        self.state, self.error = "failed", why
        self._backoff.failed()

    async def _run(self, *, task_status: TaskStatus[None]) -> None:
        session: ClientSession | None = None
        stop = self._stop = anyio.Event()
        broke: BaseException | None = None
        try:
            runner = self._runner() if self._runner is not None else None
            transport, self._stdio = connect(
                self.config, stop, answers=self._answers, login=self._login, runner=runner
            )
            async with (
                transport as (raw_read, raw_write),
                bounded_requests(raw_read, raw_write, RequestCap(self.config.name)) as (
                    read,
                    write,
                ),
                ClientSession(
                    read,
                    write,
                    elicitation_callback=self._elicit,
                    message_handler=self._on_message,
                    client_info=client_info(),
                ) as session,
            ):
                opened = await session.initialize()
                self.instructions = getattr(opened, "instructions", None)
                self.capabilities = getattr(opened, "capabilities", None)
                await self._relist(session)
                self._session, self.state, self.error = session, "running", None
                task_status.started()
                await stop.wait()
        except Exception as exc:
            if self._session is not session or session is None:
                raise  # it failed to start: ``_ensure_started`` says why
            # the connection broke after it started (an HTTP server went away): the session
            # ends, the next use starts it again; the toolset's task group must not fail
            broke = first_error(exc)
        finally:
            # a newer run may already have replaced this one: leave its state alone
            if session is not None and self._session is session:
                self._session = None
                self.state = "stopped"
                self.error = self._describe_exit(broke)
                self._backoff.failed()

    def _describe_exit(self, exc: BaseException | None) -> str:
        why = describe_exit(self.config, self._stdio, exc, self._answers.describe())
        if self._stdio is not None and self._stdio.confined:
            why += (
                "; it runs inside the sandbox (the workspace's servers do), with the network "
                "off and nothing outside the workspace writable: if it needs them, the user "
                "can open them in their settings (`sandbox.mcpServers`)"
            )
        return why

    async def _relist(self, session: ClientSession) -> None:
        listing = await list_remote_tools(session)
        remote = listing.tools
        self.listed = tuple(remote)
        names = tool_names(self.prefix, (tool.name for tool in remote), self._taken, self._given)
        self._given.update(names)
        build = functools.partial(
            build_tools, remote, names, self.config.name, self._call, self.spellings
        )  # in a worker thread, abandoned when start-up time runs out (see tool_listing)
        built, skipped = await anyio.to_thread.run_sync(build, abandon_on_cancel=True)
        note = listing.note()
        self._tools, self.skipped = built, [*skipped, note] if note is not None else skipped

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification) and self._group is not None:
            self._refreshes.request(self._group)  # one in flight, one pending (``coalesce``)

    async def _refresh(self) -> None:
        session = self._session
        if session is not None:
            with contextlib.suppress(MCPError, OSError, anyio.ClosedResourceError):
                await self._relist(session)

    # -- calls --------------------------------------------------------------------------

    async def _call(self, remote: str, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.call(remote, arguments, ctx)

    async def call(
        self,
        remote: str,
        arguments: dict[str, Any],
        ctx: ToolContext,
        *,
        meta: types.RequestParamsMeta | None = None,
    ) -> ToolOutput:
        """Call the server's tool ``remote`` for the running call ``ctx`` (its progress and
        the server's questions go through it); ``meta`` goes in the request's ``_meta``.
        ``ConnectionLostError`` when the connection failed before the answer came."""
        session = await self._ensure_started()
        timeout = self.config.call_timeout

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            fraction = progress / total if total else None
            ctx.progress(
                message or f"{progress:g}" + (f" of {total:g}" if total else ""), fraction=fraction
            )

        self._callers.append(ctx)
        try:
            with anyio.fail_after(timeout):
                result = await session.call_tool(
                    remote, arguments, progress_callback=on_progress, meta=meta
                )
        except TimeoutError:
            raise call_timed_out(self.config.name, remote, timeout) from None
        except MCPError as exc:
            if self._answers.login_required is not None:  # its token stopped working
                self.state, self.error = "needs-login", str(self._answers.login_required)
                raise ToolError(self.unavailable() or str(exc)) from exc
            if connection_closed(exc) and self._session is session:
                self._stop_session()  # its transport is gone: the next use starts another
            if self._session is not session or self._stopping():
                why = self._describe_exit(exc)
                raise stopped_during(self.config.name, remote, why) from exc
            raise refused(self.config.name, remote, exc) from exc
        except RuntimeError as exc:  # a structured result that breaks the tool's output schema
            raise answered_badly(self.config.name, exc) from exc
        except Exception as exc:  # the transport's own failures (HTTP errors, a closed pipe)
            why = self._describe_exit(first_error(exc))
            raise could_not_run(self.config.name, remote, why) from exc
        finally:
            self._callers.remove(ctx)
        self._backoff.succeeded()
        if not isinstance(result, types.CallToolResult):
            raise ToolError(f"The MCP server `{self.config.name}` sent an unexpected result.")
        cap = output_cap(self.config.output_tokens)
        return output_from_result(result, session_id=ctx.session.id, call_id=ctx.call_id, cap=cap)

    async def _elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        return await ask_person(self.config.name, asked_person(self._callers), params)
