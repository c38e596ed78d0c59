"""Permission identities as the tools declare them, for tests that build requests by hand."""

from __future__ import annotations

from toolbelt.core.rule_identity import RuleIdentity
from toolbelt.tools import builtin_toolset

_BUILTINS = builtin_toolset()
WEB_FETCH = RuleIdentity("web_fetch", "WebFetch", "domain")
"""Not a built-in yet; declared as the web_fetch tool will declare it."""


def identity(tool: str) -> RuleIdentity:
    """The identity ``tool`` declares (a built-in, web_fetch, or a tool that is its own family)."""
    if tool == "web_fetch":
        return WEB_FETCH
    found = _BUILTINS.get(tool)
    return found.rule_identity() if found is not None else RuleIdentity(tool, tool)
