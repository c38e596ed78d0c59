"""One exception tree for toolbelt, split by who must act on it.

```
ToolbeltError
├── ToolError                 the model reads it and retries differently (becomes an error result)
│   ├── InvalidInputError     the arguments do not fit the tool's input model
│   ├── UnknownToolError      the model named a tool that is not registered
│   ├── PermissionDeniedError the policy, a hook or the user refused the call
│   └── PathError             a path cannot be used (outside the roots, loop, NUL...)
├── UsageError                the developer got something wrong (duplicate tool, bad config)
│   └── SettingsError         a settings file is malformed (names the file and line)
└── FatalError                the turn cannot go on (e.g. the session was closed)
```

Foreign exceptions (OSError, pydantic's ValidationError, subprocess failures) are mapped at one
boundary, the executor, with ``raise ... from exc``; a tool raises ``ToolError`` subclasses with a
message written for the model: one sentence saying what went wrong and what to do instead.
"""

from __future__ import annotations

__all__ = [
    "FatalError",
    "InvalidInputError",
    "PathError",
    "PermissionDeniedError",
    "SettingsError",
    "ToolError",
    "ToolbeltError",
    "UnknownToolError",
    "UsageError",
]


class ToolbeltError(Exception):
    """Root of every exception toolbelt raises on purpose."""


class ToolError(ToolbeltError):
    """A failure the model should read: the message is shown to it as an error result."""


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


class FatalError(ToolbeltError):
    """Nothing more can run in this turn or session (for example, it was closed)."""
