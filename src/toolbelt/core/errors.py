"""One exception tree for toolbelt, split by who must act on it.

```
ToolbeltError
├── ToolError                 the model reads it and retries differently (becomes an error result)
│   ├── InvalidInputError     the arguments do not fit the tool's input model
│   ├── UnknownToolError      the model named a tool that is not registered
│   ├── PermissionDeniedError the policy, a hook or the user refused the call
│   ├── PathError             a path cannot be used (outside the roots, loop, NUL...)
│   └── ConnectionLostError   another server's connection failed before the answer (retryable)
├── UsageError                the developer got something wrong (duplicate tool, bad option,
│   │                         a closed runtime used again)
│   └── SettingsError         a settings file is malformed (names the file and line)
│       └── ConfigFileError   a configuration file cannot be used at all (not a regular file,
│                             too large, not UTF-8 or not JSON); also a ValueError
├── DataError                 data from outside is refused: the message says why; also a ValueError
│   ├── StrictJsonError       JSON the strict reader refuses (a duplicate key, NaN, too deep)
│   └── UnusableToolError     another MCP server's tool left out of the listing
├── AgentError                a model did not answer: the user fixes the key, URL or model
│   ├── ProviderError         a model provider failed (``kind``: auth, connection, rate_limit…)
│   └── CondenseError         the runtime's small model gave web_fetch no answer
└── FatalError                the turn cannot go on (e.g. the session was closed)
```

Foreign exceptions (OSError, pydantic's ValidationError, subprocess failures) are mapped at one
boundary, the executor, with ``raise ... from exc``; a tool raises ``ToolError`` subclasses with a
message written for the model: one sentence saying what went wrong and what to do instead.
The errors that are also a ``ValueError`` were one before they joined the tree, and code that
catches ``ValueError`` around JSON and configuration parsing still catches them.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "AgentError",
    "CondenseError",
    "ConfigFileError",
    "ConnectionLostError",
    "DataError",
    "FatalError",
    "InvalidInputError",
    "PathError",
    "PermissionDeniedError",
    "ProviderError",
    "ProviderErrorKind",
    "SettingsError",
    "StrictJsonError",
    "ToolError",
    "ToolbeltError",
    "UnknownToolError",
    "UnusableToolError",
    "UsageError",
]


class ToolbeltError(Exception):
    """Root of every exception toolbelt raises on purpose."""


class ToolError(ToolbeltError):
    """A failure the model should read: the message is shown to it as an error result."""


class ConnectionLostError(ToolError):
    """The connection to another server failed before the call's answer came (it could not
    start, the transport broke, the server stopped): the same call may succeed when retried."""


class InvalidInputError(ToolError):
    """The call's arguments do not validate against the tool's input model."""


class UnknownToolError(ToolError):
    """The model asked for a tool name that the toolset does not hold."""


class PermissionDeniedError(ToolError):
    """The permission policy, a hook or the user refused this call."""


class PathError(ToolError):
    """A path the model gave cannot be used: outside the permitted roots, malformed, or looping."""


class UsageError(ToolbeltError):
    """The developer integrating toolbelt made a mistake (a duplicate tool name, a bad option)."""


class SettingsError(UsageError):
    """A settings file could not be read; the message names the file and, when known, the line."""


class ConfigFileError(SettingsError, ValueError):
    """A configuration file that exists but must not be used; the message says why."""


class DataError(ToolbeltError, ValueError):
    """Data from outside (JSON text, another server's tool listing) that toolbelt refuses."""


class StrictJsonError(DataError):
    """Valid-looking JSON that is refused (duplicate key, NaN, too deep)."""


class UnusableToolError(DataError):
    """A remote tool left out of the listing; the message says why (``unusable``)."""


class AgentError(ToolbeltError):
    """A model the agent or a tool relies on gave no answer; the message says what to fix."""


ProviderErrorKind = Literal[
    "auth",
    "connection",
    "not_found",
    "rate_limit",
    "overloaded",
    "bad_request",
    "server",
    "not_model_server",
]


class ProviderError(AgentError):
    """A model provider failed; the message says what the user should fix or try."""

    def __init__(self, message: str, *, kind: ProviderErrorKind, status: int | None = None):
        super().__init__(message)
        self.kind: ProviderErrorKind = kind
        self.status = status


class CondenseError(AgentError):
    """The small model gave no answer; the message says why, for a note beside the page."""


class FatalError(ToolbeltError):
    """Nothing more can run in this turn or session (for example, it was closed)."""
