"""The environment commands run with: the user's, minus what looks like a secret.

Tokens and keys in the environment are one prompt injection away from being printed and
sent somewhere, so variables whose names look like credentials are removed (configurable),
and ``TOOLBELT=1`` is added so scripts can tell they run under an agent.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

__all__ = ["SECRET_PATTERNS", "command_environment"]

SECRET_PATTERNS = (
    "*_TOKEN", "*_TOKEN_*", "*_SECRET", "*_SECRET_*", "*SECRET_KEY*", "*_API_KEY", "*_APIKEY",
    "*PASSWORD*", "*PASSWD*", "*_CREDENTIALS", "*PRIVATE_KEY*", "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN",
    "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
    "TOOLBELT_MCP_TOKEN",
)  # fmt: skip


def command_environment(
    base: Mapping[str, str] | None = None,
    *,
    drop: Iterable[str] = SECRET_PATTERNS,
    keep: Iterable[str] = (),
) -> dict[str, str]:
    """``base`` (default: this process's environment) without secret-looking names."""
    source = dict(os.environ if base is None else base)
    patterns, allowed = tuple(drop), set(keep)
    env = {
        name: value
        for name, value in source.items()
        if name in allowed or not any(fnmatch.fnmatchcase(name.upper(), p) for p in patterns)
    }
    env["TOOLBELT"] = "1"
    return env
