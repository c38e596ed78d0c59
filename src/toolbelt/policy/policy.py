"""The permission policy: modes, rules, protected paths, dangerous commands, approvals.

``decide`` is a pure function of the request, the rules and what the user approved earlier
in the session. It is evaluated in a fixed order, first match wins::

    no effect (think, todo)                       → allow
    a deny rule matches                           → deny (Read/Edit rules also judge the
                                                    files a command reads / writes)
    plan mode and the call writes or executes     → deny (the message says it is plan mode;
                                                    a fetch an allow rule covers still runs)
    a command asks to run outside the OS sandbox  → ask, whatever the rules, never remembered
    an ask rule matches                           → ask (a hook's "allow" cannot skip it)
    a protected path (.git/, .env*, .mcp.json …)  → ask, in every mode, never remembered
    an allow rule matches                         → allow, unless the command writes outside
    a dangerous command (rm, git push, curl | sh) → ask, never remembered
    approved earlier in this session              → allow
    bypass mode                                   → allow
    the mode's default for the kind of access     → allow or ask (a command that only
                                                    creates files, run in the sandbox's create
                                                    profile: allow, unless a deny rule names
                                                    files not to read)
    dont_ask mode turns every remaining ask into a deny (for CI and headless runs)

The modes are described where they are listed, in ``policy.modes``. Which rules speak
about a call is the tool's own declaration (``Tool.rule_identity``), carried on the request.

The shell analysis behind ``CommandAccess.readonly`` / ``CommandAccess.dangerous`` only
decides whether to ask: it is not a sandbox, and the documentation says so.

Protected paths come from the session's one catalogue (``paths.protections.Protections``): the
path guard stamped the paths it resolved (``Access.protections``), and the policy asks the
catalogue itself only for paths no guard saw (a custom or MCP tool's).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol

from toolbelt.core.access import Access, AccessKind, Protection
from toolbelt.core.listing import EntryTest, HiddenPaths
from toolbelt.core.permission import (
    Allow,
    Answer,
    Approval,
    Ask,
    Decision,
    Deny,
    PermissionPolicy,
    PermissionRequest,
)
from toolbelt.core.rule_identity import FILE_READ, FILE_WRITE, RuleIdentity
from toolbelt.paths.containment import is_within_any
from toolbelt.paths.protections import Protections
from toolbelt.policy.modes import Mode
from toolbelt.policy.rules import RuleMatch, RuleSet, rule_for_approval

__all__ = ["Mode", "RuleMatch", "RuleMatcher", "ToolbeltPolicy", "allow_rules"]

SETTINGS_HINT = ".toolbelt/settings.json"
PROTECTED_REMEDY = (
    "leave this step to the user, who can do it by hand (no allow rule or mode skips the "
    "question for a protected path)"
)


class RuleMatcher(Protocol):
    """Evaluates allow / ask / deny rules for a call (deny → ask → allow, first match)."""

    def match(
        self,
        tool: RuleIdentity,
        *,
        paths: Sequence[Path],
        commands: Sequence[str],
        url: str | None,
    ) -> RuleMatch | None: ...

    def read_denied(self, path: Path) -> bool:
        """Whether a path-scoped read-deny rule covers ``path``."""
        ...

    @property
    def denies_reads(self) -> bool:
        """Whether some deny rule names paths that reading tools may not see."""
        ...

    @property
    def denies_reads_by_pattern(self) -> bool:
        """Whether some read-deny rule picks names by wildcard (the sandbox cannot hide it)."""
        ...


class ToolbeltPolicy(PermissionPolicy):
    """The standard policy used by every door (library, CLI, MCP)."""

    def __init__(
        self,
        *,
        mode: Mode,
        roots: Sequence[Path],
        rules: RuleMatcher | None = None,
        protections: Protections | None = None,
        persist: _Persist | None = None,
        no_always: str = "",
    ) -> None:
        """``protections``: the session's catalogue of protected paths (None: the policy
        knows of none but what ``Access.protections`` carries)."""
        self.mode = mode
        self._roots = tuple(roots)
        self._rules: RuleMatcher = rules or RuleSet()  # no rules: none speaks
        self._protections = protections
        self._persist = persist
        self._no_always = no_always or (
            "" if persist is not None else "this session keeps no settings file to save it in"
        )
        self._approved: set[tuple[str, str]] = set()

    def in_mode(self, mode: Mode) -> ToolbeltPolicy:
        """A twin of this policy in ``mode``: the same rules, protections and session
        approvals (a "yes for this session" given to either holds for both), for a subagent
        whose profile runs in a stricter mode than its parent."""
        twin = copy.copy(self)
        twin.mode = mode
        return twin

    # -- the decision --------------------------------------------------------------------

    def decide(self, request: PermissionRequest) -> Decision:
        access = request.access
        if access.kind in (AccessKind.NONE, AccessKind.INTERACT):
            return Allow("no effect outside the session")
        command = access.command
        match = self._rules.match(
            request.rule_identity, paths=access.paths, commands=_commands(access), url=access.url
        )
        if command is not None and command.runs and (match is None or match.verdict == "allow"):
            # `Bash(curl:*)` denied is denied as `c''url`, `env curl` or `env -S'curl …'` too
            runs = self._rules.match(
                request.rule_identity, paths=(), commands=command.runs, url=None
            )
            if runs is not None and runs.verdict != "allow":
                match = runs
        if match is not None and match.verdict == "deny":
            return Deny(
                f"{match.describe()} denies this call. Do not retry it; choose another approach "
                "or ask the user to change the rule."
            )
        if access.reads:  # a command's file arguments answer to the read rules too
            read = self._rules.match(FILE_READ, paths=access.reads, commands=(), url=None)
            if read is not None and read.verdict == "deny":
                return Deny(
                    f"{read.describe()} denies reading a file this command reads. Do not "
                    "retry it another way; ask the user if the file is needed."
                )
        if access.kind is AccessKind.EXECUTE and access.paths:  # what a command writes
            write = self._rules.match(FILE_WRITE, paths=access.paths, commands=(), url=None)
            if write is not None and write.verdict == "deny":
                return Deny(
                    f"{write.describe()} denies writing a file this command writes. Do not "
                    "retry it another way; ask the user if the change is needed."
                )
        allowed_fetch = (
            access.kind is AccessKind.NETWORK and match is not None and match.verdict == "allow"
        )
        if self.mode == "plan" and _mutates(access) and not allowed_fetch:  # allow rules only
            return Deny(
                f"Plan mode is on, so `{request.tool}` cannot {_verb(access)}. Only reading and "
                "read-only commands run in plan mode; finish the plan and ask the user to leave "
                "plan mode before making changes."
            )
        decision = self._decide_ask_or_allow(request, match)
        if isinstance(decision, Ask) and self.mode == "dont_ask" and decision.remedy:
            return Deny(
                f"{decision.reason} The permission mode is dont_ask, so anything that would ask "
                f"is denied; run with another --mode to be asked, or {decision.remedy}."
            )
        if isinstance(decision, Ask) and self.mode == "dont_ask":
            return Deny(
                f"{decision.reason} The permission mode is dont_ask, so anything that would ask "
                f"is denied; to allow it, add an allow rule to {SETTINGS_HINT} (for example "
                f"`{_example_rule(request)}`) or run with another --mode."
            )
        return decision

    def _decide_ask_or_allow(self, request: PermissionRequest, match: RuleMatch | None) -> Decision:
        access, command = request.access, request.access.command
        what = access.summary or f"`{request.tool}`"
        if command is not None and command.outside_sandbox is not None:
            return Ask(
                f"{what} asks to run OUTSIDE the sandbox (no limit on writes, secrets or "
                f"network) because: {command.outside_sandbox}",
                remember=False,
                forced=True,
                remedy='retry without "sandbox": false, or leave this step to the user (no '
                "allow rule or mode skips the question for a command outside the sandbox)",
            )
        if match is not None and match.verdict == "ask":
            return Ask(
                f"{match.describe()} asks before {what}.",
                forced=True,
                remedy=f"leave this step to the user ({match.describe()} asks in every mode, "
                "whatever the allow rules say)",
            )
        protected = self._protected_reason(access)
        if protected:  # before allow rules: a rule for `echo` is no rule for `.git/hooks`
            return Ask(
                f"{what} touches a protected path ({protected}).",
                remember=False,
                forced=True,
                remedy=PROTECTED_REMEDY,
            )
        if match is not None and match.verdict == "allow":
            outside = [p for p in access.paths if not self._inside(p)]
            if access.kind is AccessKind.EXECUTE and outside:
                return Ask(
                    f"{what} writes outside the workspace ({outside[0]}); a rule for a command "
                    "does not cover the files it writes.",
                    remember=False,
                )
            return Allow(f"allowed by {match.describe()}")
        if command is not None and command.dangerous:
            reasons = "; ".join(command.dangerous)
            return Ask(f"{what} is potentially dangerous ({reasons}).", remember=False, forced=True)
        if self._approved_before(request):
            return Allow("approved earlier in this session")
        if self.mode == "bypass":
            return Allow("bypass mode")
        return self._mode_default(request, what)

    def _mode_default(self, request: PermissionRequest, what: str) -> Decision:
        access, command = request.access, request.access.command
        inside = all(self._inside(p) for p in access.paths)
        match access.kind:
            case AccessKind.READ:
                if inside:
                    return Allow("read inside the workspace")
                return Ask(f"{what} reads outside the workspace.")
            case AccessKind.EXECUTE:
                if command is None:  # a custom or MCP tool: its effects are its own
                    return Ask(f"{what} has effects toolbelt cannot check.")
                reads_inside = all(self._inside(p) for p in command.reads)
                if command.readonly and inside and reads_inside:
                    return Allow("read-only command")
                if command.readonly and inside:
                    return Ask(f"{what} reads outside the workspace.")
                # the fewer-prompts rule: a command runs unasked only in a profile where what
                # would have needed a prompt is impossible (it creates files, never changes or
                # deletes one; reads only the quiet view); the sandbox hides what read-deny
                # rules name whole, a rule by wildcard it cannot, so then such a command asks
                if (
                    command.sandboxed
                    and inside
                    and reads_inside
                    and not self._rules.denies_reads_by_pattern
                ):
                    return Allow(
                        "it only creates files, in the sandbox's create profile: nothing that "
                        "exists can be changed or deleted"
                    )
                return Ask(f"{what} runs a command{command.asks_because}.")
            case AccessKind.WRITE:
                if self.mode == "accept_edits" and inside:
                    return Allow("file edit inside the workspace (accept_edits mode)")
                where = "" if inside else " outside the workspace"
                return Ask(f"{what} changes files{where}.")
            case AccessKind.NETWORK:
                return Ask(f"{what} reaches the network.")
            case _:
                return Ask(f"{what} needs approval.")

    def hidden_paths(self) -> Callable[[Path], bool] | None:
        """Read-denied paths, and secrets (``.env*``, token files) whose read asks in every
        mode: a listing showing their lines or names would be a read without the question."""
        # None when nothing is hidden: searches then need not judge each path they find
        denied = self._rules.read_denied if self._rules.denies_reads else None
        protections = self._protections
        if protections is None:
            return denied
        return _ListedHidden(denied, protections)

    # -- approvals -----------------------------------------------------------------------

    def remember(self, request: PermissionRequest, answer: Answer) -> None:
        if answer.approval not in (Approval.SESSION, Approval.ALWAYS):
            return
        keys = _approval_keys(request)
        self._approved.update(keys)
        if answer.approval is Approval.ALWAYS and self._persist is not None:
            for rule in allow_rules(request):
                self._persist(rule)

    @property
    def why_no_always(self) -> str:
        return self._no_always

    def _approved_before(self, request: PermissionRequest) -> bool:
        keys = _approval_keys(request)
        return bool(keys) and all(key in self._approved for key in keys)

    # -- helpers -------------------------------------------------------------------------

    def _inside(self, path: Path) -> bool:
        return is_within_any(path, self._roots)

    def _protected_reason(self, access: Access) -> str | None:
        """Why the call touches a protected path, or None.

        The path guard found the protections (``Access.protections``), by each path's name as
        written and where it resolves; the catalogue is asked here only for the paths of a
        tool that built its ``Access`` without the guard. Reading asks only for secrets;
        writing asks for anything protected.
        """
        if access.kind not in (AccessKind.WRITE, AccessKind.EXECUTE, AccessKind.READ):
            return None
        found: Iterable[Protection]
        if access.protections is not None:
            found = access.protections
        elif self._protections is not None:
            judged = (self._protections.of(p) for p in (*access.paths, *access.reads))
            found = [p for p in judged if p is not None]
        else:
            found = ()
        writing = access.kind is not AccessKind.READ
        for protection in found:
            if protection.kind == "secret" or (writing and protection.path in access.paths):
                return protection.reason
        return None


class _Persist(Protocol):
    def __call__(self, rule: str) -> None: ...


def _commands(access: Access) -> tuple[str, ...]:
    return () if access.command is None else access.command.parts


def _mutates(access: Access) -> bool:
    command = access.command
    if access.kind in (AccessKind.WRITE, AccessKind.NETWORK):
        return True
    if command is not None and command.outside_sandbox:
        return True
    return access.kind is AccessKind.EXECUTE and not (command is not None and command.readonly)


def _verb(access: Access) -> str:
    return {
        AccessKind.WRITE: "change files",
        AccessKind.NETWORK: "reach the network",
    }.get(access.kind, "run a command that may change things")


def _approval_keys(request: PermissionRequest) -> set[tuple[str, str]]:
    family = request.rule_identity.family
    access = request.access
    specifiers: Iterable[str]
    if _commands(access):
        specifiers = _commands(access)
    elif access.url:
        specifiers = (_domain(access.url),)
    elif access.paths:
        specifiers = (str(p) for p in access.paths)
    else:
        specifiers = ("",)
    return {(family, s) for s in specifiers}


def allow_rules(request: PermissionRequest, *, cwd: Path | None = None) -> list[str]:
    """Rules that allow exactly this call again (wildcards in names escaped); with ``cwd``,
    paths below it are written ``./relative``, as in a rule a person is told to add."""
    access, tool = request.access, request.rule_identity
    if _commands(access):
        return [rule_for_approval(tool, c) for c in _commands(access)]
    if access.url:
        return [rule_for_approval(tool, access.url)]
    if access.paths:
        return [rule_for_approval(tool, str(p), cwd=cwd) for p in access.paths]
    return [rule_for_approval(tool)]


def _example_rule(request: PermissionRequest) -> str:
    rules = allow_rules(request)
    return rules[0] if rules else request.rule_identity.family


def _domain(url: str) -> str:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or url).lower()


class _ListedHidden(HiddenPaths):
    """Read-denied paths and listed secrets, with the shortcut for a quiet directory's files
    (``Protections.quiet_directory``): a plain entry (``Protections.plain_entry``) is hidden
    only if a read-deny rule covers it."""

    def __init__(self, denied: Callable[[Path], bool] | None, protections: Protections) -> None:
        self._denied = denied
        self._protections = protections

    def __call__(self, path: Path) -> bool:
        if self._denied is not None and self._denied(path):
            return True
        return self._protections.listed_secret(path)

    def plain_entries(self, directory: str) -> EntryTest | None:
        if not self._protections.quiet_directory(directory):
            return None
        plain, denied = self._protections.plain_entry, self._denied
        if denied is None:
            return plain
        parent = Path(directory)

        def plain_and_allowed(name: str, info: os.stat_result | None) -> bool:
            return plain(name, info) and not denied(parent / name)

        return plain_and_allowed
