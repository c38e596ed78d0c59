"""Claude-compatible rules, settings files and persisted approvals."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from toolbelt.core.errors import SettingsError
from toolbelt.permissions.rules import RuleSet, parse_rule
from toolbelt.permissions.settings import add_local_rule, load_settings

CWD = Path("/w/pkg")
HOME = Path("/home/u")


@pytest.mark.parametrize(
    ("rule", "tool", "command", "expected"),
    [
        ("Bash(npm run build)", "bash", "npm run build", True),
        ("Bash(npm run build)", "bash", "npm run build --watch", False),
        ("Bash(npm run test:*)", "bash", "npm run test", True),
        ("Bash(npm run test:*)", "bash", "npm run test -- -k x", True),
        ("Bash(npm run test:*)", "bash", "npm run testx", False),
        ("Bash(git diff *)", "bash", "git diff", True),
        ("Bash(git diff *)", "bash", "git diff HEAD~1", True),
        ("Bash(git diff *)", "bash", "git difftool", False),
        ("Bash(npm *)", "bash", "npm install", True),
        ("Bash(* --version)", "bash", "node --version", True),
        ("Bash", "bash", "anything at all", True),
        ("Bash(ls)", "read_file", "ls", False),
    ],
)
def test_command_rules(rule: str, tool: str, command: str, expected: bool) -> None:
    parsed = parse_rule(rule)
    assert (parsed.covers(tool) and parsed.matches_command(command)) is expected


@pytest.mark.parametrize(
    ("rule", "path", "expected"),
    [
        ("Read(//etc/hosts)", "/etc/hosts", True),
        ("Read(~/.ssh/**)", "/home/u/.ssh/id_rsa", True),
        ("Read(~/.ssh/**)", "/home/u/.sshx/id_rsa", False),
        ("Read(/src/**)", "/w/src/a/b.py", True),
        ("Read(/src/**)", "/w/pkg/src/b.py", False),
        ("Read(./secrets/**)", "/w/pkg/secrets/k.txt", True),
        ("Read(secrets/**)", "/w/pkg/secrets/deep/k.txt", True),
        ("Read(./secrets/*)", "/w/pkg/secrets/deep/k.txt", False),
        ("Read(./secrets/*)", "/w/pkg/secrets/k.txt", True),
        ("Edit(./.env)", "/w/pkg/.env", True),
        ("Edit(./.env)", "/w/pkg/.env.local", False),
        ("Read(./build)", "/w/pkg/build/out/x.js", True),
        ("Read(**/*.key)", "/w/pkg/a/b/c.key", True),
    ],
)
def test_path_rules(rule: str, path: str, expected: bool) -> None:
    parsed = parse_rule(rule, project_root=Path("/w"))
    assert parsed.matches_path(Path(path), cwd=CWD, home=HOME) is expected


def test_tool_aliases() -> None:
    read, edit = parse_rule("Read"), parse_rule("Edit(src/**)")
    assert [read.covers(t) for t in ("read_file", "grep", "glob", "ls", "write_file")] == [
        True
    ] * 4 + [False]
    assert [edit.covers(t) for t in ("write_file", "edit_file", "multi_edit", "notebook_edit")] == [
        True
    ] * 4
    server, one = parse_rule("mcp__github"), parse_rule("mcp__github__create_issue")
    assert server.covers("mcp__github__list") and not server.covers("mcp__gitlab__list")
    assert one.covers("mcp__github__create_issue") and not one.covers("mcp__github__list")


def test_domain_rules() -> None:
    rule = parse_rule("WebFetch(domain:example.com)")
    assert rule.matches_url("https://example.com/a")
    assert rule.matches_url("https://docs.example.com/a")
    assert not rule.matches_url("https://example.com.evil.net/a")


def test_bad_rules_are_rejected() -> None:
    with pytest.raises(ValueError, match="only valid at the end"):
        parse_rule("Bash(npm:* run)")
    with pytest.raises(ValueError, match="is not a rule"):
        parse_rule("Bash(")


def ruleset(**lists: list[str]) -> RuleSet:
    parsed = {k: [parse_rule(r, source="settings.json") for r in v] for k, v in lists.items()}
    return RuleSet(**parsed, cwd=lambda: CWD, home=HOME)


def test_deny_then_ask_then_allow_first_match_wins() -> None:
    rules = ruleset(
        allow=["Bash(git *)"], ask=["Bash(git push:*)"], deny=["Bash(git push --force:*)"]
    )
    match = rules.match("bash", paths=(), commands=("git push --force origin",), url=None)
    assert match is not None and (match.verdict, match.rule) == ("deny", "Bash(git push --force:*)")
    match = rules.match("bash", paths=(), commands=("git push origin",), url=None)
    assert match is not None and match.verdict == "ask"
    match = rules.match("bash", paths=(), commands=("git status",), url=None)
    assert match is not None and match.verdict == "allow"


def test_compound_commands_need_every_part_allowed() -> None:
    rules = ruleset(allow=["Bash(npm test)", "Bash(git status)"], deny=["Bash(rm:*)"])
    both = rules.match("bash", paths=(), commands=("npm test", "git status"), url=None)
    assert both is not None and both.verdict == "allow"
    assert rules.match("bash", paths=(), commands=("npm test", "curl x"), url=None) is None
    denied = rules.match("bash", paths=(), commands=("npm test", "rm -rf /"), url=None)
    assert denied is not None and denied.verdict == "deny"


def test_read_deny_covers_search_results() -> None:
    rules = ruleset(deny=["Read(./secrets/**)"])
    assert rules.read_denied(Path("/w/pkg/secrets/a.txt"))
    assert not rules.read_denied(Path("/w/pkg/src/a.txt"))


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


def test_three_scopes_merge(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    write(home / ".config/toolbelt/settings.json", {"permissions": {"deny": ["Read(~/.ssh/**)"]}})
    write(
        root / ".toolbelt/settings.json",
        {
            "permissions": {"allow": ["Bash(npm test)"]},
            "hooks": {"PreToolUse": [{"matcher": "bash", "hooks": []}]},
            "model": "ignored",
        },
    )
    write(root / ".toolbelt/settings.local.json", {"permissions": {"ask": ["Bash(git push:*)"]}})
    settings = load_settings(root, home=home)
    assert [str(r) for r in settings.deny] == ["Read(~/.ssh/**)"]
    assert [str(r) for r in settings.allow] == ["Bash(npm test)"]
    assert [str(r) for r in settings.ask] == ["Bash(git push:*)"]
    assert list(settings.hooks) == ["PreToolUse"]
    assert settings.allow[0].source == str(root / ".toolbelt/settings.json")


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    write(
        tmp_path / ".toolbelt/settings.json",
        '{\n  "permissions": {\n    "allow": ["Bash(ls)",]\n  }\n}\n',
    )
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path, home=tmp_path / "home")
    assert str(info.value).startswith(f"{tmp_path}/.toolbelt/settings.json, line 3: not valid JSON")


def test_bad_rule_names_file_and_line(tmp_path: Path) -> None:
    write(
        tmp_path / ".toolbelt/settings.json",
        '{\n  "permissions": {\n    "deny": [\n      "Bash(rm:* -rf)"\n    ]\n  }\n}\n',
    )
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path, home=tmp_path / "home")
    assert str(info.value).startswith(
        f"{tmp_path}/.toolbelt/settings.json, line 4: 'Bash(rm:* -rf)'"
    )


def test_add_local_rule_round_trips_without_duplicates(tmp_path: Path) -> None:
    write(
        tmp_path / ".toolbelt/settings.local.json",
        {"permissions": {"allow": ["Bash(ls)"]}, "other": 1},
    )
    add_local_rule(tmp_path, "allow", "Bash(make)")
    add_local_rule(tmp_path, "allow", "Bash(make)")
    data = json.loads((tmp_path / ".toolbelt/settings.local.json").read_text())
    assert data == {"permissions": {"allow": ["Bash(ls)", "Bash(make)"]}, "other": 1}
    assert [str(r) for r in load_settings(tmp_path, home=tmp_path / "h").allow] == [
        "Bash(ls)",
        "Bash(make)",
    ]


def _append(root: str, index: int) -> None:
    for n in range(10):
        add_local_rule(Path(root), "allow", f"Bash(job-{index}-{n})")


def test_concurrent_appends_all_land(tmp_path: Path) -> None:
    processes = [
        multiprocessing.get_context("spawn").Process(target=_append, args=(str(tmp_path), i))
        for i in range(2)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    data = json.loads((tmp_path / ".toolbelt/settings.local.json").read_text())
    assert len(data["permissions"]["allow"]) == 20
