"""Duplicate call ids in one model turn: each call keeps its own activity line and result."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.fake_provider import FakeProvider
from tests.support.toolbelt_cli import toolbelt_run
from toolbelt.agent.call_ids import unique_call_ids
from toolbelt.providers.model import AssistantMessage, InvalidToolCall, ModelToolCall


def test_two_calls_with_one_id_are_logged_and_answered_each_as_itself(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    calls = [
        {"name": "bash", "arguments": {"command": "echo planted >> notes.txt"}, "id": "call_7"},
        {"name": "think", "arguments": {"thought": "ls src"}, "id": "call_7"},
    ]
    with FakeProvider([{"calls": calls}, {"text": "Looked around."}]) as fake:
        done = toolbelt_run(
            "go", "--model", "openai:gpt-test", "--base-url", fake.openai_url,
            "--root", str(root), "--yes", "--sandbox", "off", home=tmp_path,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (root / "notes.txt").read_text() == "planted\n"
    activity = [re.sub(r"\(\d+ ms\)", "(T)", line) for line in done.stderr.splitlines()]
    assert sorted(line for line in activity if not line.startswith("toolbelt:")) == [
        "bash echo planted >> notes.txt: success (T)",
        "think ls src: success (T)",
    ]
    messages = fake.requests[1].body["messages"]
    (assistant,) = [m for m in messages if m["role"] == "assistant"]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_7", "call_7_2"]
    answers = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert set(answers) == {"call_7", "call_7_2"}
    assert "notes.txt" not in json.dumps(answers["call_7_2"])  # think's answer, not bash's


def test_a_replayed_anthropic_turn_is_renamed_with_its_calls() -> None:
    content = [
        {"type": "text", "text": "two"},
        {"type": "tool_use", "id": "t", "name": "bash", "input": {"command": "ls"}},
        {"type": "tool_use", "id": "t", "name": "think", "input": {"thought": "x"}},
        {"type": "tool_use", "id": "t", "name": "edit_file", "input": {}},
    ]
    message = AssistantMessage(
        "two",
        (
            ModelToolCall("t", "bash", {"command": "ls"}),
            ModelToolCall("t", "think", {"thought": "x"}),
        ),
        (InvalidToolCall("t", "edit_file", "{", "bad"),),
        provider_data={"anthropic_content": content},
    )
    renamed = unique_call_ids(message)
    assert [c.id for c in renamed.tool_calls] == ["t", "t_2"]
    assert [c.id for c in renamed.invalid_calls] == ["t_3"]
    assert renamed.provider_data is not None
    blocks = renamed.provider_data["anthropic_content"]
    assert [(b.get("id"), b.get("name")) for b in blocks[1:]] == [
        ("t", "bash"),
        ("t_2", "think"),
        ("t_3", "edit_file"),
    ]
    assert blocks[2]["input"] == {"thought": "x"}
    distinct = AssistantMessage("", (ModelToolCall("a", "bash", {}), ModelToolCall("a_2", "x", {})))
    assert unique_call_ids(distinct) is distinct


def test_a_new_id_never_takes_one_the_model_already_used() -> None:
    message = AssistantMessage(
        "",
        (
            ModelToolCall("c", "a", {}),
            ModelToolCall("c", "b", {}),
            ModelToolCall("c_2", "d", {}),
        ),
    )
    assert [c.id for c in unique_call_ids(message).tool_calls] == ["c", "c_3", "c_2"]
