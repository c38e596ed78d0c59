"""``toolbelt mcp``: serve the tools to an MCP client over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import signal
import socket
import sys
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import anyio

from toolbelt.cli.mcp_token import kept_token, run_token, token_path
from toolbelt.cli.notices import print_notices
from toolbelt.cli.sandbox_option import sandbox_settings
from toolbelt.core.errors import UsageError
from toolbelt.core.permission import PermissionRequester
from toolbelt.core.registry import ToolRegistry
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.core.user import UserChannel
from toolbelt.runtime import Runtime

if TYPE_CHECKING:  # the HTTP door's modules load with the HTTP door: stdio answers sooner
    from toolbelt.cli.toolset_spec import ToolsetFactory
    from toolbelt.mcp.http import HttpOptions
    from toolbelt.mcp.http_sessions import Limits

__all__ = ["mcp_limits", "serve_mcp", "token_path"]

TOKEN_ENV = "TOOLBELT_MCP_TOKEN"


def serve_mcp(
    *,
    root: str | None,
    mode: str | None,
    add_dirs: list[str],
    http: str | None = None,
    allow_remote: bool = False,
    token_file: str | None = None,
    trust_workspace: bool = False,
    no_auth: bool = False,
    limits: Limits | None = None,
    toolset_spec: str | None = None,
    sandbox: str | None = None,
    rotate_token: bool = False,
    port: int | None = None,
    ready_file: str | None = None,
    idle_exit: float | None = None,
    max_lifetime: float | None = None,
) -> int:
    """Run the server until the client disconnects (stdio) or SIGTERM (HTTP).

    ``root`` None: on stdio the client's roots choose the workspace, else the launch directory
    (``mcp.roots``); on HTTP the launch directory. Neither may be ``/`` or the home directory.
    """
    trusted = True if trust_workspace else None
    if port is not None and http is None:
        http = ""  # --port alone means HTTP
    try:
        factory: ToolsetFactory | None = None
        if toolset_spec is not None:
            from toolbelt.cli.toolset_spec import load_toolset_factory

            factory = load_toolset_factory(toolset_spec)
        # no command the tools run may read a token file, even one the stdio door does not use
        given = [Path(token_file).resolve()] if token_file else []
        if http is None:
            for given_option, value in (
                ("--ready-file", ready_file),
                ("--idle-exit", idle_exit),
                ("--max-lifetime", max_lifetime),
            ):
                if value is not None:
                    raise UsageError(
                        f"{given_option} applies to the HTTP server; add --http (or --port)."
                    )
            return _serve_stdio(
                factory,
                root,
                mode=mode,
                add_dirs=add_dirs,
                trusted=trusted,
                sandbox=sandbox,
                given=given,
            )
        if root is None:
            from toolbelt.mcp.roots import refusal

            launch = Path.cwd()
            refused = refusal(launch, "it is where the server was started")
            if refused is not None:
                raise UsageError(refused)
            root = str(launch)
        # HTTP: the mode, directories and sandbox are checked up front; each session builds its
        # own runtime and toolset (none is made here that nobody would close)
        runtime = Runtime(
            root, toolset=ToolRegistry(), mode=mode, add_dirs=add_dirs, trusted=trusted
        )
        print_notices(runtime)
        sandboxing = sandbox_settings(runtime.settings, sandbox, secrets=given)
        host, port = _address(http, port)
        for name, seconds in (("--idle-exit", idle_exit), ("--max-lifetime", max_lifetime)):
            if seconds is not None and not seconds > 0:
                raise UsageError(f"{name} wants a number of seconds above 0, not {seconds:g}.")
        remote = not _loopback(host)
        token = _given_token(token_file)
        if remote and not allow_remote:
            raise UsageError(
                f"Refusing to listen on {host}: only loopback addresses are allowed unless "
                "you pass --allow-remote (with a bearer token)."
            )
        if remote and token is None:
            raise UsageError(
                "--allow-remote needs a bearer token: put it in a file and pass --token-file, "
                f"or in ${TOKEN_ENV}; it is never accepted on the command line."
            )
        given_one = "--token-file" if token_file else f"${TOKEN_ENV}"
        if no_auth and token is not None:
            raise UsageError(
                f"--no-auth and a token ({given_one}) contradict each other; pick one."
            )
        if rotate_token and (no_auth or token is not None):
            given_one = "--no-auth" if no_auth else given_one
            raise UsageError(
                f"--rotate-token renews the token toolbelt keeps for a port; with {given_one} "
                "there is none to renew, so leave one of them out."
            )
    except UsageError as exc:
        print(f"toolbelt: {escape_for_terminal(str(exc))}", file=sys.stderr)
        return 2
    try:
        listener = _listen(host, port)
    except OSError as exc:
        why = "the address is already in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        print(f"toolbelt: cannot listen on {http}: {why}; choose another port.", file=sys.stderr)
        return 1
    asked_port, port = port, listener.getsockname()[1]
    kept: Path | None = None
    why_new = ""
    if token is None and not no_auth:
        try:
            if asked_port == 0:  # no saved client can name a port chosen afresh each start
                kept, token = run_token(port)
            else:
                kept, token, why_new = kept_token(port, rotate=rotate_token)
        except OSError as exc:
            listener.close()
            print(
                f"toolbelt: cannot keep the token in {token_path(port)}: {exc.strerror}; pass "
                "--token-file FILE with a token of your own.",
                file=sys.stderr,
            )
            return 1
        sandboxing = replace(sandboxing, secrets=(*sandboxing.secrets, kept))
    token_source = kept or (Path(token_file).resolve() if token_file else None)
    from toolbelt.mcp.http import HttpOptions
    from toolbelt.mcp.http_sessions import Limits

    options = HttpOptions(
        runtime.session.root,
        mode,
        host,
        port,
        add_dirs=tuple(add_dirs),
        token=token,
        trusted=trusted,
        remote=remote,
        limits=limits or Limits(),
        toolset=factory,
        sandbox=sandboxing,
        token_source=token_source,
        idle_exit=idle_exit,
        max_lifetime=max_lifetime,
    )
    _announce(
        host,
        port,
        token_source,
        no_auth,
        kept=kept is not None and asked_port != 0,
        why_new=why_new,
    )
    ready = Path(ready_file).resolve() if ready_file else None
    try:
        _run(options, listener, ready)
    finally:
        if kept is not None and asked_port == 0:
            kept.unlink(missing_ok=True)
    return 0


def mcp_limits(args: argparse.Namespace) -> Limits | None:
    """The HTTP door's limits from the command line; None on stdio, which has none (and so
    does not load the HTTP door's modules)."""
    if args.http is None and args.port is None:
        return None
    from toolbelt.mcp.http_sessions import Limits

    return Limits(
        max_sessions=args.max_sessions,
        max_inflight=args.max_calls,
        idle_timeout=args.session_idle_timeout,
        request_timeout=args.request_timeout,
    )


def _run(options: HttpOptions, listener: socket.socket, ready: Path | None) -> None:
    import uvicorn

    from toolbelt.mcp.allocator import tune_allocator
    from toolbelt.mcp.http import Stopping, build_app
    from toolbelt.mcp.http_protocol import with_head_timeout
    from toolbelt.mcp.ready_file import remove_ready_file, write_ready_file

    tune_allocator()  # before the server's threads start: large bodies are given back
    stopping = Stopping()

    class Server(uvicorn.Server):
        """uvicorn's server, telling the application at once that it is stopping, and
        letting the calls in flight finish before the port closes (see ``Stopping``); it
        writes the ready file once it serves."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            stopping.began = True
            super().handle_exit(sig, frame)

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if ready is not None and self.started and not self.should_exit:
                write_ready_file(ready, _url(options.host, options.port), options.token_source)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await stopping.drain(forced=lambda: self.force_exit)
            await super().shutdown(sockets)

    config = uvicorn.Config(
        build_app(options, stopping),
        http=with_head_timeout(options.limits.request_timeout),
        log_level="warning",
        lifespan="on",
        timeout_keep_alive=5,
    )
    # uvicorn re-raises SIGTERM/SIGINT after its graceful stop, to the handlers it found; with
    # the defaults the process would die there, before the token file is removed.
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, lambda *_: None)
    server = Server(config)

    def stop_serving() -> None:  # --idle-exit, --max-lifetime: as a SIGTERM would
        stopping.began = True
        server.should_exit = True

    stopping.stop = stop_serving
    try:
        server.run(sockets=[listener])
    finally:
        if ready is not None:
            remove_ready_file(ready)


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say TCP,
    # and with Nagle on every response waits ~40 ms for the client's delayed ACK.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError:
        listener.close()
        raise
    listener.set_inheritable(False)
    return listener


def _announce(
    host: str,
    port: int,
    token_path: Path | None,
    no_auth: bool,
    *,
    kept: bool = False,
    why_new: str = "",
) -> None:
    lines = [f"toolbelt mcp: serving {_url(host, port)}"]
    if no_auth:
        lines.append("toolbelt mcp: no token needed (--no-auth): any local program may connect")
    elif token_path is not None:
        lines.append(
            f"toolbelt mcp: clients send the header 'Authorization: Bearer TOKEN' with the "
            f"token from {token_path}"
        )
    if kept:
        lines.append(
            f"toolbelt mcp: the token stays the same for port {port} across restarts; "
            "--rotate-token replaces it"
        )
    if why_new:
        lines.append(f"toolbelt mcp: {why_new}")
    print("\n".join(lines), file=sys.stderr, flush=True)


def _serve_stdio(
    factory: ToolsetFactory | None,
    root: str | None,
    *,
    mode: str | None,
    add_dirs: list[str],
    trusted: bool | None,
    sandbox: str | None,
    given: list[Path],
) -> int:
    """stdio: serve ``root``, or without one the workspace the client's roots choose, else the
    launch directory (``mcp.roots``); 2 when none could be served (the reason was told)."""
    from toolbelt.mcp.roots import RootedStart, refusal
    from toolbelt.mcp.server import McpServer, OpenRuntime, Outbox
    from toolbelt.mcp.stdio import serve_stdio

    def runtime_for(workspace: Path, extra: list[Path]) -> OpenRuntime:
        def open_runtime(*, requester: PermissionRequester, user: UserChannel) -> Runtime:
            runtime = Runtime(
                workspace,
                toolset=factory() if factory is not None else None,
                mode=mode,
                add_dirs=[*add_dirs, *extra],
                trusted=trusted,
                requester=requester,
                user=user,
            )
            print_notices(runtime)
            # checked before serving: an explicitly chosen backend that is missing fails
            runtime.use_sandbox(sandbox_settings(runtime.settings, sandbox, secrets=given))
            return runtime

        return open_runtime

    if root is not None:
        fixed = runtime_for(Path(root), [])

        def serve_root(outbox: Outbox) -> McpServer:
            return McpServer(fixed, outbox)

        anyio.run(serve_stdio, serve_root)
        return 0
    launch = Path.cwd()
    if refusal(launch, "") is None:
        # checked now (building starts nothing), so a bad mode, directory or sandbox fails at
        # start as with --root, before any client has connected
        check = Runtime(launch, toolset=ToolRegistry(), mode=mode, add_dirs=add_dirs)
        sandbox_settings(check.settings, sandbox, secrets=given)

    def serve_roots(outbox: Outbox) -> RootedStart:
        return RootedStart(runtime_for, launch, outbox)

    refused = anyio.run(serve_stdio, serve_roots)
    return 2 if refused is not None else 0


def _address(value: str, port: int | None) -> tuple[str, int]:
    """``HOST:PORT``, or just ``PORT`` for 127.0.0.1; with ``port`` (``--port``), ``value`` is
    just the host ("" for 127.0.0.1)."""
    if port is not None:
        if not 0 <= port <= 65535:
            raise UsageError(f"--port wants a port from 0 to 65535, not {port}.")
        if value.isdigit() or (value.count(":") == 1 and value.rpartition(":")[2].isdigit()):
            raise UsageError(f"--http {value} names a port and so does --port; give the port once.")
        return (value.strip("[]") or "127.0.0.1"), port
    if not value:
        raise UsageError(
            "--http without an address needs --port: --port 0 lets the system pick a free "
            "port (see --ready-file), or give --http HOST:PORT."
        )
    if value.isdigit():
        return "127.0.0.1", int(value)
    host, _, digits = value.rpartition(":")
    if not host or not digits.isdigit():
        raise UsageError(f"--http wants HOST:PORT (for example 127.0.0.1:8765), not {value!r}.")
    return host.strip("[]"), int(digits)


def _given_token(token_file: str | None) -> str | None:
    """The token from ``--token-file`` or ``$TOOLBELT_MCP_TOKEN`` (never from argv, which
    ``ps`` shows). The variable is taken out of the environment, wiped from the block
    ``/proc/<pid>/environ`` shows, so no command the tools run can read it back."""
    from toolbelt.cli.environment_secret import take_from_environment  # ctypes: HTTP only

    from_environment = take_from_environment(TOKEN_ENV)
    if from_environment is not None:
        if token_file is not None:
            raise UsageError(
                f"The token is given twice, in ${TOKEN_ENV} and by --token-file; give one."
            )
        if not from_environment.strip():
            raise UsageError(f"${TOKEN_ENV} is empty; put the token in it, or leave it unset.")
        return from_environment.strip()
    if token_file is None:
        return None
    try:
        text = Path(token_file).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise UsageError(f"Cannot read the token file {token_file}: {exc.strerror}.") from exc
    if not text:
        raise UsageError(f"The token file {token_file} is empty.")
    return text


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
