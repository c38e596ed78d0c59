"""Which workspace ``toolbelt mcp`` serves when it is started without ``--root``.

A desktop MCP host starts its servers wherever it likes — often ``/`` or the home directory —
and a server that silently served that directory would let a model read the whole machine.
So, on stdio, without ``--root``:

- a client that declares the ``roots`` capability is asked for its roots (``roots/list``)
  once it has sent ``notifications/initialized``; the first ``file://`` root is the workspace
  and further ``file://`` roots count as inside it, like ``--add-dir`` (a multi-root editor
  window), while roots of other schemes are passed over. A client that answers with an error
  or no ``file://`` root gets the launch directory. The workspace is fixed for the
  connection: a later ``notifications/roots/list_changed`` does not move it (start the server
  again).
- a client without roots gets the directory the server was started in.

Either way ``/``, the home directory and any directory holding it (``/home``) are refused as a
workspace (or as an extra root): the reason and ``--root`` are told in one sentence on stderr
and as the error of every request, ``initialize`` included when it is known by then, and the
server exits with status 2 once the client's input ends. Requests that arrive while the roots
are awaited are held, then served in order.

``RootedStart`` stands in for the connection's ``McpServer`` until the workspace is known: it
answers ``initialize`` itself (the runtime does not exist yet) and hands every later message
to the server it then opens.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from toolbelt.core.errors import UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.mcp.call_tasks import CallSpawner
from toolbelt.mcp.envelope import error_reply
from toolbelt.mcp.plain_methods import agreed_version, initialize_result
from toolbelt.mcp.server import McpServer, OpenRuntime, Outbox

__all__ = ["ROOTS_REQUEST_ID", "RootedStart", "RuntimeForRoots", "refusal", "roots_from_result"]

ROOTS_REQUEST_ID = "toolbelt-roots-1"
"""The id of the one ``roots/list`` request (a string: the server's own requests count in
integers from 1)."""
REFUSED = -32000

RuntimeForRoots = Callable[[Path, list[Path]], OpenRuntime]
"""How to build the runtime for a workspace and its extra directories (building raises
``UsageError`` if it cannot)."""


def refusal(directory: Path, how: str, *, home: Path | None = None) -> str | None:
    """The sentence refusing ``directory`` as a workspace, or None when it may be one; ``how``
    says how it was chosen ("it is where the server was started", ...)."""
    real = Path(os.path.realpath(directory))
    real_home = Path(os.path.realpath(home or Path.home()))
    if real == Path("/"):
        what = "/, the whole file system,"
    elif real == real_home:
        what = f"{real}, your home directory,"
    elif real_home.is_relative_to(real):  # /home, /Users: every home directory in it
        what = f"{real}, which holds your home directory,"
    else:
        return None
    return (
        f"toolbelt mcp refuses to serve {what} as its workspace ({how}); pass --root with the "
        "project's directory in the server's arguments, e.g. "
        '"args": ["mcp", "--root", "/path/to/project"].'
    )


def roots_from_result(result: Any) -> list[Path]:
    """The local directories of a ``roots/list`` result, in the client's order (``file://``
    URIs on this host; others are passed over)."""
    roots = result.get("roots") if isinstance(result, dict) else None
    found: list[Path] = []
    for root in roots if isinstance(roots, list) else []:
        uri = root.get("uri") if isinstance(root, dict) else None
        if not isinstance(uri, str):
            continue
        parts = urlsplit(uri)
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            continue
        path = unquote(parts.path)
        if path.startswith("/"):
            found.append(Path(path))
    return found


class RootedStart:
    """One stdio connection whose workspace is chosen from the client's roots (see above)."""

    def __init__(self, runtime_for: RuntimeForRoots, launch: Path, outbox: Outbox) -> None:
        self._runtime_for = runtime_for
        self._launch = launch
        self._outbox = outbox
        self._server: McpServer | None = None
        self._initialize: tuple[Any, dict[str, Any]] | None = None
        self._wants_roots = False
        self._held: list[dict[str, Any]] = []
        self.refused: str | None = None
        """Why no workspace is served (then every request is answered with it)."""

    async def handle(self, message: dict[str, Any], group: CallSpawner) -> None:
        """Route one message: to the server once it is open, else hold it or answer it here."""
        if self._server is not None:
            await self._server.handle(message, group)
            return
        if self.refused is not None:
            await self._answer_refused(message)
            return
        method, request_id = message.get("method"), message.get("id")
        if method is None and request_id == ROOTS_REQUEST_ID and self._wants_roots:
            self._wants_roots = False
            await self._roots_answered(message, group)
        elif method == "initialize" and request_id is not None and self._initialize is None:
            await self._initialized(request_id, message.get("params") or {}, group)
        elif method == "notifications/initialized" and self._wants_roots:
            self._held.append(message)
            request = {"jsonrpc": "2.0", "id": ROOTS_REQUEST_ID, "method": "roots/list"}
            await self._outbox.send((request, None))
        else:
            self._held.append(message)

    async def start(self) -> None:
        """Nothing to open yet: the workspace is chosen once the client has said its roots."""

    async def input_ended(self, group: CallSpawner) -> None:
        """No roots can arrive any more: the requests held are served in the launch directory
        (or refused), so every request received is answered."""
        if self._server is None and self.refused is None and self._initialize is not None:
            self._wants_roots = False
            await self._open(self._launch, [], "the client's roots never came", group)

    def end_of_input(self) -> None:
        """The client sends nothing more (``McpServer.end_of_input``)."""
        if self._server is not None:
            self._server.end_of_input()

    def cancel_calls(self) -> None:
        """Cancel every call of the server, if one was opened (``McpServer.cancel_calls``)."""
        if self._server is not None:
            self._server.cancel_calls()

    async def aclose(self) -> None:
        """Close the server, if one was opened, ending every process its session started."""
        if self._server is not None:
            await self._server.aclose()

    async def _initialized(
        self, request_id: Any, params: dict[str, Any], group: CallSpawner
    ) -> None:
        self._initialize = (request_id, params)
        has_roots = isinstance((params.get("capabilities") or {}).get("roots"), dict)
        if not has_roots:
            how = "it is where the server was started, and the client offers no roots"
            self.refused = refusal(self._launch, how)
            if self.refused is not None:
                self._tell_refusal()
                await self._answer_refused({"id": request_id, "method": "initialize"})
                return
        version = agreed_version(params.get("protocolVersion"))
        # the tool list may grow with tool search once the workspace's servers are known
        grows = True
        result = initialize_result(version, grows, None if has_roots else self._launch)
        await self._outbox.send(({"jsonrpc": "2.0", "id": request_id, "result": result}, None))
        if has_roots:
            self._wants_roots = True
        else:
            await self._open(self._launch, [], "", group)

    async def _roots_answered(self, message: dict[str, Any], group: CallSpawner) -> None:
        roots = roots_from_result(message.get("result"))
        if not roots:
            await self._open(self._launch, [], "the client offers no file:// root", group)
            return
        for root in roots:
            self.refused = refusal(root, "the client offers it as a root")
            if self.refused is not None:
                self._tell_refusal()
                for held in self._held:
                    await self._answer_refused(held)
                self._held.clear()
                return
        await self._open(roots[0], roots[1:], "", group)

    async def _open(
        self, root: Path, extra: list[Path], why_launch: str, group: CallSpawner
    ) -> None:
        """Open the runtime for ``root``, then serve what was held, in order."""
        assert self._initialize is not None
        if why_launch:
            self.refused = refusal(root, f"it is where the server was started, and {why_launch}")
        server: McpServer | None = None
        if self.refused is None:
            try:
                server = McpServer(self._runtime_for(root, extra), self._outbox)
                await server.start()  # closed with the connection (``aclose``)
            except UsageError as exc:
                if server is not None:
                    await server.aclose()
                server = None
                self.refused = str(exc)
        if server is None or self.refused is not None:
            self._tell_refusal()
            for held in self._held:
                await self._answer_refused(held)
            self._held.clear()
            return
        request_id, params = self._initialize
        server.answer(request_id, "initialize", params)  # the client's capabilities and version
        self._server = server
        waiting, self._held = self._held, []
        for message in waiting:
            await server.handle(message, group)

    def _tell_refusal(self) -> None:
        print(f"toolbelt: {escape_for_terminal(self.refused or '')}", file=sys.stderr, flush=True)

    async def _answer_refused(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        if message.get("method") is None or request_id is None:
            return  # a notification or a response: nothing to answer
        reply = error_reply(request_id, REFUSED, self.refused or "")
        await self._outbox.send((reply, None))
