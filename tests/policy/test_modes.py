"""The policy's decision table: mode × kind of access, rules, protected paths, approvals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.policy.identities import identity
from toolbelt.core.access import Access, AccessKind, CommandAccess
from toolbelt.core.permission import Allow, Answer, Approval, Ask, Deny, PermissionRequest
from toolbelt.paths.protections import Protections
from toolbelt.policy.policy import RuleMatch, ToolbeltPolicy

ROOT = Path("/w")
INSIDE = Path("/w/src/app.py")
OUTSIDE = Path("/w-evil/app.py")


def request(tool: str, access: Access) -> PermissionRequest:
    return PermissionRequest("c1", tool, {}, access, readonly=False, identity=identity(tool))


READ_IN = ("read_file", Access(AccessKind.READ, paths=(INSIDE,)))
READ_OUT = ("read_file", Access(AccessKind.READ, paths=(OUTSIDE,)))
WRITE_IN = ("edit_file", Access(AccessKind.WRITE, paths=(INSIDE,)))
WRITE_OUT = ("write_file", Access(AccessKind.WRITE, paths=(OUTSIDE,)))
LS_CMD = ("bash", Access(AccessKind.EXECUTE, command=CommandAccess("ls", ("ls",), readonly=True)))
MAKE_CMD = ("bash", Access(AccessKind.EXECUTE, command=CommandAccess("make", ("make",))))
FETCH = ("web_fetch", Access(AccessKind.NETWORK, url="https://example.com/x"))
THINK = ("think", Access.none())

A, Q, D = "allow", "ask", "deny"
MATRIX: dict[str, tuple[str, ...]] = {
    #               read_in read_out write_in write_out ls  make fetch think
    "default": (A, Q, Q, Q, A, Q, Q, A),
    "accept_edits": (A, Q, A, Q, A, Q, Q, A),
    "plan": (A, Q, D, D, A, D, D, A),
    "bypass": (A, A, A, A, A, A, A, A),
    "dont_ask": (A, D, D, D, A, D, D, A),
}
CALLS = (READ_IN, READ_OUT, WRITE_IN, WRITE_OUT, LS_CMD, MAKE_CMD, FETCH, THINK)


def verdict(decision: Any) -> str:
    return {Allow: A, Ask: Q, Deny: D}[type(decision)]


@pytest.mark.parametrize("mode", list(MATRIX))
def test_mode_by_kind_matrix(mode: Any) -> None:
    policy = ToolbeltPolicy(mode=mode, roots=[ROOT])
    got = tuple(verdict(policy.decide(request(tool, access))) for tool, access in CALLS)
    assert got == MATRIX[mode]


def test_plan_mode_refusal_tells_the_model_why() -> None:
    policy = ToolbeltPolicy(mode="plan", roots=[ROOT])
    decision = policy.decide(request(*WRITE_IN))
    assert isinstance(decision, Deny)
    assert decision.reason.startswith("Plan mode is on, so `edit_file` cannot change files.")


def test_dont_ask_says_how_to_allow() -> None:
    policy = ToolbeltPolicy(mode="dont_ask", roots=[ROOT])
    decision = policy.decide(request(*MAKE_CMD))
    assert isinstance(decision, Deny)
    assert (
        "add an allow rule to .toolbelt/settings.json (for example `Bash(make)`)" in decision.reason
    )


class FixedRules:
    def __init__(self, match: RuleMatch | None) -> None:
        self.result = match

    def match(self, tool: str, **_: Any) -> RuleMatch | None:
        return self.result


@pytest.mark.parametrize("mode", ["default", "bypass", "accept_edits"])
def test_deny_rule_wins_in_every_mode(mode: Any) -> None:
    rules = FixedRules(RuleMatch("deny", "Read(./secrets/**)", "/w/.toolbelt/settings.json"))
    decision = ToolbeltPolicy(mode=mode, roots=[ROOT], rules=rules).decide(request(*READ_IN))
    assert decision == Deny(
        "the rule `Read(./secrets/**)` in /w/.toolbelt/settings.json denies this call. Do not "
        "retry it; choose another approach or ask the user to change the rule."
    )


def test_ask_rule_is_forced_and_allow_rule_allows() -> None:
    ask = ToolbeltPolicy(
        mode="bypass", roots=[ROOT], rules=FixedRules(RuleMatch("ask", "Bash(git push:*)"))
    )
    decision = ask.decide(request(*LS_CMD))
    assert isinstance(decision, Ask)
    assert decision.forced
    allow = ToolbeltPolicy(
        mode="default", roots=[ROOT], rules=FixedRules(RuleMatch("allow", "Bash(make)"))
    )
    assert isinstance(allow.decide(request(*MAKE_CMD)), Allow)


@pytest.mark.parametrize("mode", ["default", "accept_edits", "bypass"])
def test_protected_paths_ask_in_every_mode_and_are_never_remembered(mode: Any) -> None:
    policy = ToolbeltPolicy(mode=mode, roots=[ROOT], protections=Protections([ROOT]))
    hook = request(
        "write_file", Access(AccessKind.WRITE, paths=(Path("/w/.git/hooks/pre-commit"),))
    )
    decision = policy.decide(hook)
    assert isinstance(decision, Ask)
    assert (decision.forced, decision.remember) == (True, False)
    # reading .git is fine, reading .env is not
    assert isinstance(
        policy.decide(request("read_file", Access(AccessKind.READ, paths=(Path("/w/.git/HEAD"),)))),
        Allow,
    )
    assert isinstance(
        policy.decide(
            request("read_file", Access(AccessKind.READ, paths=(Path("/w/.env.local"),)))
        ),
        Ask,
    )


def test_only_the_part_below_the_root_is_checked_for_protected_names() -> None:
    root = Path("/home/u/.vscode/extensions/mine")  # a workspace inside a protected name
    extra = Path("/home/u/other/.git")  # an added directory gets no such allowance
    protections = Protections([root, extra])
    policy = ToolbeltPolicy(mode="bypass", roots=[root, extra], protections=protections)

    def write(path: str) -> object:
        access = Access(AccessKind.WRITE, paths=(Path(path),))
        return policy.decide(request("write_file", access))

    assert isinstance(write(f"{root}/src/extension.ts"), Allow)
    assert isinstance(write(f"{root}/.git/hooks/pre-commit"), Ask)
    assert isinstance(write(f"{root}/.VSCode/settings.json"), Ask)
    assert isinstance(write("/home/u/.vscode/settings.json"), Ask)  # outside: whole path
    assert isinstance(write("/home/u/.bashrc"), Ask)
    assert isinstance(write("/home/u/notes.txt"), Allow)
    assert isinstance(write(f"{extra}/hooks/pre-commit"), Ask)


def test_dangerous_commands_ask_even_after_a_session_approval() -> None:
    policy = ToolbeltPolicy(mode="default", roots=[ROOT])
    rm = request(
        "bash",
        Access(
            AccessKind.EXECUTE,
            command=CommandAccess(
                "rm -rf build", ("rm -rf build",), dangerous=("rm deletes files",)
            ),
        ),
    )
    decision = policy.decide(rm)
    assert isinstance(decision, Ask)
    assert decision.remember is False
    policy.remember(rm, Answer(Approval.SESSION))
    assert isinstance(policy.decide(rm), Ask)


def test_session_approval_covers_the_same_specifier_only() -> None:
    policy = ToolbeltPolicy(mode="default", roots=[ROOT])
    make = request(*MAKE_CMD)
    policy.remember(make, Answer(Approval.SESSION))
    assert isinstance(policy.decide(make), Allow)
    other = request(
        "bash",
        Access(AccessKind.EXECUTE, command=CommandAccess("make install", ("make install",))),
    )
    assert isinstance(policy.decide(other), Ask)
    both = request(
        "bash",
        Access(AccessKind.EXECUTE, command=CommandAccess("make && npm test", ("make", "npm test"))),
    )
    assert isinstance(policy.decide(both), Ask)


def test_always_persists_rules() -> None:
    saved: list[str] = []
    policy = ToolbeltPolicy(mode="default", roots=[ROOT], persist=saved.append)
    policy.remember(request(*MAKE_CMD), Answer(Approval.ALWAYS))
    policy.remember(request(*WRITE_OUT), Answer(Approval.ALWAYS))
    policy.remember(request(*FETCH), Answer(Approval.ALWAYS))
    assert saved == ["Bash(make)", "Edit(//w-evil/app.py)", "WebFetch(domain:example.com)"]


def test_a_glob_approval_is_saved_under_the_family_it_was_approved_as() -> None:
    """glob was approved as `Read` for the session but saved as a `Glob` rule; the tool's own
    identity now decides both, so what is saved is what was approved."""
    saved: list[str] = []
    policy = ToolbeltPolicy(mode="default", roots=[ROOT], persist=saved.append)
    glob_outside = request("glob", Access(AccessKind.READ, paths=(OUTSIDE,)))
    policy.remember(glob_outside, Answer(Approval.ALWAYS))
    assert saved == ["Read(//w-evil/app.py)"]
    read_outside = request(*READ_OUT)
    assert isinstance(policy.decide(read_outside), Allow)  # the same family, approved once
