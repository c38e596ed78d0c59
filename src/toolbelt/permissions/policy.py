"""The permission policy: modes, rules, protected paths, dangerous commands, approvals.

``decide`` is a pure function of the request, the rules and what the user approved earlier
in the session. It is evaluated in a fixed order, first match wins::

    no effect (think, todo)                       → allow
    a deny rule matches                           → deny
    plan mode and the call writes or executes     → deny (the message says it is plan mode)
    a command asks to run outside the OS sandbox  → ask, whatever the rules, never remembered
    an ask rule matches                           → ask (a hook's "allow" cannot skip it)
    an allow rule matches                         → allow
    a protected path (.git/, .env*, .mcp.json …)  → ask, in every mode, never remembered
    a dangerous command (rm, git push, curl | sh) → ask, never remembered
    approved earlier in this session              → allow
    bypass mode                                   → allow
    the mode's default for the kind of access     → allow or ask (a sandboxed command
                                                    that writes only inside: allow)
    dont_ask mode turns every remaining ask into a deny (for CI and headless runs)

Modes: ``default`` allows reads inside the workspace and read-only commands; ``accept_edits``
also allows file edits inside the workspace; ``plan`` allows nothing that writes or executes;
``bypass`` allows everything except protected paths and dangerous commands; ``dont_ask``
behaves like default but denies instead of asking.

The shell analysis behind ``Access.readonly_command`` / ``Access.dangerous`` only decides
whether to ask: it is not a sandbox, and the documentation says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from toolbelt.core.access import Access, AccessKind
from toolbelt.permissions.basic import is_within
from toolbelt.permissions.decision import (
    Allow,
    Answer,
    Approval,
    Ask,
    Decision,
    Deny,
    PermissionPolicy,
    PermissionRequest,
)

__all__ = ["Mode", "RuleMatch", "RuleMatcher", "ToolbeltPolicy"]

Mode = Literal["default", "accept_edits", "plan", "bypass", "dont_ask"]
Verdict = Literal["deny", "ask", "allow"]

SETTINGS_HINT = ".toolbelt/settings.json"


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """The first rule that matched a call: its list, its text, and where it was written."""

    verdict: Verdict
    rule: str
    source: str = ""

    def describe(self) -> str:
        where = f" in {self.source}" if self.source else ""
        return f"the rule `{self.rule}`{where}"


class RuleMatcher(Protocol):
    """Evaluates allow / ask / deny rules for a call (deny → ask → allow, first match)."""

    def match(
        self,
        tool: str,
        *,
        paths: Sequence[Path],
        commands: Sequence[str],
        url: str | None,
    ) -> RuleMatch | None: ...


class _NoRules:
    def match(
        self, tool: str, *, paths: Sequence[Path], commands: Sequence[str], url: str | None
    ) -> RuleMatch | None:
        return None


class ToolbeltPolicy(PermissionPolicy):
    """The standard policy used by every door (library, CLI, MCP)."""

    def __init__(
        self,
        *,
        mode: Mode,
        roots: Sequence[Path],
        rules: RuleMatcher | None = None,
        protected: _Protected | None = None,
        persist: _Persist | None = None,
    ) -> None:
        self.mode = mode
        self._roots = tuple(roots)
        self._rules: RuleMatcher = rules or _NoRules()
        self._protected = protected
        self._persist = persist
        self._approved: set[tuple[str, str]] = set()

    # -- the decision --------------------------------------------------------------------

    def decide(self, request: PermissionRequest) -> Decision:
        access = request.access
        if access.kind in (AccessKind.NONE, AccessKind.INTERACT):
            return Allow("no effect outside the session")
        match = self._rules.match(
            request.tool, paths=access.paths, commands=_commands(access), url=access.url
        )
        if match is not None and match.verdict == "deny":
            return Deny(
                f"{match.describe()} denies this call. Do not retry it; choose another approach "
                "or ask the user to change the rule."
            )
        if access.reads:  # a command's file arguments answer to the read rules too
            read = self._rules.match("read_file", paths=access.reads, commands=(), url=None)
            if read is not None and read.verdict == "deny":
                return Deny(
                    f"{read.describe()} denies reading a file this command reads. Do not "
                    "retry it another way; ask the user if the file is needed."
                )
        if self.mode == "plan" and _mutates(access):
            return Deny(
                f"Plan mode is on, so `{request.tool}` cannot {_verb(access)}. Only reading and "
                "read-only commands run in plan mode; finish the plan and ask the user to leave "
                "plan mode before making changes."
            )
        decision = self._decide_ask_or_allow(request, match)
        if isinstance(decision, Ask) and self.mode == "dont_ask":
            return Deny(
                f"{decision.reason} The permission mode is dont_ask, so anything that would ask "
                f"is denied; to allow it, add an allow rule to {SETTINGS_HINT} (for example "
                f"`{_example_rule(request)}`) or run with another --mode."
            )
        return decision

    def _decide_ask_or_allow(self, request: PermissionRequest, match: RuleMatch | None) -> Decision:
        access = request.access
        what = access.summary or f"`{request.tool}`"
        if access.outside_sandbox is not None:
            return Ask(
                f"{what} asks to run OUTSIDE the sandbox (no limit on writes, secrets or "
                f"network) because: {access.outside_sandbox}",
                remember=False,
                forced=True,
            )
        if match is not None and match.verdict == "ask":
            return Ask(f"{match.describe()} asks before {what}.", forced=True)
        if match is not None and match.verdict == "allow":
            return Allow(f"allowed by {match.describe()}")
        protected = self._protected_reason(access)
        if protected:
            return Ask(
                f"{what} touches a protected path ({protected}).", remember=False, forced=True
            )
        if access.dangerous:
            reasons = "; ".join(access.dangerous)
            return Ask(f"{what} is potentially dangerous ({reasons}).", remember=False, forced=True)
        if self._approved_before(request):
            return Allow("approved earlier in this session")
        if self.mode == "bypass":
            return Allow("bypass mode")
        return self._mode_default(request, what)

    def _mode_default(self, request: PermissionRequest, what: str) -> Decision:
        access = request.access
        inside = all(self._inside(p) for p in access.paths)
        match access.kind:
            case AccessKind.READ:
                if inside:
                    return Allow("read inside the workspace")
                return Ask(f"{what} reads outside the workspace.")
            case AccessKind.EXECUTE:
                reads_inside = all(self._inside(p) for p in access.reads)
                if access.readonly_command and inside and reads_inside:
                    return Allow("read-only command")
                if access.readonly_command and inside:
                    return Ask(f"{what} reads outside the workspace.")
                if access.sandboxed and inside and reads_inside:
                    return Allow("sandboxed command: it can write only inside the workspace")
                return Ask(f"{what} runs a command.")
            case AccessKind.WRITE:
                if self.mode == "accept_edits" and inside:
                    return Allow("file edit inside the workspace (accept_edits mode)")
                where = "" if inside else " outside the workspace"
                return Ask(f"{what} changes files{where}.")
            case AccessKind.NETWORK:
                return Ask(f"{what} reaches the network.")
            case _:
                return Ask(f"{what} needs approval.")

    # -- approvals -----------------------------------------------------------------------

    def remember(self, request: PermissionRequest, answer: Answer) -> None:
        if answer.approval not in (Approval.SESSION, Approval.ALWAYS):
            return
        keys = _approval_keys(request)
        self._approved.update(keys)
        if answer.approval is Approval.ALWAYS and self._persist is not None:
            for rule in _rules_for(request):
                self._persist(rule)

    def _approved_before(self, request: PermissionRequest) -> bool:
        keys = _approval_keys(request)
        return bool(keys) and all(key in self._approved for key in keys)

    # -- helpers -------------------------------------------------------------------------

    def _inside(self, path: Path) -> bool:
        return any(is_within(path, root) for root in self._roots)

    def _protected_reason(self, access: Access) -> str | None:
        if self._protected is None:
            return None
        if access.kind not in (AccessKind.WRITE, AccessKind.EXECUTE, AccessKind.READ):
            return None
        reading = access.kind is AccessKind.READ
        touched = [(p, reading) for p in access.paths] + [(p, True) for p in access.reads]
        for path, read in touched:
            reason = self._protected(self._below_root(path))
            if reason and (not read or ".env" in reason):  # reads: only secrets are protected
                return reason
        return None

    def _below_root(self, path: Path) -> Path:
        """The part of ``path`` below the workspace root (the first root), else all of it.

        Where the user put the workspace is their choice: a project under
        ``~/.vscode/extensions/`` is not protected as a whole, its own ``.git/`` is. Extra
        directories get no such allowance — a project's settings can add them, and adding
        ``~/.claude`` or another repository's ``.git`` must not unprotect what is inside.
        """
        if self._roots and is_within(path, self._roots[0]):
            return path.relative_to(self._roots[0])
        return path


class _Protected(Protocol):
    def __call__(self, path: Path) -> str | None: ...


class _Persist(Protocol):
    def __call__(self, rule: str) -> None: ...


def _commands(access: Access) -> tuple[str, ...]:
    if access.commands:
        return access.commands
    return (access.command,) if access.command else ()


def _mutates(access: Access) -> bool:
    if access.kind in (AccessKind.WRITE, AccessKind.NETWORK) or access.outside_sandbox:
        return True
    return access.kind is AccessKind.EXECUTE and not access.readonly_command


def _verb(access: Access) -> str:
    return {
        AccessKind.WRITE: "change files",
        AccessKind.NETWORK: "reach the network",
    }.get(access.kind, "run a command that may change things")


_FAMILY = {
    "read_file": "Read",
    "glob": "Read",
    "grep": "Read",
    "ls": "Read",
    "write_file": "Edit",
    "edit_file": "Edit",
    "multi_edit": "Edit",
    "notebook_edit": "Edit",
    "bash": "Bash",
    "web_fetch": "WebFetch",
}


def _approval_keys(request: PermissionRequest) -> set[tuple[str, str]]:
    family = _FAMILY.get(request.tool, request.tool)
    access = request.access
    specifiers: Iterable[str]
    if access.commands or access.command:
        specifiers = _commands(access)
    elif access.url:
        specifiers = (_domain(access.url),)
    elif access.paths:
        specifiers = (str(p) for p in access.paths)
    else:
        specifiers = ("",)
    return {(family, s) for s in specifiers}


def _rules_for(request: PermissionRequest) -> list[str]:
    """Rules that allow exactly this call again (wildcards in names escaped)."""
    from toolbelt.permissions.rules import rule_for_approval  # rules imports this module

    access, tool = request.access, request.tool
    if access.commands or access.command:
        return [rule_for_approval(tool, c) for c in _commands(access)]
    if access.url:
        return [rule_for_approval(tool, access.url)]
    if access.paths:
        return [rule_for_approval(tool, str(p)) for p in access.paths]
    return [rule_for_approval(tool)]


def _example_rule(request: PermissionRequest) -> str:
    rules = _rules_for(request)
    return rules[0] if rules else request.tool


def _domain(url: str) -> str:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or url).lower()
