"""What `toolbelt mcp` tells a client beside results: how to allow a refused call, and log
messages — the untrusted-workspace warning and errors — in the 2026-07-28 era too, where
there is no `initialized` notification and each request opts in to logs itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.mcp.http_server import start
from tests.mcp.test_stdio_end_of_input import call, initialize, serve
from tests.support.toolbelt_cli import TOOLBELT_ARGS

from mcp import Client, StdioServerParameters
from toolbelt.sandbox.landlock import abi_version

pytestmark = pytest.mark.anyio

NO_ELICITATION = (
    "This MCP client cannot ask the user (it does not support elicitation); to allow this "
    "call, add {entry} to .toolbelt/settings.json in the workspace (which must be trusted: "
    "`toolbelt trust`) or start `toolbelt mcp` with --mode {mode}."
)


def home_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home)}


def refusals(
    root: Path,
    *calls: tuple[str, dict[str, Any]],
    trust: bool = False,
    sandbox: str = "auto",
    mode: str = "default",
) -> list[str]:
    lines = [initialize(), *(call(i, name, args) for i, (name, args) in enumerate(calls, 2))]
    extra = ("--sandbox", sandbox, "--mode", mode, *(("--trust-workspace",) if trust else ()))
    got = serve(root, lines, *extra)
    return [got[i]["result"]["content"][0]["text"] for i in range(2, len(calls) + 2)]


async def test_a_refusal_names_the_rule_that_allows_this_very_call(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    write = ("write_file", {"path": "src/new file.txt", "content": "n\n"})
    command = ("bash", {"command": "make && npm test"})
    outside = ("write_file", {"path": str(tmp_path / "out.txt"), "content": "o\n"})
    # without the sandbox a command asks (sandboxed, `make` would run: it writes only inside)
    told = refusals(root, write, command, outside, sandbox="off")
    rules = [
        ["Edit(./src/new file.txt)"],
        ["Bash(make)", "Bash(npm test)"],
        [f"Edit(/{tmp_path}/out.txt)"],
    ]
    reasons = [
        "create src/new file.txt (+1 -0) changes files.",
        "`make && npm test` runs a command.",
        # outside, reading asks: the summary tells nothing of the file, not even if it exists
        f"write {tmp_path}/out.txt changes files outside the workspace.",
    ]
    modes = ["accept_edits or bypass", "bypass", "bypass"]
    for text, reason, allow, mode in zip(told, reasons, rules, modes, strict=True):
        entry = json.dumps({"permissions": {"allow": allow}})
        assert text == f"{reason} {NO_ELICITATION.format(entry=entry, mode=mode)}"
    # following the advice works: the suggested entry, in a trusted workspace, allows the call
    (root / ".toolbelt").mkdir()
    settings = {"permissions": {"allow": [*rules[0], *rules[2]]}}
    (root / ".toolbelt" / "settings.json").write_text(json.dumps(settings))
    assert refusals(root, write, outside, trust=True) == [
        "Created src/new file.txt (2 bytes, 1 line).",
        f"Wrote {tmp_path}/out.txt (2 bytes); what it held before, if anything, is not "
        f"described because reading {tmp_path}/out.txt is not allowed without asking.",
    ]
    assert (root / "src" / "new file.txt").read_text() == "n\n"


@pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")
def test_a_refusal_offers_no_rule_or_mode_that_would_not_allow_the_call(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    unconfined = {"command": "echo hi", "sandbox": False, "justification": "needs the network"}
    dangerous = ("bash", {"command": "rm -rf build"})
    told = refusals(root, ("bash", unconfined), dangerous, sandbox="landlock")
    cannot = "This MCP client cannot ask the user (it does not support elicitation)"
    assert told == [
        "`echo hi` asks to run OUTSIDE the sandbox (no limit on writes, secrets or network) "
        f"because: needs the network {cannot}, and no rule or mode allows running outside the "
        'sandbox; retry without "sandbox": false, or leave this step to the user.',
        # bypass mode still asks about a dangerous command; a rule for it does allow it
        f"`rm -rf build` is potentially dangerous (rm deletes files). {cannot}; to allow this "
        'call, add {"permissions": {"allow": ["Bash(rm -rf build)"]}} to '
        ".toolbelt/settings.json in the workspace (which must be trusted: `toolbelt trust`).",
    ]
    (root / "build").mkdir()
    assert refusals(root, dangerous, sandbox="landlock", mode="bypass")[0].startswith(
        "`rm -rf build` is potentially dangerous"
    )
    assert (root / "build").is_dir()


@pytest.fixture
def untrusted(tmp_path: Path) -> Path:
    """A workspace whose settings ask for more than an untrusted workspace may have."""
    root = tmp_path / "work"
    (root / ".toolbelt").mkdir(parents=True)
    settings = {"permissions": {"allow": ["Bash(touch made)"]}}
    (root / ".toolbelt" / "settings.json").write_text(json.dumps(settings))
    return root


def notice(root: Path) -> str:
    return (
        "this workspace is not trusted, so its settings may only restrict; ignored "
        f"{root}/.toolbelt/settings.json: 1 allow rule. Trust it with `toolbelt trust` (or "
        "`--trust-workspace` for one run)."
    )


MISSING_LOG = (
    "read_file: tool_error: missing.txt does not exist. Check the name (use `glob` to find "
    "files); relative paths start at the working directory."
)


class Logs:
    """A logging callback that keeps (level, text) pairs."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def __call__(self, params: Any) -> None:
        self.seen.append((params.level, str(params.data)))


def stdio(root: Path, tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--root", str(root)],
        env=home_env(tmp_path),
    )


async def test_modern_stdio_client_gets_the_untrusted_warning_once(
    untrusted: Path, tmp_path: Path
) -> None:
    logs = Logs()
    async with Client(stdio(untrusted, tmp_path), log_level="warning", logging_callback=logs) as c:
        assert c.session.discover_result is not None  # the 2026-07-28 era
        first = await c.call_tool("think", {"thought": "a"})
        second = await c.call_tool("think", {"thought": "b"})
    assert (first.is_error, second.is_error) == (False, False)
    assert logs.seen == [("warning", notice(untrusted))]


async def test_modern_client_gets_logs_at_the_level_its_request_asks(
    untrusted: Path, tmp_path: Path
) -> None:
    quiet, chatty = Logs(), Logs()
    async with Client(stdio(untrusted, tmp_path), logging_callback=quiet) as client:
        await client.call_tool("read_file", {"path": "missing.txt"})
    async with Client(stdio(untrusted, tmp_path), log_level="info", logging_callback=chatty) as c:
        await c.call_tool("read_file", {"path": "missing.txt"})
    assert quiet.seen == []  # no level in the request: no logs (the 2026-07-28 rule)
    assert chatty.seen == [("warning", notice(untrusted)), ("info", MISSING_LOG)]


async def test_modern_http_client_gets_logs_in_its_call_stream(
    untrusted: Path, tmp_path: Path
) -> None:
    server = start(untrusted, env=home_env(tmp_path))
    try:
        logs = Logs()
        async with server.client(log_level="info", logging_callback=logs) as client:
            await client.call_tool("read_file", {"path": "missing.txt"})
    finally:
        server.stop()
    assert logs.seen == [("warning", notice(untrusted)), ("info", MISSING_LOG)]


def test_a_protected_path_refusal_offers_no_rule_or_mode(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    hook = ("write_file", {"path": ".git/hooks/pre-commit", "content": "x\n"})
    told = refusals(root, hook, mode="bypass")
    assert told == [
        "create .git/hooks/pre-commit (+1 -0) touches a protected path (.git/ holds repository "
        "configuration and hooks that git runs later). This MCP client cannot ask the user (it "
        "does not support elicitation); leave this step to the user, who can do it by hand (no "
        "allow rule or mode skips the question for a protected path)."
    ]
    assert not (root / ".git").exists()
