"""The edit tool each model knows: apply_patch for GPT-family models, edit_file for the others,
through the agent loop — a GPT model against the loopback fake provider with the real OpenAI
SDK — and the ``editTool`` setting that chooses for every model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.agent.scripts import reply
from tests.support.fake_provider import FakeProvider
from toolbelt.agent import Agent
from toolbelt.agent.edit_tools import gpt_family
from toolbelt.config.settings import Settings, load_settings
from toolbelt.runtime import Runtime
from toolbelt.sandbox.sandbox import SandboxSettings
from toolbelt.testing import ScriptedModel

PATCH = (
    "*** Begin Patch\n"
    "*** Update File: app.py\n"
    "@@ def greet():\n"
    '-    return "helo"\n'
    '+    return "hello"\n'
    "*** Add File: test_app.py\n"
    "+from app import greet\n"
    "+\n"
    "+\n"
    "+def test_greet():\n"
    '+    assert greet() == "hello"\n'
    "*** End Patch\n"
)


def runtime(root: Path, settings: Settings | None = None) -> Runtime:
    opened = Runtime(root, mode="accept_edits", settings=settings or Settings())
    opened.use_sandbox(SandboxSettings(mode="off"))
    return opened


def offered(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body["tools"]}


def test_a_gpt_model_patches_files_through_the_loop(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text('def greet():\n    return "helo"\n')
    script = [
        {"calls": [{"name": "read_file", "arguments": {"path": "app.py"}}]},
        {"calls": [{"name": "apply_patch", "arguments": {"input": PATCH}}]},
        {"text": "Fixed the greeting and added a test."},
    ]

    async def main(url: str) -> str:
        async with runtime(tmp_path) as opened:
            agent = Agent("openai:gpt-5", opened, base_url=url, api_key="sk-test")
            async with agent:
                return (await agent.run("Fix the greeting")).text

    with FakeProvider(script) as fake:
        text = anyio.run(main, fake.openai_url)
    assert text == "Fixed the greeting and added a test."
    assert (tmp_path / "app.py").read_text() == 'def greet():\n    return "hello"\n'
    assert (tmp_path / "test_app.py").read_text() == (
        'from app import greet\n\n\ndef test_greet():\n    assert greet() == "hello"\n'
    )
    first = fake.requests[0].body
    assert "apply_patch" in offered(first)
    assert not offered(first) & {"edit_file", "multi_edit", "write_file"}
    assert "Change files with apply_patch" in first["messages"][0]["content"]
    answer = [m for m in fake.requests[2].body["messages"] if m["role"] == "tool"][-1]
    assert answer["content"] == (
        "Success. Updated the following files:\nM app.py (+1 -1)\nA test_app.py (+5 -0)"
    )


def _offered_to(model: str, tmp_path: Path, settings: Settings | None = None) -> set[str]:
    scripted = ScriptedModel([reply("nothing to do")], model=model)

    async def main() -> None:
        async with runtime(tmp_path, settings) as opened:
            await Agent(scripted, opened).run("hi")

    anyio.run(main)
    return {tool.name for tool in scripted.requests[0].tools}


@pytest.mark.parametrize(
    "model", ["anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-pro", "openai:gpt-4o"]
)
def test_other_models_are_offered_edit_file(model: str, tmp_path: Path) -> None:
    names = _offered_to(model, tmp_path)
    assert {"edit_file", "multi_edit", "write_file"} <= names
    assert "apply_patch" not in names


def test_the_setting_chooses_for_every_model(tmp_path: Path) -> None:
    patches = Settings(edit_tool="apply_patch")
    replacements = Settings(edit_tool="edit_file")
    assert "apply_patch" in _offered_to("anthropic:claude-sonnet-4-5", tmp_path, patches)
    assert "edit_file" not in _offered_to("anthropic:claude-sonnet-4-5", tmp_path, patches)
    names = _offered_to("openai:gpt-5", tmp_path, replacements)
    assert "edit_file" in names and "apply_patch" not in names


def test_an_untrusted_workspace_may_choose_the_edit_tool(tmp_path: Path) -> None:
    (tmp_path / ".toolbelt").mkdir()
    (tmp_path / ".toolbelt" / "settings.json").write_text(json.dumps({"editTool": "edit_file"}))
    settings = load_settings(tmp_path, home=tmp_path / "home", trusted=False)
    assert settings.edit_tool == "edit_file"  # it decides what is offered, never what may run


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("openai:gpt-5", True),
        ("openai-responses:gpt-5.1-codex", True),
        ("openai:gpt-4.1-mini", True),
        ("ollama:gpt-oss:20b", True),
        ("openai-compatible:openai/gpt-oss-120b", True),
        ("openai:o3", True),
        ("openai:o4-mini", True),
        ("openai:codex-mini-latest", True),
        ("openai:gpt-4o", False),
        ("openai:gpt-4-turbo", False),
        ("openai:gpt-3.5-turbo", False),
        ("openai:gpt-test", False),
        ("anthropic:claude-opus-4-1", False),
        ("ollama:qwen3-coder", False),
        ("openai:o1", False),
    ],
)
def test_gpt_family(model: str, family: bool) -> None:
    assert gpt_family(model) is family
