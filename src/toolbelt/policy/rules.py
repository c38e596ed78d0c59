"""Permission rules in Claude Code's syntax, so users can paste their settings as they are.

A rule is ``Tool`` or ``Tool(specifier)``. Tools: a family — ``Read`` (read_file, grep, glob,
ls), ``Edit`` — also spelled ``Write``, ``MultiEdit``, ``NotebookEdit`` — (every file-changing
tool), ``Bash`` (bash, bash_output, kill_shell, and git_commit as the command
``git commit``), ``WebFetch`` —, a tool's own alias (``Glob``,
``Grep``, ``LS``, ``TodoWrite``), ``mcp__server`` / ``mcp__server__*`` (all its tools),
``mcp__server__tool``, or a toolbelt name as it is (``read_file(src/**)``). Each tool declares
its family, target and aliases itself (``Tool.rule_identity``, see ``core.identity``). What
the specifier means depends on the family:

- paths, gitignore-style, matched against real paths: ``//abs/path``, ``~/x`` (home), ``/x``
  (the project root of the settings file), ``./x`` or ``x/y`` (the cwd), and a bare name such
  as ``*.env`` matches at any depth below the cwd; ``*`` and ``?`` stay within one directory,
  ``**`` spans any depth; a pattern without wildcards also covers everything below it;
- commands, one simple command at a time (whitespace runs count as one space):
  ``Bash(npm run build)`` exact, ``Bash(npm run test:*)`` prefix ending at a word boundary,
  ``Bash(git diff *)`` wildcard — a space before ``*`` is a word boundary and a trailing
  `` *`` also matches the bare ``git diff``; ``\\*`` is a literal star;
- URLs: ``WebFetch(domain:example.com)`` matches that host and its subdomains.

Other specifiers (``Task(Explore)``) are kept so pasted settings load, but never match.
``RuleSet`` evaluates deny → ask → allow, first match wins. Commands: one denied (or asked)
part decides the whole compound command, and "allow" needs every part allowed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from toolbelt.core.rule_identity import (
    FAMILY_SYNONYMS,
    FAMILY_TARGETS,
    FILE_READ,
    RuleIdentity,
    RuleTarget,
)
from toolbelt.paths.containment import is_within
from toolbelt.paths.globmatch import GlobMatcher
from toolbelt.policy.patterns import (
    GLOB_CHARS,
    command_regex,
    path_regex,
    real_prefix,
    squash_blanks,
    unescaped_stars,
)

__all__ = [
    "Rule",
    "RuleMatch",
    "RuleSet",
    "Verdict",
    "parse_rule",
    "rule_for_approval",
]

Verdict = Literal["deny", "ask", "allow"]


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """The first rule that matched a call: its list, its text, and where it was written."""

    verdict: Verdict
    rule: str
    source: str = ""

    def describe(self) -> str:
        where = f" in {self.source}" if self.source else ""
        return f"the rule `{self.rule}`{where}"


_RULE = re.compile(r"([A-Za-z][A-Za-z0-9_.-]*\*?)(?:\((.*)\))?", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """One parsed rule, the settings file it came from and the root its ``/x`` paths use."""

    tool: str
    specifier: str | None = None
    source: str = ""
    project_root: Path | None = None

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def covers(self, tool: RuleIdentity) -> bool:
        """Whether this rule is about ``tool`` (its name, family, aliases or MCP server)."""
        return tool.named_by(self.tool)

    def matches_command(self, command: str) -> bool:
        """Whether one simple command matches (exact, ``:*`` prefix or wildcard)."""
        if self.specifier is None:
            return True
        return command_regex(self.specifier).fullmatch(squash_blanks(command)) is not None

    def matches_path(self, path: Path, *, cwd: Path, home: Path) -> bool:
        """Whether the real absolute ``path`` falls under this rule's path pattern."""
        if self.specifier is None:
            return True
        return self.path_regex(cwd=cwd, home=home).fullmatch(str(path)) is not None

    def matches_url(self, url: str) -> bool:
        """``domain:host`` matches the URL's host and its subdomains."""
        if self.specifier is None:
            return True
        want = self.specifier.removeprefix("domain:").removeprefix("*.").lower().rstrip(".")
        try:
            host = (urlsplit(url).hostname or "").rstrip(".")
        except ValueError:  # not a URL at all (a bad IPv6 literal): no host to match
            return False
        return host == want or host.endswith("." + want)

    def path_regex(self, *, cwd: Path, home: Path) -> GlobMatcher:
        """The specifier as a regex over absolute real paths, anchored where it says."""
        return path_regex(real_prefix(self._anchored(cwd=cwd, home=home)).rstrip("/"))

    def literal_path(self, *, cwd: Path, home: Path) -> Path | None:
        """The one real path whose whole tree this path rule covers (``./secret/**``,
        ``//tmp/out/*``, ``./k.txt``), for the sandbox to hide; None when wildcards pick
        among names (``./keys/*.pem``, ``**/.env.local``): no single path stands for those."""
        pattern = self._anchored(cwd=cwd, home=home).rstrip("/")
        for tail in ("/**", "/*"):
            pattern = pattern.removesuffix(tail)
        if GLOB_CHARS.search(pattern):
            return None
        return Path(os.path.realpath(pattern or "/"))

    def _anchored(self, *, cwd: Path, home: Path) -> str:
        spec = self.specifier or ""
        if spec.startswith("//"):
            base, rest = "/", spec[2:]
        elif spec == "~" or spec.startswith("~/"):
            base, rest = str(home), spec[2:]
        elif spec.startswith("/"):
            base, rest = str(self.project_root or cwd), spec[1:]
        elif spec.startswith("./") or "/" in spec.rstrip("/"):
            base, rest = str(cwd), spec.removeprefix("./")
        else:  # gitignore: a pattern without a slash matches at any depth
            base, rest = str(cwd), "**/" + spec
        return base.rstrip("/") + "/" + rest.rstrip("/")


def parse_rule(text: str, *, source: str = "", project_root: Path | None = None) -> Rule:
    """Parse ``Tool`` or ``Tool(specifier)``; ValueError saying what is wrong when malformed."""
    match = _RULE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a rule; write `Tool` or `Tool(specifier)`")
    tool, specifier = match.group(1), match.group(2)
    if tool.endswith("*") and not (tool.startswith("mcp__") and tool.endswith("__*")):
        raise ValueError(f"{text!r}: only `mcp__server__*` may end the tool name with `*`")
    if specifier is not None:
        specifier = _strip(specifier)
        if not specifier:
            raise ValueError(f"{text!r} has an empty specifier; write `{tool}` for every use")
        _check_specifier(text, tool, specifier)
    return Rule(tool, specifier, source, project_root)


def _check_specifier(text: str, tool: str, specifier: str) -> None:
    """Refuse a specifier its family cannot mean (a rule naming a tool is checked as a path
    or left as written: only the families have a fixed meaning before any tool is known)."""
    kind = FAMILY_TARGETS.get(FAMILY_SYNONYMS.get(tool, tool))
    if kind == "command":
        wildcards = unescaped_stars(specifier)
        if ":*" in wildcards.removesuffix(":*"):
            raise ValueError(f"{text!r}: the `:*` prefix form is only valid at the end")
        command_regex(specifier)
    elif kind == "path":
        try:
            path_regex("/" + specifier)
        except ValueError as error:
            raise ValueError(f"{text!r}: {error}") from None
    elif kind == "domain" and not specifier.removeprefix("domain:").strip(". "):
        raise ValueError(f"{text!r}: write `WebFetch(domain:example.com)`")
    elif kind == "domain" and not specifier.startswith("domain:"):
        raise ValueError(f"{text!r}: URL rules name a host, as in `WebFetch(domain:{specifier})`")


def rule_for_approval(
    tool: RuleIdentity, specifier: str | None = None, *, cwd: Path | None = None
) -> str:
    """The rule text that allows this call again, to persist after an "always" answer.

    ``specifier`` is the raw value: the simple command for bash, an absolute path for file
    tools, a URL or host for web_fetch; stars and glob characters in it are escaped so the
    saved rule allows exactly this, not a pattern. With ``cwd``, a path below it is written
    ``./relative`` (the way a person writes a rule), any other ``//absolute``.
    """
    name = tool.family
    if specifier is None:
        return str(parse_rule(name))
    kind = tool.target
    if kind == "command":
        specifier = specifier.replace("*", "\\*")
    elif kind == "path":
        if not specifier.startswith("/"):
            raise ValueError(f"{specifier!r} is not an absolute path")
        anchor, path = "//", specifier.lstrip("/")
        if cwd is not None and is_within(Path(specifier), cwd) and Path(specifier) != cwd:
            anchor, path = "./", os.path.relpath(specifier, cwd)
        escaped = GLOB_CHARS.sub(r"\\\g<0>", path)
        specifier = anchor + re.sub(r"\s\Z", r"\\\g<0>", escaped)  # parsing strips blanks
    elif kind == "domain":
        host = urlsplit(specifier).hostname if "://" in specifier else specifier
        specifier = "domain:" + (host or "").lower()
    return str(parse_rule(f"{name}({specifier})"))


def _strip(specifier: str) -> str:
    """Strip surrounding blanks, except one escaped with a backslash (a file named "a ")."""
    stripped, rest = specifier.strip(), specifier.lstrip()
    escapes = len(stripped) - len(stripped.rstrip("\\"))
    if escapes % 2 and len(stripped) < len(rest):
        stripped += rest[len(stripped)]
    return stripped


class RuleSet:
    """allow / ask / deny lists, evaluated deny → ask → allow (the policy's ``RuleMatcher``)."""

    def __init__(
        self,
        allow: Sequence[Rule] = (),
        ask: Sequence[Rule] = (),
        deny: Sequence[Rule] = (),
        *,
        cwd: Path | Callable[[], Path] | None = None,
        home: Path | None = None,
    ) -> None:
        self.lists: dict[Verdict, tuple[Rule, ...]] = {
            "deny": tuple(deny),
            "ask": tuple(ask),
            "allow": tuple(allow),
        }
        self._cwd: Callable[[], Path] = (lambda: cwd) if isinstance(cwd, Path) else cwd or Path.cwd
        self._home = home or Path(os.path.expanduser("~"))
        self._regexes: dict[tuple[Rule, Path], GlobMatcher] = {}

    def evaluate(
        self,
        tool: RuleIdentity,
        *,
        paths: Sequence[Path] = (),
        commands: Sequence[str] = (),
        url: str | None = None,
    ) -> Verdict | None:
        """The verdict of the first matching rule, or None when no rule speaks."""
        match = self.match(tool, paths=paths, commands=commands, url=url)
        return None if match is None else match.verdict

    def match(
        self,
        tool: RuleIdentity,
        *,
        paths: Sequence[Path] = (),
        commands: Sequence[str] = (),
        url: str | None = None,
    ) -> RuleMatch | None:
        """Like ``evaluate``, naming the rule and its file (for messages)."""
        kind = tool.target
        targets: Sequence[str | Path] = ()
        if kind == "command":
            targets = commands
        elif kind == "path":
            targets = paths
        elif kind == "domain" and url:
            targets = (url,)
        for verdict in ("deny", "ask"):
            for rule in self.lists[verdict]:
                if rule.covers(tool) and (
                    rule.specifier is None or any(self._hit(rule, kind, t) for t in targets)
                ):
                    return RuleMatch(verdict, str(rule), rule.source)
        allows = [rule for rule in self.lists["allow"] if rule.covers(tool)]
        bare = next((rule for rule in allows if rule.specifier is None), None)
        if bare is not None:
            return RuleMatch("allow", str(bare), bare.source)
        chosen = []  # every part must be allowed, each possibly by a different rule
        for target in targets:
            hit = next((rule for rule in allows if self._hit(rule, kind, target)), None)
            if hit is None:
                return None
            chosen.append(hit)
        return RuleMatch("allow", str(chosen[0]), chosen[0].source) if chosen else None

    @property
    def denies_reads(self) -> bool:
        """Whether some deny rule names paths that reading tools may not see."""
        return any(r.specifier is not None and r.covers(FILE_READ) for r in self.lists["deny"])

    @property
    def denies_reads_by_pattern(self) -> bool:
        """Whether some read-deny rule picks names by wildcard, so the OS sandbox cannot hide
        what it covers (``hidden_reads`` maps only rules that name a path whole)."""
        return any(
            rule.specifier is not None
            and rule.covers(FILE_READ)
            and rule.literal_path(cwd=self._cwd(), home=self._home) is None
            for rule in self.lists["deny"]
        )

    def hidden_reads(self) -> tuple[Path, ...]:
        """The paths that read-deny rules name whole (see ``Rule.literal_path``), for the
        OS sandbox to hide from every command; rules that pick names by wildcard are left
        to the tools' own checks."""
        cwd = self._cwd()
        found = (
            rule.literal_path(cwd=cwd, home=self._home)
            for rule in self.lists["deny"]
            if rule.specifier is not None and rule.covers(FILE_READ)
        )
        return tuple(dict.fromkeys(path for path in found if path is not None))

    def read_denied(self, path: Path) -> bool:
        """Whether a path-scoped deny rule for reading covers ``path`` (filters search results)."""
        return any(
            rule.specifier is not None and rule.covers(FILE_READ) and self._path(rule, path)
            for rule in self.lists["deny"]
        )

    def _hit(self, rule: Rule, kind: RuleTarget, target: str | Path) -> bool:
        if kind == "command":
            return rule.matches_command(str(target))
        if kind == "path":
            return self._path(rule, Path(target))
        return kind == "domain" and rule.matches_url(str(target))

    def _path(self, rule: Rule, path: Path) -> bool:
        cwd = self._cwd()
        regex = self._regexes.get((rule, cwd))
        if regex is None:
            regex = self._regexes[(rule, cwd)] = rule.path_regex(cwd=cwd, home=self._home)
        return regex.fullmatch(str(path)) is not None
