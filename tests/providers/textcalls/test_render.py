"""Each family renders tools, calls and results in its own shape, and reads its calls back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolbelt.core.content import ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.framing import neutralise
from toolbelt.providers.model import ModelToolCall
from toolbelt.providers.schema import neutral_schema
from toolbelt.providers.textcalls import FAMILY_NAMES, TextCallParser, text_call_family
from toolbelt.tools import builtin_toolset

TOOLS: dict[str, Tool[Any]] = {
    t.name: t for t in builtin_toolset() if t.name in ("read_file", "edit_file", "ls")
}
SCHEMAS = {name: neutral_schema(tool) for name, tool in TOOLS.items()}
CALLS = (
    ModelToolCall(
        "aaaaaaaa1",
        "edit_file",
        {
            "path": "src/a.py",
            "old_string": "x = 1\n",
            "new_string": 'say("hi")\n\tdone = "C:\\\\tmp"\n',
            "replace_all": False,
        },
    ),
    ModelToolCall("bbbbbbbb2", "read_file", {"path": "b.py", "offset": 3}),
    ModelToolCall("ccccccccc", "ls", {}),
)


def ok(call_id: str, tool: str, text: str, state: CallState = CallState.SUCCESS) -> ToolCallResult:
    return ToolCallResult(call_id, tool, state, ToolOutput.text(text))


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_rendered_calls_parse_back_to_the_same_calls(name: str) -> None:
    family = text_call_family(name)
    parser = TextCallParser(family, SCHEMAS)
    parser.feed(family.render_calls(CALLS))
    parser.finish()
    assert parser.invalid == []
    assert [(c.name, dict(c.arguments)) for c in parser.calls] == [
        (c.name, dict(c.arguments)) for c in CALLS
    ]
    assert parser.text.strip() == ""
    if name in ("mistral", "mistral-v11"):
        assert [c.id for c in parser.calls] == [c.id for c in CALLS]
    if name == "kimi-k2":
        assert [c.id for c in parser.calls] == [
            "functions.edit_file:0",
            "functions.read_file:1",
            "functions.ls:2",
        ]


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_tool_prompt_names_every_tool_and_its_parameters(name: str) -> None:
    prompt = text_call_family(name).render_tools(list(TOOLS.values()))
    for tool in TOOLS.values():
        assert tool.name in prompt
        shown = neutralise(tool.description)  # `N<TAB>line` has the shape of a marker
        as_json = json.dumps(shown, ensure_ascii=False)[1:-1]
        assert shown in prompt or as_json in prompt
    assert "old_string" in prompt
    assert "replace_all" in prompt


def test_hermes_prompt_lists_one_function_per_line_and_teaches_the_tags() -> None:
    prompt = text_call_family("hermes").render_tools([TOOLS["ls"]])
    definition = json.loads(prompt.split("<tools>\n")[1].split("\n</tools>")[0])
    assert definition == {
        "type": "function",
        "function": {
            "name": "ls",
            "description": TOOLS["ls"].description,
            "parameters": SCHEMAS["ls"],
        },
    }
    assert prompt.endswith(
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


def test_harmony_prompt_is_a_typescript_namespace() -> None:
    prompt = text_call_family("harmony").render_tools([TOOLS["edit_file"]])
    assert prompt.startswith("# Tools\n\n## functions\n\nnamespace functions {\n\n")
    assert "type edit_file = (_: {\n// File to edit" in prompt
    assert "path: string,\n" in prompt
    assert "replace_all?: boolean, // default: false\n" in prompt
    assert prompt.endswith("} // namespace functions")


def test_qwen3_coder_prompt_describes_parameters_as_xml() -> None:
    prompt = text_call_family("qwen3-coder").render_tools([TOOLS["edit_file"]])
    assert "<function>\n<name>edit_file</name>\n" in prompt
    assert "<parameter>\n<name>replace_all</name>\n<type>boolean</type>\n" in prompt
    assert '<required>["path", "old_string", "new_string"]</required>' in prompt


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "hermes",
            "<tool_response>\nfile text\n</tool_response>\n"
            "<tool_response>\nError: no such file\n</tool_response>",
        ),
        (
            "glm-4.7",
            "<tool_response>\nfile text\n</tool_response>\n"
            "<tool_response>\nError: no such file\n</tool_response>",
        ),
        (
            "mistral",
            '[TOOL_RESULTS]{"content": "file text", "call_id": "aaaaaaaa1"}[/TOOL_RESULTS]'
            '[TOOL_RESULTS]{"content": "Error: no such file", "call_id": "bbbbbbbb2"}'
            "[/TOOL_RESULTS]",
        ),
        (
            "kimi-k2",
            "## Return of functions.read_file:0\nfile text\n## Return of functions.read_file:1\n"
            "Error: no such file",
        ),
        (
            "harmony",
            '<|start|>functions.read_file to=assistant<|channel|>commentary<|message|>"file text"'
            "<|end|><|start|>functions.read_file to=assistant<|channel|>commentary<|message|>"
            '"Error: no such file"<|end|>',
        ),
        ("llama3", '"file text"\n"Error: no such file"'),
        (
            "deepseek-v3.1",
            "<｜tool▁output▁begin｜>file text<｜tool▁output▁end｜>"
            "<｜tool▁output▁begin｜>Error: no such file<｜tool▁output▁end｜>",
        ),
    ],
)
def test_results_render_in_the_family_shape(name: str, expected: str) -> None:
    results = [
        ok("aaaaaaaa1", "read_file", "file text"),
        ok("bbbbbbbb2", "read_file", "no such file", CallState.ERROR),
    ]
    assert text_call_family(name).render_results(results) == expected
