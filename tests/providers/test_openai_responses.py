"""OpenAI Responses through the official SDK against the loopback fake."""

from __future__ import annotations

import pytest

from tests.support.conversation import (
    PNG,
    answer_calls,
    model,
    one_turn,
    parallel_calls_answered,
    request,
    result,
    run_turn,
    user,
)
from tests.support.fake_provider import FakeProvider
from toolbelt.providers.model import (
    ModelToolCall,
    TextDelta,
    ToolCallStarted,
    Usage,
)

pytestmark = pytest.mark.anyio
SPEC = "openai-responses:gpt-5"
DATA_URL = f"data:image/png;base64,{PNG}"


async def test_multi_turn_with_parallel_calls_an_error_and_an_image() -> None:
    first_reply = {
        "text": "Reading both.",
        "calls": [
            {"id": "call_a", "name": "read_file", "arguments": {"path": "a.txt"}},
            {"id": "call_b", "name": "ls", "arguments": {"path": "."}},
        ],
    }
    with FakeProvider([first_reply, {"text": "Done."}]) as fake:
        async with model(SPEC, base_url=fake.openai_url, api_key="k") as client:
            first = request(user("Look at this and read a.txt.", image=True))
            events, done, final = await parallel_calls_answered(client, first, ("call_a", "call_b"))
            assert events[:-1] == [
                TextDelta("Readin"),
                TextDelta("g both."),
                ToolCallStarted("call_a", "read_file"),
                ToolCallStarted("call_b", "ls"),
            ]
            assert done.stop_reason == "tool_use"
            assert done.message.tool_calls == (
                ModelToolCall("call_a", "read_file", {"path": "a.txt"}),
                ModelToolCall("call_b", "ls", {"path": "."}),
            )
    assert (final.message.text, final.stop_reason) == ("Done.", "end_turn")
    body = fake.requests[1].body
    assert fake.requests[1].path == "/v1/responses"
    assert body["instructions"] == "Be brief."
    assert body["max_output_tokens"] == 1000
    assert [(tool["type"], tool["name"], tool["strict"]) for tool in body["tools"]] == [
        ("function", "read_file", False),
        ("function", "ls", False),
    ]
    assert body["input"] == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Look at this and read a.txt."},
                {"type": "input_image", "image_url": DATA_URL},
            ],
        },
        {"role": "assistant", "content": "Reading both."},
        {
            "type": "function_call",
            "call_id": "call_a",
            "name": "read_file",
            "arguments": '{"path": "a.txt"}',
        },
        {"type": "function_call", "call_id": "call_b", "name": "ls", "arguments": '{"path": "."}'},
        {
            "type": "function_call_output",
            "call_id": "call_a",
            "output": [
                {"type": "input_text", "text": "a picture"},
                {"type": "input_image", "image_url": DATA_URL},
            ],
        },
        {
            "type": "function_call_output",
            "call_id": "call_b",
            "output": "Error: permission denied",
        },
    ]


async def test_reasoning_items_are_replayed_before_the_calls() -> None:
    reply = {
        "thinking": "List first.",
        "signature": "enc-abc",
        "calls": [{"id": "call_1", "name": "ls", "arguments": {"path": "."}}],
    }
    with FakeProvider([reply, {"text": "ok"}]) as fake:
        async with model(SPEC, base_url=fake.openai_url, api_key="k") as client:
            first = request(user("list"))
            _, done = await run_turn(client, first)
            await answer_calls(client, first, done, result("call_1", "ls", "a.txt"))
    assert fake.requests[1].body["input"][1:3] == [
        {
            "type": "reasoning",
            "id": "rs_FAKE1",
            "summary": [{"type": "summary_text", "text": "List first."}],
            "encrypted_content": "enc-abc",
        },
        {"type": "function_call", "call_id": "call_1", "name": "ls", "arguments": '{"path": "."}'},
    ]


async def test_an_incomplete_response_is_a_truncated_turn() -> None:
    reply = {"calls": [{"id": "call_1", "name": "read_file", "arguments": '{"path": '}]}
    with FakeProvider([{**reply, "stop": "max_tokens"}]) as fake:
        done = await one_turn(request(user("read")), SPEC, base_url=fake.openai_url, api_key="k")
    assert done.stop_reason == "max_tokens"
    [cut] = done.message.invalid_calls
    assert (cut.id, cut.truncated) == ("call_1", True)


async def test_usage_separates_cached_input() -> None:
    reply = {"text": "ok", "input_tokens": 50, "cache_read_tokens": 950, "output_tokens": 4}
    with FakeProvider([reply]) as fake:
        done = await one_turn(request(user("hi")), SPEC, base_url=fake.openai_url, api_key="k")
    assert done.usage == Usage(50, 4, 950, 0)
