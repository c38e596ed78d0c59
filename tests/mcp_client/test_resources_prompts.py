"""Another server's resources and prompts, through the agent loop, against the reference
``server-everything``: the model lists and reads resources (under the server's rules), the
server's instructions reach the system prompt, a person's prompt (``--prompt server:name``)
and ``@server:uri`` mentions become the turn's text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent.scripts import call, reply
from tests.mcp_client.conftest import EVERYTHING, everything_entry, write_servers
from tests.support.fake_provider import FakeProvider
from toolbelt import Runtime
from toolbelt.agent import Agent
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.config.settings import Settings
from toolbelt.core.errors import ToolError
from toolbelt.mcp_client.prompts import expand_mentions, render_prompt, server_prompts
from toolbelt.providers.model import ToolResultsMessage, UserMessage
from toolbelt.sandbox.sandbox import SandboxSettings

pytestmark = pytest.mark.anyio

FEATURES = "demo://resource/static/document/features.md"


@pytest.fixture
def everything(workspace: Path, mark: str) -> Path:
    write_servers(workspace / ".mcp.json", {"everything": everything_entry(mark)})
    return workspace


def docs(name: str) -> str:
    return (EVERYTHING.parent / "docs" / name).read_text()


def open_runtime(root: Path, settings: Settings | None = None) -> Runtime:
    runtime = Runtime(root, trusted=True, settings=settings)
    runtime.use_sandbox(SandboxSettings(mode="off"))
    return runtime


async def test_the_model_lists_and_reads_resources_and_reads_the_instructions(
    everything: Path,
) -> None:
    model = ScriptedModel(
        [
            reply(
                "",
                call("1", "list_mcp_resources", server="everything"),
                call("2", "read_mcp_resource", server="everything", uri=FEATURES),
            ),
            reply("Read it."),
        ]
    )
    async with open_runtime(everything) as runtime, Agent(model, runtime) as agent:
        result = await agent.run("What does the server offer?")
    assert result.text == "Read it."
    listing, read = _results(model.requests[1])
    assert listing.state.value == "success"
    assert (
        f"everything: {FEATURES} features.md (text/markdown) — Static document file exposed "
        "from /docs: features.md"
    ) in listing.text.splitlines()
    assert read.text == docs("features.md")
    system = model.requests[0].system
    assert "# Instructions of the MCP server `everything`" in system
    instructions = system.split("# Instructions of the MCP server `everything`")[1]
    assert docs("instructions.md").strip()[:200] in instructions
    assert len(instructions) < 2048 + 300  # capped
    offered = {tool.name for tool in model.requests[0].tools}
    assert {"list_mcp_resources", "read_mcp_resource"} <= offered


async def test_a_rule_denying_the_server_denies_its_resources(everything: Path) -> None:
    settings = Settings(trusted=True)
    from toolbelt.policy.rules import parse_rule

    settings.deny.append(parse_rule("mcp__everything"))
    model = ScriptedModel(
        [reply("", call("1", "read_mcp_resource", server="everything", uri=FEATURES)), reply("")]
    )
    async with open_runtime(everything, settings) as runtime, Agent(model, runtime) as agent:
        await agent.run("read it")
    (denied,) = _results(model.requests[1])
    assert denied.state.value == "error"
    assert denied.error_kind == "permission_denied"
    assert "mcp__everything" in denied.text


async def test_a_prompt_and_a_mention_become_the_turns_text(everything: Path) -> None:
    model = ScriptedModel([reply("Sunny.")])
    async with open_runtime(everything) as runtime, Agent(model, runtime) as agent:
        servers = runtime.mcp_servers
        listed = await server_prompts(servers.servers[0]) if servers else []
        assert ("/mcp__everything__args-prompt", (("city", True), ("state", False))) in [
            (prompt.command, prompt.arguments) for prompt in listed
        ]
        text = await render_prompt(servers, "everything:args-prompt", {"city": "Paris"})
        text, problems = await expand_mentions(
            servers, runtime.run_one, text + f"\nSee @everything:{FEATURES}."
        )
        with pytest.raises(ToolError, match="needs city; give them as name=value"):
            await render_prompt(servers, "mcp__everything__args-prompt", {})
        await agent.run(text)
    assert problems == []
    sent = model.requests[0].messages[0]
    assert isinstance(sent, UserMessage)
    words = sent.content[0].text  # type: ignore[union-attr]
    assert words.startswith("What's weather in Paris?")
    assert f'<resource server="everything" uri="{FEATURES}">\n{docs("features.md")}' in words


def test_toolbelt_run_with_an_mcp_prompt(everything: Path) -> None:
    with FakeProvider([{"text": "Sunny."}]) as fake:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "toolbelt.cli.main",
                "run",
                "--model",
                "openai:gpt-5",
                "--base-url",
                fake.openai_url,
                "--root",
                str(everything),
                "--trust-workspace",
                "--prompt",
                "everything:args-prompt",
                "city=Lyon",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "OPENAI_API_KEY": "test"},
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Sunny.\n"
        body = json.dumps(fake.requests[0].body)
    assert "What's weather in Lyon?" in body


def _results(request: object) -> tuple:  # type: ignore[type-arg]
    last = request.messages[-1]  # type: ignore[attr-defined]
    assert isinstance(last, ToolResultsMessage)
    return last.results
