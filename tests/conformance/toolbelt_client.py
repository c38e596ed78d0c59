"""toolbelt as the MCP client under test, driven by the conformance suite's client scenarios.

The suite runs ``python toolbelt_client.py URL`` with ``MCP_CONFORMANCE_SCENARIO`` (the
scenario's name) and, where the scenario needs them, ``MCP_CONFORMANCE_CONTEXT`` (JSON: a
pre-registered client's id and secret, a private key). It does what a person would: writes
the server into a workspace's ``.mcp.json`` (Claude Code's format, ``oauth`` object
included), logs in with ``toolbelt mcp-servers login`` when the scenario's server asks for a
person (the suite's authorization server approves at once, so the "browser" is a program that
follows the redirects: ``BROWSER``, honoured by Python's ``webbrowser``), lists the tools with
``toolbelt tools`` and calls one with ``toolbelt call``. Everything runs in a private
configuration directory, deleted at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FOLLOW = HERE.parent / "support" / "follow_redirects.py"
CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The client ID metadata document the suite's basic-cimd scenario expects to be offered."""


def entry(url: str, scenario: str, context: dict[str, Any], workspace: Path) -> dict[str, Any]:
    """The ``.mcp.json`` entry for the scenario's server."""
    server: dict[str, Any] = {"type": "http", "url": url}
    if not scenario.startswith("auth/"):
        return server
    oauth: dict[str, Any] = {}
    if scenario == "auth/basic-cimd":
        oauth["clientMetadataUrl"] = CIMD_URL
    if "client_id" in context:
        oauth["clientId"] = context["client_id"]
    if "client_secret" in context:
        oauth["clientSecret"] = "${CONFORMANCE_CLIENT_SECRET}"
    if scenario.startswith("auth/client-credentials"):
        oauth["grant"] = "client_credentials"
        key = context.get("private_key_pem")
        if key:
            key_file = workspace.parent / "client-key.pem"
            key_file.write_text(key)
            key_file.chmod(0o600)
            oauth["privateKeyJwt"] = str(key_file)
    method = context.get("token_endpoint_auth_method")
    if method in ("client_secret_basic", "client_secret_post"):
        oauth["tokenEndpointAuthMethod"] = method
    if oauth:
        server["oauth"] = oauth
    return server


def toolbelt(*args: str, env: dict[str, str], stdin: Any = subprocess.DEVNULL) -> Any:
    command = [sys.executable, "-m", "toolbelt.cli.main", *args]
    print("$ toolbelt " + " ".join(args), file=sys.stderr, flush=True)
    done = subprocess.run(command, env=env, stdin=stdin, capture_output=True, text=True, timeout=60)
    sys.stderr.write(done.stderr)
    sys.stdout.write(done.stdout)
    return done


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="toolbelt-conformance-") as scratch:
        base = Path(scratch)
        workspace = base / "ws"
        workspace.mkdir()
        servers = {"mcpServers": {"conf": entry(url, scenario, context, workspace)}}
        (workspace / ".mcp.json").write_text(json.dumps(servers))
        env = {
            **os.environ,
            "HOME": str(base / "home"),
            "XDG_CONFIG_HOME": str(base / "config"),
            "XDG_STATE_HOME": str(base / "state"),
            "BROWSER": f"{sys.executable} {FOLLOW} %s",
            "CONFORMANCE_CLIENT_SECRET": str(context.get("client_secret", "")),
        }
        place = ["--root", str(workspace), "--trust-workspace"]
        interactive = scenario.startswith("auth/") and not scenario.startswith(
            "auth/client-credentials"
        )
        if interactive:
            login = toolbelt("mcp-servers", "login", "conf", *place, env=env)
            if login.returncode != 0:
                return 1
        listed = toolbelt("tools", "--json", *place, env=env)
        if listed.returncode != 0:
            return 1
        tools = [
            tool["name"]
            for tool in json.loads(listed.stdout)
            if tool["name"].startswith("mcp__conf__")
        ]
        if not tools:  # a scenario whose server offers none (initialize)
            return 0
        arguments: dict[str, Any] = {}
        if "mcp__conf__add_numbers" in tools:
            tools, arguments = ["mcp__conf__add_numbers"], {"a": 5, "b": 3}
        called = toolbelt("call", tools[0], json.dumps(arguments), "--yes", *place, env=env)
        if interactive and "toolbelt mcp-servers login" in called.stdout:
            # the server wants more access for this tool (a step-up): log in again, as the
            # message says, and call it again
            if toolbelt("mcp-servers", "login", "conf", *place, env=env).returncode != 0:
                return 1
            called = toolbelt("call", tools[0], json.dumps(arguments), "--yes", *place, env=env)
        return 0 if called.returncode in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
