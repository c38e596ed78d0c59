"""Tool names stay unique across servers and over time; rules name servers as people spell them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_client.conftest import fake_entry, write_servers
from tests.mcp_client.test_cli import toolbelt
from tests.support.waiting import wait_until_async
from toolbelt import Runtime, ToolCall
from toolbelt.core.requesters import AutoApprove
from toolbelt.mcp_client.tools import server_prefixes, server_spellings, tool_names


def tools_file(path: Path, *names: str) -> Path:
    schema = {"type": "object", "properties": {}}
    path.write_text(json.dumps([{"name": n, "inputSchema": schema} for n in names]))
    return path


def server(mark: str, tmp_path: Path, label: str, *names: str) -> dict[str, Any]:
    listed = tools_file(tmp_path / f"{label}-tools.json", *names)
    return fake_entry(mark, tmp_path, FAKE_TOOLS=str(listed), FAKE_LABEL=f"{label}:")


def test_server_parts_hold_no_double_underscore_and_never_meet() -> None:
    assert server_prefixes(["a", "a__b", "a_b", "A.B", "brave-search"]) == [
        "a",
        "a_b_2",
        "a_b",
        "a_b_3",
        "brave_search",
    ]
    spellings = server_spellings(["a__b", "a_b", "brave-search"], ["a_b_2", "a_b", "brave_search"])
    # `a_b` is the other server's name: `a__b` is never reached by it
    assert spellings == [("a__b", "a_b_2"), ("a_b",), ("brave-search", "brave_search")]


def test_a_remote_tool_keeps_its_name_and_a_given_name_is_never_reused() -> None:
    first = tool_names("s", ["echo", "Echo"])
    assert first == {"echo": "mcp__s__echo", "Echo": "mcp__s__echo_2"}
    later = tool_names("s", ["Echo", "ECHO"], given=first)
    assert later == {"Echo": "mcp__s__echo_2", "ECHO": "mcp__s__echo_3"}


def test_servers_whose_names_would_collide_all_work_from_the_cli(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    write_servers(
        workspace / ".mcp.json",
        {
            "a": server(mark, tmp_path, "a", "b__c"),
            "a__b": server(mark, tmp_path, "ab", "c"),
            "innocent": server(mark, tmp_path, "inn", "useful"),
        },
    )
    root = ("--root", str(workspace), "--trust-workspace")
    listed = toolbelt("tools", *root, "--json")
    assert (listed.returncode, listed.stderr) == (0, "")
    names = {tool["name"] for tool in json.loads(listed.stdout)}
    assert {"mcp__a__b__c", "mcp__a_b__c", "mcp__innocent__useful"} <= names
    for name, answer in [
        ("mcp__a__b__c", "a:b__c: {}\n"),
        ("mcp__a_b__c", "ab:c: {}\n"),
        ("mcp__innocent__useful", "inn:useful: {}\n"),
    ]:
        done = toolbelt("call", name, "{}", *root, "--yes")
        assert (done.returncode, done.stdout) == (0, answer)
    servers = toolbelt("mcp-servers", *root)
    assert servers.returncode == 0 and "Traceback" not in servers.stderr
    assert [line.split("\t")[:3] for line in servers.stdout.splitlines()] == [
        ["a", "running", "13 tools"],
        ["a__b", "running", "13 tools"],
        ["innocent", "running", "13 tools"],
    ]


@pytest.mark.anyio
async def test_a_colliding_tool_added_mid_session_gets_its_own_name(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    write_servers(
        workspace / ".mcp.json",
        {"a": server(mark, tmp_path, "a", "x"), "a__b": server(mark, tmp_path, "ab", "c")},
    )
    async with Runtime(workspace, trusted=True, requester=AutoApprove()) as runtime:
        await runtime.toolset.list_tools()
        tools_file(tmp_path / "a-tools.json", "x", "b__c")
        await runtime.run_one(ToolCall("1", "mcp__a__change", {}))
        await wait_until_async(
            lambda: "mcp__a__b__c" in runtime.toolset, "the changed tool list to arrive"
        )
        results = await runtime.run(
            [
                ToolCall("2", "mcp__a__b__c", {}),
                ToolCall("3", "mcp__a_b__c", {}),
                ToolCall("4", "think", {"thought": "still here"}),
            ]
        )
    assert [r.text for r in results[:2]] == ["a:b__c: {}", "ab:c: {}"]
    assert results[2].error_kind is None


@pytest.mark.parametrize(
    "rule",
    [
        "mcp__brave-search",
        "mcp__brave-search__*",
        "mcp__brave-search__delete_all",
        "mcp__brave_search",
        "mcp__brave_search__delete_all",
        "mcp__*",
    ],
)
def test_a_deny_rule_names_the_server_as_configured_or_as_shown(
    workspace: Path, mark: str, tmp_path: Path, rule: str
) -> None:
    write_servers(
        workspace / ".mcp.json", {"brave-search": server(mark, tmp_path, "bs", "delete_all")}
    )
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"deny": [rule]}}))
    root = ("--root", str(workspace), "--trust-workspace", "--yes")
    direct = toolbelt("call", "mcp__brave_search__delete_all", "{}", *root)
    proxied = toolbelt(
        "call", "call_mcp_tool",
        json.dumps({"server": "brave-search", "tool": "delete_all", "arguments": {}}), *root,
    )  # fmt: skip
    for done in (direct, proxied):
        assert done.returncode == 3
        assert done.stdout.startswith(f"the rule `{rule}` in {settings} denies this call.")


def test_a_rule_for_server_a_does_not_reach_server_a__b(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    write_servers(
        workspace / ".mcp.json",
        {"a": server(mark, tmp_path, "a", "x"), "a__b": server(mark, tmp_path, "ab", "c")},
    )
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["mcp__a"]}}))
    root = ("--root", str(workspace), "--trust-workspace")
    allowed = toolbelt("call", "mcp__a__x", "{}", *root)
    assert (allowed.returncode, allowed.stdout) == (0, "a:x: {}\n")
    other = toolbelt("call", "mcp__a_b__c", "{}", *root)
    assert other.returncode == 3


def test_rules_naming_an_unknown_server_or_tool_are_reported(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    write_servers(
        workspace / ".mcp.json", {"brave-search": server(mark, tmp_path, "bs", "delete_all")}
    )
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    rules = ["mcp__brave-serch", "mcp__brave-search__delete_al", "mcp__brave-search__delete_all"]
    settings.write_text(json.dumps({"permissions": {"deny": rules}}))
    root = ("--root", str(workspace), "--trust-workspace")
    done = toolbelt("call", "mcp__brave_search__echo", '{"text": "hi"}', *root, "--yes")
    assert (done.returncode, done.stdout) == (0, "echo: hi\n")
    assert done.stderr.startswith(
        f"toolbelt: the permission rules `mcp__brave-serch` (in {settings}) name no configured "
        "MCP server, so they match nothing; the servers are `brave-search` (write "
        "`mcp__<server>` or `mcp__<server>__<tool>`).\n"
    )
    servers = toolbelt("mcp-servers", *root)
    assert servers.stdout.splitlines()[0].endswith(
        "\tthe rules `mcp__brave-search__delete_al` name tools it does not have"
    )


def test_a_hook_matcher_written_with_the_configured_server_name_selects_its_tools(
    workspace: Path, mark: str, tmp_path: Path
) -> None:
    write_servers(
        workspace / ".mcp.json", {"brave-search": server(mark, tmp_path, "bs", "delete_all")}
    )
    settings = workspace / ".toolbelt" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    hook = {"type": "command", "command": "echo 'no deleting' >&2; exit 2"}
    settings.write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [{"matcher": "mcp__brave-search__.*", "hooks": [hook]}]}}
        )
    )
    done = toolbelt(
        "call", "mcp__brave_search__delete_all", "{}", "--root", str(workspace),
        "--trust-workspace", "--yes",
    )  # fmt: skip
    assert done.returncode == 3
    assert "no deleting" in done.stdout
