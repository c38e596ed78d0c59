"""What the model is told when an MCP server fails: it cannot start, it went away, a call
timed out, was refused or broke.

A foreign server fails in ways toolbelt does not choose — a command that does not exist, a
process that exits or breaks the stdio contract, an HTTP error wrapped in exception groups —
so each failure is reduced to one line saying what happened (with the server's last words on
stderr when there are some) and what to do instead, the same way wherever it surfaces.
"""

from __future__ import annotations

from mcp.client.auth import OAuthFlowError
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from toolbelt.core.errors import ConnectionLostError, ToolError
from toolbelt.mcp_client.config import ServerConfig
from toolbelt.mcp_client.headers_helper import HeadersHelperError
from toolbelt.mcp_client.http_limits import TOO_LARGE
from toolbelt.mcp_client.sse_guard import PARSE_ERROR, UNREADABLE
from toolbelt.mcp_client.stdio import StdioConnection

__all__ = [
    "answered_badly",
    "call_timed_out",
    "could_not_run",
    "could_not_start",
    "describe_exit",
    "first_error",
    "not_open",
    "refused",
    "stopped_during",
]


def describe_exit(
    config: ServerConfig,
    stdio: StdioConnection | None,
    exc: BaseException | None,
    refusal: str | None = None,
) -> str:
    """Why the server is gone or could not start, as a clause ("it exited ...", "cannot run
    `cmd`: ..."); ``exc`` is what its connection raised, if anything; ``refusal``: what a
    remote server last answered its endpoint with ("it answered 401 Unauthorized")."""
    if stdio is not None and stdio.problem:
        return f"it {stdio.problem} and was disconnected"
    if isinstance(exc, OSError) and config.transport == "stdio":
        return f"cannot run `{config.command}`: {exc.strerror or exc}"
    if isinstance(exc, HeadersHelperError):
        return str(exc)
    if isinstance(exc, OAuthFlowError):  # the SDK's login flow: its reason is the news
        return f"the OAuth flow stopped: {exc}"
    if refusal is not None:
        return refusal + _refusal_advice(config, refusal)
    first_line = str(exc).strip().split("\n", 1)[0]
    parts = [f"{type(exc).__name__}: {first_line}" if exc is not None else "the server went away"]
    if stdio is not None and stdio.stderr_tail:
        parts.append(f"its last output on stderr: {stdio.stderr_tail[-400:]!r}")
    return "; ".join(parts)


def _refusal_advice(config: ServerConfig, refusal: str) -> str:
    """What to do about a remote server's refusal."""
    if " 401 " not in refusal + " " and " 403 " not in refusal + " ":
        return ""
    if config.oauth is None:
        return " (OAuth is off for it: give it credentials in `headers` or `headersHelper`)"
    return " (check its credentials)"


def first_error(exc: BaseException) -> BaseException:
    """The first real error inside exception groups (task groups wrap what their tasks raise)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def not_open(server: str) -> ToolError:
    return ToolError(
        f"The MCP server `{server}` is not open; open the toolset (or the "
        "runtime) before calling its tools."
    )


def could_not_start(server: str, why: str | None) -> ToolError:
    return ConnectionLostError(
        f"The MCP server `{server}` could not be started ({why}); "
        "continue without its tools or ask the user to fix its configuration."
    )


def call_timed_out(server: str, remote: str, timeout: float) -> ToolError:
    return ToolError(
        f"The MCP server `{server}` did not answer `{remote}` within "
        f"{timeout:g} s, so the call was cancelled; try again later or with less work."
    )


def stopped_during(server: str, remote: str, why: str) -> ToolError:
    return ConnectionLostError(
        f"The MCP server `{server}` stopped during `{remote}` ({why}); it "
        "restarts on the next call, but check whether the work was done first."
    )


def connection_closed(exc: MCPError) -> bool:
    """Whether the SDK gave up the request because its connection closed (the transport is
    gone: an HTTP server that went away), rather than an answer the server sent, or an answer
    past the size limit dropped on a connection that goes on."""
    return exc.code == CONNECTION_CLOSED and TOO_LARGE not in str(exc)


def refused(server: str, remote: str, exc: MCPError) -> ToolError:
    """The server answered the call with an error (or an HTTP answer past the size limit)."""
    if TOO_LARGE in str(exc):  # an HTTP answer past the limit (``http_limits``)
        return ToolError(
            f"The MCP server `{server}` {TOO_LARGE}, as its answer to "
            f"`{remote}`, so it was dropped; ask it for less (a narrower query or a "
            "smaller page)."
        )
    if exc.error.code == PARSE_ERROR:  # an answer it could not read (``sse_guard``)
        cause = str(exc).removeprefix(UNREADABLE).strip()
        cause = cause[1:-1] if cause.startswith("(") and cause.endswith(")") else cause
        return ToolError(
            f"The MCP server `{server}` answered `{remote}` with a message toolbelt cannot "
            f"read ({cause}), so the call failed; try again, or continue without it."
        )
    return ToolError(f"The MCP server `{server}` refused `{remote}`: {exc}.")


def answered_badly(server: str, exc: Exception) -> ToolError:
    """A structured result that breaks the tool's output schema."""
    return ToolError(f"The MCP server `{server}` answered badly: {exc}.")


def could_not_run(server: str, remote: str, why: str) -> ToolError:
    """The transport's own failures (HTTP errors, a closed pipe)."""
    return ConnectionLostError(
        f"The MCP server `{server}` could not run `{remote}` ({why}); try "
        "again, or continue without it."
    )
