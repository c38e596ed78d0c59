"""Permission rules in Claude Code's syntax, so users can paste their settings as they are.

A rule is ``Tool`` or ``Tool(specifier)``:

- tools: ``Read`` (read_file, grep, glob, ls), ``Edit`` / ``Write`` / ``MultiEdit`` /
  ``NotebookEdit`` (every file-changing tool), ``Bash``, ``WebFetch``, ``Glob``, ``Grep``,
  ``LS``, ``mcp__server`` (all its tools) and ``mcp__server__tool``, or a toolbelt name;
- paths, gitignore-style, matched against real paths: ``//abs/path``, ``~/x`` (home), ``/x``
  (project root), ``./x`` or ``x`` (cwd); ``*`` stays within one directory, ``**`` spans any
  depth; a pattern without wildcards also covers everything below it;
- commands: ``Bash(npm run build)`` exact, ``Bash(npm run test:*)`` prefix at a word
  boundary, ``Bash(git diff *)`` wildcard (a trailing `` *`` also matches the bare command);
- URLs: ``WebFetch(domain:example.com)`` (and its subdomains).

``RuleSet.match`` evaluates deny → ask → allow, first match wins. Compound commands are judged
per simple command: one denied part denies the whole, and "allow" needs every part allowed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from toolbelt.permissions.policy import RuleMatch, Verdict

__all__ = ["TOOL_ALIASES", "Rule", "RuleSet", "parse_rule"]

_FILE_READERS = ("read_file", "grep", "glob", "ls")
_FILE_WRITERS = ("write_file", "edit_file", "multi_edit", "notebook_edit")
TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "Read": _FILE_READERS,
    "Edit": _FILE_WRITERS,
    "Write": _FILE_WRITERS,
    "MultiEdit": _FILE_WRITERS,
    "NotebookEdit": _FILE_WRITERS,
    "Bash": ("bash",),
    "WebFetch": ("web_fetch",),
    "Glob": ("glob",),
    "Grep": ("grep",),
    "LS": ("ls",),
    "TodoWrite": ("todo_write",),
    "TodoRead": ("todo_read",),
    "Task": ("task",),
    "Skill": ("skill",),
}
_RULE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """One parsed rule and where it came from."""

    tool: str
    specifier: str | None = None
    source: str = ""
    project_root: Path | None = None
    _command: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def covers(self, tool: str) -> bool:
        """Whether this rule is about ``tool``."""
        if self.tool.startswith("mcp__"):
            return tool == self.tool or tool.startswith(self.tool + "__")
        return tool in TOOL_ALIASES.get(self.tool, (self.tool,))

    def matches_command(self, command: str) -> bool:
        """Exact, prefix (``:*``) or wildcard match of one simple command."""
        if self.specifier is None:
            return True
        assert self._command is not None
        return bool(self._command.fullmatch(command.strip()))

    def matches_path(self, path: Path, *, cwd: Path, home: Path) -> bool:
        """Whether the real ``path`` falls under this rule's path pattern."""
        if self.specifier is None:
            return True
        return bool(_path_regex(self._absolute(cwd, home)).fullmatch(str(path)))

    def matches_url(self, url: str) -> bool:
        """``domain:host`` matches the host and its subdomains."""
        if self.specifier is None:
            return True
        if not self.specifier.startswith("domain:"):
            return self.specifier == url
        want = self.specifier.removeprefix("domain:").lower()
        host = (urlsplit(url).hostname or "").lower()
        return host == want or host.endswith("." + want)

    def _absolute(self, cwd: Path, home: Path) -> str:
        spec = self.specifier or ""
        if spec.startswith("//"):
            return spec[1:]
        if spec.startswith("~/"):
            return str(home) + spec[1:]
        if spec.startswith("/"):
            return str(self.project_root or cwd) + spec
        return str(cwd / spec.removeprefix("./"))


def parse_rule(text: str, *, source: str = "", project_root: Path | None = None) -> Rule:
    """Parse ``Tool`` or ``Tool(specifier)``; ValueError with the reason when malformed."""
    match = _RULE.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a rule; write `Tool` or `Tool(specifier)`")
    tool, specifier = match.group(1), match.group(2)
    if specifier is not None:
        specifier = specifier.strip()
        if not specifier:
            specifier = None
    command = None
    if specifier is not None and "bash" in TOOL_ALIASES.get(tool, (tool,)):
        if ":*" in specifier and not specifier.endswith(":*"):
            raise ValueError(f"{text!r}: the `:*` prefix form is only valid at the end")
        command = _command_regex(specifier)
    return Rule(tool, specifier, source, project_root, command)


def _command_regex(spec: str) -> re.Pattern[str]:
    if spec.endswith(":*"):
        prefix = re.escape(spec[:-2].rstrip())
        return re.compile(f"{prefix}(?:\\s.*)?", re.DOTALL)
    if "*" not in spec:
        return re.compile(re.escape(spec), re.DOTALL)
    optional_tail = spec.endswith(" *")
    core = spec[:-2] if optional_tail else spec
    pattern = ".*".join(re.escape(part) for part in core.split("*"))
    if optional_tail:
        pattern += "(?:\\s.*)?"  # `git diff *` also matches a bare `git diff`
    return re.compile(pattern, re.DOTALL)


def _path_regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("/**/", i):
            out.append("(?:/.*)?/")
            i += 4
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    body = "".join(out)
    if "*" not in pattern and "?" not in pattern:
        body += "(?:/.*)?"  # a plain path covers what is below it
    return re.compile(body, re.DOTALL)


class RuleSet:
    """allow / ask / deny lists, evaluated deny → ask → allow (the policy's ``RuleMatcher``)."""

    def __init__(
        self,
        *,
        allow: Sequence[Rule] = (),
        ask: Sequence[Rule] = (),
        deny: Sequence[Rule] = (),
        cwd: Callable[[], Path] | None = None,
        home: Path | None = None,
    ) -> None:
        self.lists: dict[Verdict, tuple[Rule, ...]] = {
            "deny": tuple(deny),
            "ask": tuple(ask),
            "allow": tuple(allow),
        }
        self._cwd = cwd or Path.cwd
        self._home = home or Path(os.path.expanduser("~"))

    def match(
        self, tool: str, *, paths: Sequence[Path], commands: Sequence[str], url: str | None
    ) -> RuleMatch | None:
        for verdict in ("deny", "ask"):
            for rule in self.lists[verdict]:
                if rule.covers(tool) and self._any(rule, paths, commands, url):
                    return RuleMatch(verdict, str(rule), rule.source)
        allows = [rule for rule in self.lists["allow"] if rule.covers(tool)]
        if not allows:
            return None
        if commands:
            chosen = [next((r for r in allows if r.matches_command(c)), None) for c in commands]
            if all(chosen):
                first = chosen[0]
                assert first is not None
                return RuleMatch("allow", str(first), first.source)
            return None
        for rule in allows:
            if self._all(rule, paths, url):
                return RuleMatch("allow", str(rule), rule.source)
        return None

    def read_denied(self, path: Path) -> bool:
        """Whether a deny rule for reading covers ``path`` (used to filter search results)."""
        return any(
            rule.covers("read_file") and rule.specifier is not None and self._path(rule, path)
            for rule in self.lists["deny"]
        )

    def _path(self, rule: Rule, path: Path) -> bool:
        return rule.matches_path(path, cwd=self._cwd(), home=self._home)

    def _any(
        self, rule: Rule, paths: Sequence[Path], commands: Sequence[str], url: str | None
    ) -> bool:
        if rule.specifier is None:
            return True
        if commands:
            return any(rule.matches_command(c) for c in commands)
        if url is not None:
            return rule.matches_url(url)
        return any(self._path(rule, p) for p in paths)

    def _all(self, rule: Rule, paths: Sequence[Path], url: str | None) -> bool:
        if rule.specifier is None:
            return True
        if url is not None:
            return rule.matches_url(url)
        return bool(paths) and all(self._path(rule, p) for p in paths)
