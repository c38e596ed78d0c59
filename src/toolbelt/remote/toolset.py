"""``RemoteToolset``: the tools of a ``toolbelt mcp --http`` server, under their own names.

The connection is the MCP client's (``mcp_client.server.McpServerToolset``): one streamable
HTTP session, kept open and reused by every call, started again after it broke (with the
client's back-off), progress turned into the local call's progress events, the server's
questions (elicitation) put to the local person through the calling tool's user channel.

What differs from another MCP server's tools (``mcp__server__tool``, asking before each call):

- the tools keep their names (``read_file``, ``bash``…) and descriptions, so a model sees
  the toolset it would see locally, in every provider format;
- the remote server decides permissions: it runs with its own mode and rules (for a fleet,
  the headless policy: ``--mode dont_ask`` and allow rules), and a call it denies comes back
  as its error result. Locally a remote tool declares no effect of its own, so the local
  policy neither asks nor denies, and its hooks and events see the call as any other;
- every call carries an idempotency key (``_meta["toolbelt/idempotencyKey"]``), and a call
  whose connection failed before its answer came (``ConnectionLostError``) is sent again with
  the same key, up to ``retries`` times with a growing pause: the server runs it once and
  answers the retry with the first run's answer, so retrying an edit never edits twice;
- each call is bounded by ``call_timeout`` seconds (the server cancels it and ends its
  processes when the client gives up).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ConnectionLostError, UsageError
from toolbelt.core.registry import AnyTool, Toolset
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
from toolbelt.core.tool_hints import ToolHints
from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.metadata import UnusableToolError, capped_schema, unusable
from toolbelt.mcp_client.server import McpServerToolset

__all__ = ["RemoteTool", "RemoteToolset"]

MAX_PAUSE = 5.0


class RemoteTool(SchemaTool):
    """One tool of the remote server; ``run`` sends the call there (with retries)."""

    def __init__(self, remote: types.Tool, owner: RemoteToolset) -> None:
        why = unusable(remote.input_schema, remote.name)
        if why is not None:
            raise UnusableToolError(why)
        hints = remote.annotations or types.ToolAnnotations()
        super().__init__(
            remote.name,
            title=remote.title or hints.title or None,
            description=remote.description or remote.name,
            input_schema=capped_schema(remote.input_schema),
            hints=ToolHints.from_mcp(hints),
        )
        self.asks_user = True  # the remote policy may ask the person (elicitation)
        self._owner = owner

    async def access(self, args: SchemaArguments, ctx: ToolContext) -> Access:
        """No local effect: the remote server's policy decides the call."""
        return Access(
            AccessKind.NONE, summary=f"`{self.name}` on the toolbelt server {self._owner.url}"
        )

    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        return await self._owner.call(self.name, args.values(), ctx)


class RemoteToolset(Toolset):
    """The tools a ``toolbelt mcp --http`` server at ``url`` serves (``…/mcp``).

    ``token``: the bearer token (or ``token_file``, the file holding it, as the server's
    ready file names it); ``headers``: more headers to send; ``call_timeout``: seconds one
    call may take; ``start_timeout``: seconds to connect and list the tools; ``retries``:
    how often a call whose connection failed is sent again. Open it (``async with``, or with
    the runtime that serves it) before calling its tools: opening connects and lists them.
    """

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        token_file: str | Path | None = None,
        headers: Mapping[str, str] | None = None,
        call_timeout: float = 600.0,
        start_timeout: float = 30.0,
        retries: int = 3,
        retry_pause: float = 0.1,
        name: str = "remote",
    ) -> None:
        if token is not None and token_file is not None:
            raise UsageError("Give the token or the file holding it, not both.")
        if token_file is not None:
            token = _read_token(Path(token_file))
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        self.url = url
        self.retries = retries
        self.retry_pause = retry_pause
        self.server = McpServerToolset(
            ServerConfig(
                name=name,
                source=Path(url),
                transport="http",
                url=url,
                headers=sent,
                call_timeout=call_timeout,
                start_timeout=start_timeout,
            )
        )
        self._listed: tuple[types.Tool, ...] = ()
        self._tools: dict[str, RemoteTool] = {}
        self.skipped: list[str] = []
        """Remote tools left out, each with the reason (a schema toolbelt cannot use)."""

    # -- Toolset ------------------------------------------------------------------------

    def tools(self) -> tuple[AnyTool, ...]:
        return tuple(self._current().values())

    def get(self, name: str) -> AnyTool | None:
        return self._current().get(name)

    async def list_tools(self) -> tuple[AnyTool, ...]:
        """Connect (unless connected) and list the server's tools; ``ConnectionLostError``
        when the server cannot be reached."""
        await self.server.start()
        return self.tools()

    async def open(self) -> None:
        await self.server.open()
        try:
            await self.list_tools()
        except BaseException:
            await self.server.aclose()
            raise

    async def aclose(self) -> None:
        await self.server.aclose()

    # -- calls --------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        """Run the remote tool ``name`` for the local call ``ctx``, sending it again with the
        same idempotency key when the connection failed before the answer came."""
        key = {"toolbelt/idempotencyKey": uuid.uuid4().hex}  # the server's META_IDEMPOTENCY_KEY
        meta = cast(types.RequestParamsMeta, key)  # extra keys are allowed (PEP 728)
        pause, left = self.retry_pause, self.retries
        while True:
            try:
                return await self.server.call(name, arguments, ctx, meta=meta)
            except ConnectionLostError:
                if left == 0:
                    raise
            left -= 1
            ctx.progress(f"the connection to {self.url} failed; sending the call again")
            await anyio.sleep(pause * (1 + random.random() / 2))  # jitter: not all at once
            pause = min(MAX_PAUSE, pause * 2)

    def _current(self) -> dict[str, RemoteTool]:
        """The tools of the server's latest listing (it may change: ``list_changed``)."""
        listed = self.server.listed
        if listed is not self._listed:
            tools: dict[str, RemoteTool] = {}
            skipped: list[str] = []
            for remote in listed:
                try:
                    tools.setdefault(remote.name, RemoteTool(remote, self))
                except (UnusableToolError, UsageError) as exc:
                    skipped.append(f"{remote.name[:80]!r}: {exc}")
            self._listed, self._tools, self.skipped = listed, tools, skipped
        return self._tools


def _read_token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise UsageError(f"Cannot read the token file {path}: {exc.strerror}.") from exc
    if not token:
        raise UsageError(f"The token file {path} is empty.")
    return token
