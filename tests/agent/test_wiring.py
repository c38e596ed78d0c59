"""The agent meets the rest: a large MCP catalog offered through tool search, and the agent's
model lent to tools (web_fetch's ``prompt``) when the runtime has no small model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from tests.agent.scripts import call, open_runtime, reply
from tests.toolsearch.fake_catalog import fake_tools, searchable_toolset
from toolbelt.agent import Agent
from toolbelt.core.tool import Tool
from toolbelt.testing import ScriptedModel


def _names(tools: tuple[Tool[Any], ...]) -> set[str]:
    return {tool.name for tool in tools}


def test_a_large_catalog_is_offered_only_once_searched(tmp_path: Path) -> None:
    target = fake_tools()[7].name
    model = ScriptedModel(
        [
            reply("", call("c1", "tool_search", query=f"select:{target}")),
            reply("", call("c2", target, **_required_arguments(target))),
            reply("done"),
        ]
    )

    async def main() -> list[str]:
        async with open_runtime(tmp_path, mode="bypass", toolset=searchable_toolset()) as runtime:
            result = await Agent(model, runtime).run("use the catalog")
            return [r.text for m in result.messages for r in getattr(m, "results", ())]

    texts = anyio.run(main)
    first, second = (_names(r.tools) for r in model.requests[:2])
    assert "tool_search" in first and target not in first
    assert "read_file" in first and len(first) < 40  # 500 server tools are not sent
    assert target in second and "tool_search" in second
    assert texts[1].startswith(f"{target} called with")


def _required_arguments(name: str) -> dict[str, object]:
    tool = next(t for t in fake_tools() if t.name == name)
    schema = tool.input_schema()
    values: dict[str, object] = {}
    for key in schema.get("required", []):
        kind = schema["properties"][key].get("type")
        values[key] = 1 if kind == "integer" else True if kind == "boolean" else "x"
    return values


def test_the_agent_lends_its_model_to_a_runtime_without_one(tmp_path: Path) -> None:
    model = ScriptedModel([])
    runtime = open_runtime(tmp_path)
    assert runtime.small_model is None
    Agent(model, runtime)
    assert runtime.small_model is model


def test_a_runtime_keeps_the_small_model_it_was_given(tmp_path: Path) -> None:
    small, big = ScriptedModel([], model="scripted:small"), ScriptedModel([])
    runtime = open_runtime(tmp_path)
    runtime.use_small_model(small)
    Agent(big, runtime)
    assert runtime.small_model is small
