"""A tool's permission identity: which rules speak about it and what their specifier targets.

Rules are written in Claude Code's syntax (``Read(src/**)``, ``Bash(npm test)``,
``WebFetch(domain:example.com)``, ``mcp__github__*``). Which rules cover a tool, how their
specifier is matched, and under which name an "always allow" answer is saved are properties of
the tool, declared on it (``Tool.rule_family``, ``rule_target``, ``claude_name``), so a new
tool — or one from another MCP server — needs no entry in any table of the permission code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "FAMILY_SYNONYMS",
    "FAMILY_TARGETS",
    "FILE_READ",
    "FILE_WRITE",
    "MCP_PREFIX",
    "McpRuleNames",
    "RuleIdentity",
    "RuleTarget",
]

MCP_PREFIX = "mcp__"
"""How another MCP server's tools are named: ``mcp__<server>__<tool>``."""

RuleTarget = Literal["path", "command", "domain", "none"]
"""What a rule's specifier is matched against: the call's paths, its simple commands, its
URL's host, or nothing (only a bare rule, without specifier, speaks about the tool)."""

FAMILY_TARGETS: dict[str, RuleTarget] = {
    "Read": "path",
    "Edit": "path",
    "Bash": "command",
    "WebFetch": "domain",
}
"""The rule language's families and what their specifiers mean; a tool in a family needs to
declare nothing more, a tool that is its own family declares its ``rule_target``."""

FAMILY_SYNONYMS = {"Write": "Edit", "MultiEdit": "Edit", "NotebookEdit": "Edit"}
"""Rule names of the rule language that mean a whole family (``Write(x)`` is ``Edit(x)``)."""


class McpRuleNames(Protocol):
    """How rules may name a tool of another MCP server (``mcp_client.tools.McpNames``): its
    server as configured, as Claude Code spells it, or as toolbelt does."""

    def named_by(self, rule: str) -> bool:
        """Whether the rule's tool part (``mcp__…``) names this tool."""


@dataclass(frozen=True, slots=True)
class RuleIdentity:
    """How permission rules see one tool."""

    tool: str
    """The tool's own name; a rule may always name it (``read_file(src/**)``)."""
    family: str
    """The rule family (``Read``, ``Edit``, ``Bash``, ``WebFetch``) or the tool's own name;
    approvals are remembered and saved under it (``Read(//p/a.txt)``)."""
    target: RuleTarget = "none"
    """What the family's specifiers are matched against."""
    aliases: tuple[str, ...] = ()
    """Other rule names meaning this tool alone (``Glob``, ``TodoWrite``)."""
    mcp: McpRuleNames | None = None
    """For a tool of another MCP server: every spelling ``mcp__`` rules may name it by."""

    def named_by(self, rule_tool: str) -> bool:
        """Whether a rule whose tool part is ``rule_tool`` speaks about this tool."""
        if rule_tool.startswith("mcp__"):
            if self.mcp is not None:
                return self.mcp.named_by(rule_tool)
            server = rule_tool.removesuffix("__*")
            if server != rule_tool or "__" not in server.removeprefix("mcp__"):
                return self.tool == server or self.tool.startswith(server + "__")
            return self.tool == rule_tool
        family = FAMILY_SYNONYMS.get(rule_tool, rule_tool)
        return rule_tool == self.tool or family == self.family or rule_tool in self.aliases


FILE_READ = RuleIdentity("read_file", "Read", "path")
"""How a file that a command reads is judged: as reading it with ``read_file`` would be."""

FILE_WRITE = RuleIdentity("write_file", "Edit", "path")
"""How a file that a command writes is judged: as writing it with ``write_file`` would be."""
