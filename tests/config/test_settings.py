"""Settings files: three merged scopes, errors naming file and line, persisted approvals."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.policy.identities import identity

from toolbelt.config.settings import add_local_rule, load_settings, settings_files
from toolbelt.core.errors import SettingsError


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def hook(command: str, matcher: str = "") -> dict[str, object]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}


def test_three_scopes_merge(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    user = write(
        home / ".config/toolbelt/settings.json",
        {
            "permissions": {"deny": ["Read(~/.ssh/**)"], "defaultMode": "plan"},
            "hooks": {"PreToolUse": [hook("user-check")]},
        },
    )
    project = write(
        root / ".toolbelt/settings.json",
        {
            "permissions": {"allow": ["Bash(npm test)"], "deny": ["Edit(/.git/**)"]},
            "hooks": {"PreToolUse": [hook("project-check", "bash")], "PostToolUse": []},
            "model": "pasted from Claude Code, ignored",
            "env": {"A": "1"},
        },
    )
    local = write(
        root / ".toolbelt/settings.local.json",
        {"permissions": {"ask": ["Bash(git push:*)"], "defaultMode": "acceptEdits"}},
    )
    settings = load_settings(root, home=home, trusted=True)
    assert [str(r) for r in settings.deny] == ["Read(~/.ssh/**)", "Edit(/.git/**)"]
    assert [str(r) for r in settings.allow] == ["Bash(npm test)"]
    assert [str(r) for r in settings.ask] == ["Bash(git push:*)"]
    assert [r.source for r in settings.deny] == [str(user), str(project)]
    assert settings.ask[0].source == str(local)
    assert {r.project_root for r in settings.deny} == {root}
    assert settings.hooks == {
        "PreToolUse": [hook("user-check"), hook("project-check", "bash")],
        "PostToolUse": [],
    }
    assert settings.default_mode == "accept_edits"  # the last scope that sets it wins
    assert settings.files == [user, project, local]


def test_rules_resolve_against_the_settings_root_and_home(tmp_path: Path) -> None:
    write(
        tmp_path / ".toolbelt/settings.json",
        '\ufeff{"permissions": {"allow": ["Edit(/src/**)"], "deny": ["Edit(~/.bashrc)"]}}',
    )
    settings = load_settings(tmp_path, home=tmp_path / "home", trusted=True)
    rules = settings.rule_set(cwd=tmp_path / "sub")
    assert rules.evaluate(identity("edit_file"), paths=[tmp_path / "src" / "a.py"]) == "allow"
    assert rules.evaluate(identity("edit_file"), paths=[tmp_path / "sub" / "src" / "a.py"]) is None
    assert rules.evaluate(identity("edit_file"), paths=[tmp_path / "home" / ".bashrc"]) == "deny"


def test_missing_and_empty_files_are_fine(tmp_path: Path) -> None:
    assert load_settings(tmp_path, home=tmp_path / "home").files == []
    empty = write(tmp_path / ".toolbelt/settings.json", "  \n")
    settings = load_settings(tmp_path, home=tmp_path / "home")
    assert (settings.files, settings.allow, settings.hooks) == ([empty], [], {})


def test_xdg_config_home_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    write(tmp_path / "xdg/toolbelt/settings.json", {"permissions": {"deny": ["WebFetch"]}})
    assert settings_files(tmp_path)[0] == tmp_path / "xdg/toolbelt/settings.json"
    assert [str(r) for r in load_settings(tmp_path).deny] == ["WebFetch"]
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")  # the spec says: ignore it
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert settings_files(tmp_path)[0] == tmp_path / "h/.config/toolbelt/settings.json"


def test_mode_directories_and_bypass_switch(tmp_path: Path) -> None:
    write(
        tmp_path / "proj/.toolbelt/settings.json",
        {
            "permissions": {
                "defaultMode": "bypassPermissions",
                "additionalDirectories": ["~/shared", "../lib", "/opt/data"],
                "disableBypassPermissionsMode": "disable",
            }
        },
    )
    settings = load_settings(tmp_path / "proj", home=tmp_path / "home", trusted=True)
    assert settings.default_mode == "bypass"
    assert settings.additional_directories == [
        tmp_path / "home/shared",
        tmp_path / "lib",
        Path("/opt/data"),
    ]
    assert settings.bypass_disabled


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "permissions": {\n    "allow": ["Bash(ls)",]\n  }\n}', "line 3: not valid JSON"),
        ('{\n  "permissions": {\n', "line 3: not valid JSON (Expecting property name"),
        ("[1, 2]", "line 1: the settings must be a JSON object."),
        (
            '{\n  "permissions": {\n    "allow": "Bash(ls)"\n  }\n}',
            "line 3: `permissions.allow`: Input should be a valid list.",
        ),
        (
            '{"permissions": {\n  "deny": [\n    "Read(a)",\n    7\n  ]\n}}',
            "line 4: `permissions.deny.1`: Input should be a valid string.",
        ),
        (
            '{\n  "permissions": {\n    "alow": ["Bash"]\n  }\n}',
            "line 3: `permissions.alow`: Extra inputs are not permitted.",
        ),
        (
            '{"permissions": {\n  "defaultMode": "yolo"}}',
            "line 2: `permissions.defaultMode`: unknown mode 'yolo'; use one of default, "
            "manual, acceptEdits, accept_edits, plan, bypassPermissions, bypass, dontAsk, "
            "dont_ask.",
        ),
        (
            '{"hooks": {\n  "PreTooluse": []}}',
            "line 2: unknown hook event 'PreTooluse'; toolbelt runs Notification, "
            "PermissionRequest, PostToolUse, PostToolUseFailure, PreCompact, PreToolUse, "
            "SessionEnd, SessionStart, Stop, SubagentStop, UserPromptSubmit.",
        ),
        (
            '{"hooks": {"PreToolUse": [\n  {"matcher": "(",\n   "hooks": []}]}}',
            "line 2: `hooks.PreToolUse.0.matcher`: matcher '(' is not a valid regex "
            "(missing ), unterminated subpattern at position 0).",
        ),
        (
            '{"hooks": {"PreToolUse": [{"hooks": [\n  {"type": "http", "url": "u"}]}]}}',
            "line 2: `hooks.PreToolUse.0.hooks.0`: hook type 'http' is not supported; "
            "toolbelt runs `command`.",
        ),
        (
            '{"hooks": {"PreToolUse": [{"hooks": [\n  {"command": "x", "if": "Bash(rm *)"}]}]}}',
            "line 2: `hooks.PreToolUse.0.hooks.0`: `if` conditions are not supported; select "
            "tools with `matcher` and filter inside the hook command.",
        ),
        (
            '{"hooks": {"PreToolUse": [{"matcher": "bash"}]}}',
            "line 1: `hooks.PreToolUse.0.hooks`: Field required.",
        ),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / ".toolbelt/settings.json", text)
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path, home=tmp_path / "home")
    assert str(info.value).startswith(f"{path}, {message}")


def test_bad_rule_names_file_and_line_of_that_entry(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".toolbelt/settings.local.json",
        "{\n"
        '  "note": "Bash(rm:* -rf)",\n'
        '  "permissions": {\n'
        '    "allow": ["Bash(ls)"],\n'
        '    "deny": [\n'
        '      "Read(./a)",\n'
        '      "Bash(rm:* -rf)"\n'
        "    ]\n"
        "  }\n"
        "}\n",
    )
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path, home=tmp_path / "home")
    assert str(info.value) == (
        f"{path}, line 7: 'Bash(rm:* -rf)': the `:*` prefix form is only valid at the end."
    )


def test_an_unreadable_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / ".toolbelt/settings.json"
    path.mkdir(parents=True)
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path, home=tmp_path / "home")
    assert str(info.value) == (
        f"{path}: not a regular file, so it is not read; replace it with a plain JSON file."
    )


def test_add_local_rule_round_trips_without_duplicates(tmp_path: Path) -> None:
    local = write(
        tmp_path / ".toolbelt/settings.local.json",
        {"permissions": {"allow": ["Bash(ls)"], "defaultMode": "plan"}, "other": [1, "ü"]},
    )
    assert add_local_rule(tmp_path, "allow", "Bash(make)") == local
    add_local_rule(tmp_path, "allow", "  Bash(make)  ")
    add_local_rule(tmp_path, "deny", "Read(./.env)")
    assert json.loads(local.read_text(encoding="utf-8")) == {
        "permissions": {
            "allow": ["Bash(ls)", "Bash(make)"],
            "defaultMode": "plan",
            "deny": ["Read(./.env)"],
        },
        "other": [1, "ü"],
    }
    settings = load_settings(tmp_path, home=tmp_path / "h", trusted=True)
    assert [str(r) for r in settings.allow] == ["Bash(ls)", "Bash(make)"]
    assert [str(r) for r in settings.deny] == ["Read(./.env)"]
    assert sorted(os.listdir(tmp_path / ".toolbelt")) == [
        "settings.local.json",
        "settings.local.json.lock",
    ]


def test_add_local_rule_creates_the_directory(tmp_path: Path) -> None:
    add_local_rule(tmp_path, "ask", "Bash(git push:*)")
    data = json.loads((tmp_path / ".toolbelt/settings.local.json").read_text())
    assert data == {"permissions": {"ask": ["Bash(git push:*)"]}}


@pytest.mark.parametrize(
    ("list_name", "rule", "message"),
    [
        ("allow", "Bash(a:* b)", "'Bash(a:* b)': the `:*` prefix form is only valid at the end"),
        ("always", "Bash(ls)", "'always' is not a rule list; use one of allow, ask, deny"),
    ],
)
def test_add_local_rule_refuses_what_would_not_load(
    tmp_path: Path, list_name: str, rule: str, message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        add_local_rule(tmp_path, list_name, rule)  # type: ignore[arg-type]
    assert not (tmp_path / ".toolbelt/settings.local.json").exists()


def test_add_local_rule_leaves_a_broken_file_alone(tmp_path: Path) -> None:
    local = write(tmp_path / ".toolbelt/settings.local.json", '{"permissions": {"allow": [}')
    with pytest.raises(SettingsError, match="line 1: not valid JSON"):
        add_local_rule(tmp_path, "allow", "Bash(ls)")
    assert local.read_text() == '{"permissions": {"allow": [}'


APPENDER = """
import sys
from pathlib import Path
from toolbelt.config.settings import add_local_rule
for n in range(40):
    add_local_rule(Path(sys.argv[1]), "allow", f"Bash(job-{sys.argv[2]}-{n})")
"""


def test_concurrent_appends_from_two_processes_all_land(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", APPENDER, str(tmp_path), str(i)]) for i in (1, 2)
    ]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0]
    data = json.loads((tmp_path / ".toolbelt/settings.local.json").read_text())
    assert sorted(data["permissions"]["allow"]) == sorted(
        f"Bash(job-{i}-{n})" for i in (1, 2) for n in range(40)
    )


def test_lsp_section_a_workspace_names_servers_only_when_trusted(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    write(
        home / ".config/toolbelt/settings.json",
        {"lsp": {"timeoutMs": 1500, "servers": {"go": ["/opt/gopls", "serve"]}}},
    )
    project = write(
        root / ".toolbelt/settings.json",
        {
            "lsp": {
                "diagnostics": False,
                "servers": {"python": ["./evil-server"], "typescript": False},
            }
        },
    )
    untrusted = load_settings(root, home=home, trusted=False)
    assert untrusted.lsp_timeout == 1.5
    assert untrusted.lsp_diagnostics is False  # turning off is always allowed
    assert untrusted.lsp_servers == {"go": ("/opt/gopls", "serve"), "typescript": None}
    assert untrusted.ignored == [f"{project}: 1 language server command"]
    trusted = load_settings(root, home=home, trusted=True)
    assert trusted.lsp_servers == {
        "go": ("/opt/gopls", "serve"),
        "python": ("./evil-server",),
        "typescript": None,
    }


def test_a_malformed_lsp_section_names_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    text = '{\n  "lsp": {\n    "servers": {"python": []}\n  }\n}'
    path = write(root / ".toolbelt/settings.json", text)
    with pytest.raises(SettingsError) as caught:
        load_settings(root, home=tmp_path / "home", trusted=True)
    assert str(caught.value) == (
        f"{path}, line 3: `lsp.servers`: the server for 'python' must be a command such as "
        '["pyright-langserver", "--stdio"], or false for none.'
    )
