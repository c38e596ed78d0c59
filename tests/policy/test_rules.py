"""Permission rules in Claude Code's syntax: parsing, matching, evaluation order, approvals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.policy.identities import identity
from toolbelt.policy.rules import Rule, RuleSet, parse_rule, rule_for_approval

CWD = Path("/nonexistent-tb/w/pkg")
ROOT = Path("/nonexistent-tb/w")
HOME = Path("/nonexistent-tb/home/u")


@pytest.mark.parametrize(
    ("text", "tool", "specifier", "rendered"),
    [
        ("Bash", "Bash", None, "Bash"),
        ("Bash(npm run build)", "Bash", "npm run build", "Bash(npm run build)"),
        ("  Read( src/** )  ", "Read", "src/**", "Read(src/**)"),
        ("Bash(echo (a) b)", "Bash", "echo (a) b", "Bash(echo (a) b)"),
        ("read_file(src/**)", "read_file", "src/**", "read_file(src/**)"),
        ("mcp__github", "mcp__github", None, "mcp__github"),
        ("mcp__github__*", "mcp__github__*", None, "mcp__github__*"),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com", None),
        ("Task(Explore)", "Task", "Explore", "Task(Explore)"),
    ],
)
def test_parse_and_round_trip(
    text: str, tool: str, specifier: str | None, rendered: str | None
) -> None:
    rule = parse_rule(text, source="s.json")
    assert (rule.tool, rule.specifier, rule.source) == (tool, specifier, "s.json")
    assert str(rule) == (rendered or text)
    assert parse_rule(str(rule), source="s.json") == rule


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Bash(npm:* run)", "'Bash(npm:* run)': the `:*` prefix form is only valid at the end"),
        ("Bash(a:*:*)", "'Bash(a:*:*)': the `:*` prefix form is only valid at the end"),
        ("Bash(", "'Bash(' is not a rule; write `Tool` or `Tool(specifier)`"),
        ("Bash(ls) extra", "'Bash(ls) extra' is not a rule; write `Tool` or `Tool(specifier)`"),
        ("", "'' is not a rule; write `Tool` or `Tool(specifier)`"),
        ("Bash(  )", "'Bash(  )' has an empty specifier; write `Bash` for every use"),
        ("Read*", "'Read*': only `mcp__server__*` may end the tool name with `*`"),
        (
            "WebFetch(https://example.com)",
            "'WebFetch(https://example.com)': URL rules name a host, as in "
            "`WebFetch(domain:https://example.com)`",
        ),
        ("WebFetch(domain:)", "'WebFetch(domain:)': write `WebFetch(domain:example.com)`"),
        (
            "Read(./[z-a].txt)",
            "'Read(./[z-a].txt)': the class [z-a] has a range that runs backwards; put the "
            "smaller character first, as in [a-z]",
        ),
    ],
)
def test_bad_rules_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_rule(text)


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        # exact (Claude Code's documented `Bash(npm run build)`)
        ("Bash(npm run build)", "npm run build", True),
        ("Bash(npm run build)", "npm run build --watch", False),
        ("Bash(npm run build)", "npm  run\tbuild ", True),
        # legacy prefix: ends at a word boundary
        ("Bash(npm run test:*)", "npm run test", True),
        ("Bash(npm run test:*)", "npm run test -- -k x", True),
        ("Bash(npm run test:*)", "npm run testx", False),
        ("Bash(npm run test:*)", "npm run tes", False),
        # wildcard: a space before `*` is a word boundary, a trailing ` *` is optional
        ("Bash(npm run *)", "npm run", True),
        ("Bash(npm run *)", "npm run lint", True),
        ("Bash(npm run *)", "npm runner", False),
        ("Bash(ls *)", "ls -la", True),
        ("Bash(ls *)", "lsof", False),
        ("Bash(ls*)", "lsof", True),
        ("Bash(git * main)", "git checkout main", True),
        ("Bash(git * main)", "git checkout main2", False),
        ("Bash(* --version)", "node --version", True),
        ("Bash(* --version)", "node --version --json", False),
        ("Bash(*)", "anything at all", True),
        ("Bash", "anything at all", True),
        # an escaped star is literal
        ("Bash(echo \\*)", "echo *", True),
        ("Bash(echo \\*)", "echo hi", False),
        ("Bash(echo a:\\*)", "echo a:*", True),
        ("Bash(echo a:\\*)", "echo a: b", False),
    ],
)
def test_command_rules(rule: str, command: str, expected: bool) -> None:
    assert parse_rule(rule).matches_command(command) is expected


@pytest.mark.parametrize(
    ("rule", "path", "expected"),
    [
        # //absolute
        ("Read(//etc/hosts)", "/etc/hosts", True),
        ("Read(//etc/hosts)", "/etc/hostsx", False),
        ("Read(//)", "/any/where", True),
        # ~/home
        ("Read(~/.ssh/**)", f"{HOME}/.ssh/id_rsa", True),
        ("Read(~/.ssh/**)", f"{HOME}/.sshx/id_rsa", False),
        ("Read(~)", f"{HOME}/notes.txt", True),
        # /project-root (of the settings file), not the filesystem root
        ("Read(/src/**)", f"{ROOT}/src/a/b.py", True),
        ("Read(/src/**)", f"{CWD}/src/b.py", False),
        ("Read(/src/**)", "/src/b.py", False),
        # ./cwd and x/y (a middle slash anchors at the cwd)
        ("Read(./secrets/**)", f"{CWD}/secrets/k.txt", True),
        ("Read(secrets/**)", f"{CWD}/secrets/deep/k.txt", True),
        ("Read(secrets/**)", f"{CWD}/a/secrets/k.txt", False),
        ("Edit(./.env)", f"{CWD}/.env", True),
        ("Edit(./.env)", f"{CWD}/.env.local", False),
        ("Edit(./.env)", f"{CWD}/sub/.env", False),
        # a bare name matches at any depth below the cwd (gitignore), but not above it
        ("Read(.env)", f"{CWD}/sub/deep/.env", True),
        ("Read(*.env)", f"{CWD}/a/b/prod.env", True),
        ("Read(*.env)", f"{ROOT}/prod.env", False),
        # `*` and `?` stay within a directory, `**` crosses any depth
        ("Read(./secrets/*)", f"{CWD}/secrets/k.txt", True),
        ("Read(./secrets/*)", f"{CWD}/secrets/deep/k.txt", False),
        ("Read(src/*.py)", f"{CWD}/src/a.py", True),
        ("Read(src/*.py)", f"{CWD}/src/pkg/a.py", False),
        ("Read(src/**/*.py)", f"{CWD}/src/a.py", True),
        ("Read(src/**/*.py)", f"{CWD}/src/pkg/deep/a.py", True),
        ("Read(src/**/*.py)", f"{CWD}/src/pkg/a.pyc", False),
        ("Read(./?.txt)", f"{CWD}/a.txt", True),
        ("Read(./?.txt)", f"{CWD}/ab.txt", False),
        ("Read(./[ab].txt)", f"{CWD}/b.txt", True),
        ("Read(./[!ab].txt)", f"{CWD}/b.txt", False),
        # a `]` right after `[` or `[!` is a member (`[!]` once crashed the matcher)
        ("Read(./[]x].txt)", f"{CWD}/].txt", True),
        ("Read(./[!]x].txt)", f"{CWD}/].txt", False),
        ("Read(./[!]x].txt)", f"{CWD}/a.txt", True),
        ("Read(./\\*.txt)", f"{CWD}/*.txt", True),
        ("Read(./\\*.txt)", f"{CWD}/a.txt", False),
        # a pattern whose last name has no wildcard covers what is below it
        ("Read(./build)", f"{CWD}/build/out/x.js", True),
        ("Read(./build)", f"{CWD}/builds/x.js", False),
    ],
)
def test_path_rules(rule: str, path: str, expected: bool) -> None:
    parsed = parse_rule(rule, project_root=ROOT)
    assert parsed.matches_path(Path(path), cwd=CWD, home=HOME) is expected


def test_path_rules_resolve_symlinked_bases(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    rule = parse_rule("Edit(/src/**)", project_root=tmp_path / "link")
    assert rule.matches_path(real / "src" / "a.py", cwd=tmp_path, home=HOME)
    assert not rule.matches_path(tmp_path / "src" / "a.py", cwd=tmp_path, home=HOME)


@pytest.mark.parametrize(
    ("rule", "tool", "expected"),
    [
        ("Read", "read_file", True),
        ("Read", "grep", True),
        ("Read", "glob", True),
        ("Read", "ls", True),
        ("Read", "write_file", False),
        ("Edit", "write_file", True),
        ("Edit", "multi_edit", True),
        ("Write", "edit_file", True),
        ("MultiEdit", "notebook_edit", True),
        ("NotebookEdit", "write_file", True),
        ("Edit", "read_file", False),
        ("Bash", "bash", True),
        ("Bash", "bash_output", True),
        ("Bash", "kill_shell", True),
        ("Glob", "glob", True),
        ("Glob", "grep", False),
        ("Grep", "grep", True),
        ("LS", "ls", True),
        ("WebFetch", "web_fetch", True),
        ("TodoWrite", "todo_write", True),
        ("read_file", "read_file", True),
        ("read_file", "grep", False),
        ("mcp__github", "mcp__github__create_issue", True),
        ("mcp__github", "mcp__github", True),
        ("mcp__github", "mcp__githubber__list", False),
        ("mcp__github__*", "mcp__github__list", True),
        ("mcp__github__create_issue", "mcp__github__create_issue", True),
        ("mcp__github__create_issue", "mcp__github__list", False),
        ("mcp__github__create_issue", "mcp__github__create_issue__v2", False),
    ],
)
def test_tool_aliases(rule: str, tool: str, expected: bool) -> None:
    assert parse_rule(rule).covers(identity(tool)) is expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/a", True),
        ("https://docs.example.com/a", True),
        ("http://EXAMPLE.com:8080/x", True),
        ("https://example.com./a", True),
        ("https://example.com.evil.net/a", False),
        ("https://notexample.com/a", False),
        ("file:///etc/passwd", False),
        ("http://[::1/x", False),
    ],
)
def test_domain_rules(url: str, expected: bool) -> None:
    assert parse_rule("WebFetch(domain:example.com)").matches_url(url) is expected


def rules(**lists: list[str]) -> RuleSet:
    parsed = {
        name: [parse_rule(r, source="settings.json", project_root=ROOT) for r in texts]
        for name, texts in lists.items()
    }
    return RuleSet(**parsed, cwd=CWD, home=HOME)


def test_deny_then_ask_then_allow_first_match_wins() -> None:
    ruleset = rules(
        allow=["Bash(git *)"], ask=["Bash(git push:*)"], deny=["Bash(git push --force:*)"]
    )
    match = ruleset.match(identity("bash"), commands=["git push --force origin"])
    assert match is not None
    assert (match.verdict, match.rule, match.source) == (
        "deny",
        "Bash(git push --force:*)",
        "settings.json",
    )
    assert ruleset.evaluate(identity("bash"), commands=["git push origin"]) == "ask"
    assert ruleset.evaluate(identity("bash"), commands=["git status"]) == "allow"
    assert ruleset.evaluate(identity("bash"), commands=["ls"]) is None


def test_a_broad_deny_cannot_have_allow_exceptions() -> None:
    ruleset = rules(allow=["Bash(aws s3 ls)"], deny=["Bash(aws *)"])
    assert ruleset.evaluate(identity("bash"), commands=["aws s3 ls"]) == "deny"


@pytest.mark.parametrize(
    ("commands", "expected"),
    [
        (["npm test", "git status"], "allow"),
        (["npm test", "curl x"], None),
        (["npm test", "rm -rf /"], "deny"),
        (["git push origin", "npm test"], "ask"),
        (["rm -rf /", "git push"], "deny"),
        ([], None),
    ],
)
def test_compound_commands_are_judged_per_part(commands: list[str], expected: str | None) -> None:
    ruleset = rules(
        allow=["Bash(npm test)", "Bash(git status)"],
        ask=["Bash(git push:*)"],
        deny=["Bash(rm:*)"],
    )
    assert ruleset.evaluate(identity("bash"), commands=commands) == expected


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        ([f"{CWD}/a/x.py", f"{CWD}/b/y.py"], "allow"),
        ([f"{CWD}/a/x.py", f"{CWD}/c/z.py"], None),
        ([f"{CWD}/a/x.py", f"{CWD}/a/.env"], "deny"),
        ([], None),
    ],
)
def test_every_path_must_be_allowed(paths: list[str], expected: str | None) -> None:
    ruleset = rules(allow=["Edit(./a/**)", "Edit(./b/**)"], deny=["Edit(.env)"])
    assert ruleset.evaluate(identity("write_file"), paths=[Path(p) for p in paths]) == expected


def test_bare_rules_and_specifiers_that_cannot_apply() -> None:
    ruleset = rules(allow=["Read", "Task(Explore)", "WebFetch(domain:x.org)"], deny=["mcp__gh"])
    assert ruleset.evaluate(identity("grep"), paths=[Path("/anywhere")]) == "allow"
    assert (
        ruleset.evaluate(identity("task")) is None
    )  # toolbelt cannot tell the subagent: never matches
    assert ruleset.evaluate(identity("mcp__gh__create_issue")) == "deny"
    assert ruleset.evaluate(identity("web_fetch"), url="https://api.x.org/v1") == "allow"
    assert ruleset.evaluate(identity("web_fetch"), url="https://x.com/") is None
    assert ruleset.evaluate(identity("web_fetch")) is None
    assert ruleset.evaluate(identity("write_file"), paths=[Path("/anywhere")]) is None


def test_a_bash_deny_covers_the_shell_companions() -> None:
    ruleset = rules(deny=["Bash"])
    assert [ruleset.evaluate(identity(t)) for t in ("bash", "bash_output", "kill_shell")] == [
        "deny"
    ] * 3


def test_cwd_can_follow_the_session() -> None:
    cwd = [CWD]
    ruleset = RuleSet(allow=[parse_rule("Edit(./a/**)")], cwd=lambda: cwd[0], home=HOME)
    target = [CWD / "sub" / "a" / "x.py"]
    assert ruleset.evaluate(identity("edit_file"), paths=target) is None
    cwd[0] = CWD / "sub"
    assert ruleset.evaluate(identity("edit_file"), paths=target) == "allow"


def test_read_denied_filters_search_results() -> None:
    ruleset = rules(deny=["Read(./secrets/**)", "Edit(./src/**)"])
    assert ruleset.read_denied(CWD / "secrets" / "a.txt")
    assert not ruleset.read_denied(CWD / "src" / "a.txt")


@pytest.mark.parametrize(
    ("tool", "specifier", "expected"),
    [
        ("bash", "npm run build", "Bash(npm run build)"),
        ("bash", "ls *.py", "Bash(ls \\*.py)"),
        ("bash", "echo a:*", "Bash(echo a:\\*)"),
        ("write_file", "/p/a.txt", "Edit(//p/a.txt)"),
        ("multi_edit", "/p/a.txt", "Edit(//p/a.txt)"),
        ("read_file", "/p/[x]*.txt", "Read(//p/\\[x]\\*.txt)"),
        ("edit_file", "/p/name ", "Edit(//p/name\\ )"),
        ("grep", "/p", "Read(//p)"),  # saved under the family it is approved as
        ("web_fetch", "https://Docs.Example.com/a?b", "WebFetch(domain:docs.example.com)"),
        ("web_fetch", "example.com", "WebFetch(domain:example.com)"),
        ("bash_output", None, "Bash"),
        ("mcp__gh__list", None, "mcp__gh__list"),
    ],
)
def test_rule_for_approval(tool: str, specifier: str | None, expected: str) -> None:
    assert rule_for_approval(identity(tool), specifier) == expected


def test_approved_rules_allow_exactly_what_was_approved() -> None:
    command = parse_rule(rule_for_approval(identity("bash"), "ls *.py"))
    assert command.matches_command("ls *.py")
    assert not command.matches_command("ls secret.py")
    path = parse_rule(rule_for_approval(identity("read_file"), "/p/[x]*.txt"))
    assert path.matches_path(Path("/p/[x]*.txt"), cwd=CWD, home=HOME)
    assert not path.matches_path(Path("/p/x-anything.txt"), cwd=CWD, home=HOME)


@pytest.mark.parametrize(
    ("tool", "specifier", "message"),
    [
        ("bash", "  ", "'Bash(  )' has an empty specifier; write `Bash` for every use"),
        ("write_file", "relative.txt", "'relative.txt' is not an absolute path"),
    ],
)
def test_rule_for_approval_refuses_what_it_cannot_render(
    tool: str, specifier: str, message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        rule_for_approval(identity(tool), specifier)


@given(st.text(st.characters(codec="utf-8", exclude_characters="\0"), min_size=1))
def test_an_approved_command_rule_matches_its_command(command: str) -> None:
    if not command.strip():
        return
    rule = parse_rule(rule_for_approval(identity("bash"), command))
    assert rule.matches_command(command)
    assert not rule.matches_command(command + " --and-more")


_NAME = st.text(st.characters(codec="ascii", exclude_characters="/\0"), min_size=1)


@given(st.lists(_NAME.filter(lambda name: name not in (".", "..")), min_size=1))
def test_an_approved_path_rule_matches_its_path(names: list[str]) -> None:
    path = "/nonexistent-tb/" + "/".join(names)
    rule = parse_rule(rule_for_approval(identity("edit_file"), path))
    assert isinstance(rule, Rule)
    assert rule.matches_path(Path(path), cwd=CWD, home=HOME)
    assert not rule.matches_path(Path(path + "x"), cwd=CWD, home=HOME)
