"""Rules that name an MCP server or tool that does not exist: said, never silently ignored.

A rule with a misspelt server (``mcp__brave-serch``) matches nothing, so a deny rule the user
counts on would protect nothing without a word. Rules are checked against every spelling a
server answers to (``McpServerToolset.spellings``): one naming no configured server is
reported when the runtime starts (``Runtime.notice``); one naming a tool its server does not
list is reported with the server's state (``toolbelt tools``, ``toolbelt mcp-servers``) once
the server has listed its tools.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolbelt.mcp_client.server import McpServerToolset
from toolbelt.policy.rules import Rule

__all__ = ["unknown_server_notice", "unknown_tools"]


def _parts(rule: Rule, server: McpServerToolset) -> str | None:
    """The tool part of an ``mcp__`` rule naming ``server`` ("" for the whole server), or None
    when the rule does not name it."""
    rest = rule.tool.removeprefix("mcp__")
    whole = rest.removesuffix("__*")
    if whole in server.spellings:
        return ""
    if whole != rest:
        return None
    for spelling in server.spellings:
        if rest.startswith(spelling + "__"):
            return rest[len(spelling) + 2 :]
    return None


def _mcp_rules(rules: Iterable[Rule]) -> list[Rule]:
    """The rules naming one server or tool (``mcp__*`` names them all)."""
    return [rule for rule in rules if rule.tool.startswith("mcp__") and rule.tool != "mcp__*"]


def unknown_server_notice(rules: Iterable[Rule], servers: Iterable[McpServerToolset]) -> str | None:
    """One sentence naming the rules that name no configured server; None when there are none."""
    servers = tuple(servers)
    unknown = [
        rule
        for rule in _mcp_rules(rules)
        if all(_parts(rule, server) is None for server in servers)
    ]
    if not unknown:
        return None
    named = ", ".join(
        f"`{rule}`" + (f" (in {rule.source})" if rule.source else "") for rule in unknown
    )
    known = ", ".join(f"`{server.config.name}`" for server in servers)
    return (
        f"the permission rules {named} name no configured MCP server, so they match nothing; "
        f"the servers are {known} (write `mcp__<server>` or `mcp__<server>__<tool>`)."
    )


def unknown_tools(rules: Iterable[Rule], server: McpServerToolset) -> list[str]:
    """The rules naming a tool of ``server`` that it does not list (once it has listed)."""
    if server.state != "running":
        return []
    listed = server.remote_tools()
    found = []
    for rule in _mcp_rules(rules):
        part = _parts(rule, server)
        if part and not any(part in tool.names.tools for tool in listed):
            found.append(f"`{rule}`")
    return found
