"""OpenAI Chat Completions through the official SDK against the loopback fake: the exact bodies
the SDK sent, and what the client made of the streamed replies."""

from __future__ import annotations

import json

import anyio
import pytest

from tests.support.conversation import (
    PNG,
    Sleeps,
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
    InvalidToolCall,
    ModelClient,
    ModelToolCall,
    ProviderError,
    TextDelta,
    ToolCallStarted,
    Usage,
)
from toolbelt.providers.retry import RetryPolicy

pytestmark = pytest.mark.anyio

PARALLEL = {
    "text": "Reading both.",
    "calls": [
        {"id": "call_a", "name": "read_file", "arguments": {"path": "a.txt"}},
        {"id": "call_b", "name": "ls", "arguments": {"path": "."}},
    ],
}


async def test_multi_turn_with_parallel_calls_an_error_and_an_image() -> None:
    with FakeProvider([PARALLEL, {"text": "Both read."}]) as fake:
        async with model("openai:gpt-5", base_url=fake.openai_url) as client:
            first = request(user("Read a.txt and list the folder."))
            events, done, final = await parallel_calls_answered(client, first, ("call_a", "call_b"))
            assert events[:-1] == [
                TextDelta("Readin"),
                TextDelta("g both."),
                ToolCallStarted("call_a", "read_file"),
                ToolCallStarted("call_b", "ls"),
            ]
            assert done.stop_reason == "tool_use"
            assert done.message.text == "Reading both."
            assert done.message.tool_calls == (
                ModelToolCall("call_a", "read_file", {"path": "a.txt"}),
                ModelToolCall("call_b", "ls", {"path": "."}),
            )
        await client.aclose()
    assert final.stop_reason == "end_turn" and final.message.text == "Both read."
    body = fake.requests[1].body
    assert body["model"] == "gpt-5"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 1000
    assert [tool["function"]["name"] for tool in body["tools"]] == ["read_file", "ls"]
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read a.txt and list the folder."},
        {
            "role": "assistant",
            "content": "Reading both.",
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "ls", "arguments": '{"path": "."}'},
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": "a picture\n[image/png image: attached after the tool results]",
        },
        {"role": "tool", "tool_call_id": "call_b", "content": "Error: permission denied"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Images returned by the read_file call:"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
    ]


async def test_user_images_go_as_image_url_parts() -> None:
    with FakeProvider([{"text": "A PNG."}]) as fake:
        await one_turn(
            request(user("What is this?", image=True)), "openai:gpt-5", base_url=fake.openai_url
        )
    assert fake.requests[0].body["messages"][1] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        ],
    }


async def test_usage_counts_cached_prompt_tokens_apart() -> None:
    reply = {"text": "ok", "input_tokens": 70, "cache_read_tokens": 30, "output_tokens": 9}
    with FakeProvider([reply]) as fake:
        done = await one_turn(request(user("hi")), "openai:gpt-5", base_url=fake.openai_url)
    assert done.usage == Usage(input_tokens=70, output_tokens=9, cache_read_tokens=30)


async def test_invalid_json_arguments_become_an_instructive_invalid_call() -> None:
    reply = {"calls": [{"id": "call_x", "name": "read_file", "arguments": '{"path": "a.txt"'}]}
    with FakeProvider([reply]) as fake:
        done = await one_turn(request(user("read")), "openai:gpt-5", base_url=fake.openai_url)
    assert done.message.tool_calls == ()
    assert done.message.invalid_calls == (
        InvalidToolCall(
            "call_x",
            "read_file",
            '{"path": "a.txt"',
            "The arguments of read_file are not valid JSON (Expecting ',' delimiter at "
            "character 16), so it was not run; send one JSON object of named arguments, for "
            'example {"path": "src/app.py"}.',
        ),
    )


async def test_a_call_cut_off_by_max_tokens_is_never_runnable() -> None:
    reply = {
        "calls": [
            {"id": "call_1", "name": "ls", "arguments": {"path": "."}},
            {"id": "call_2", "name": "read_file", "arguments": '{"path": "a.txt"}'},
        ],
        "stop": "max_tokens",
    }
    with FakeProvider([reply]) as fake:
        done = await one_turn(request(user("read")), "openai:gpt-5", base_url=fake.openai_url)
    assert done.stop_reason == "max_tokens"
    assert done.message.tool_calls == (ModelToolCall("call_1", "ls", {"path": "."}),)
    [cut] = done.message.invalid_calls
    assert (cut.id, cut.truncated) == ("call_2", True)
    assert cut.problem.startswith("The call to read_file was cut off by the output token limit")


async def test_compatible_servers_get_max_tokens_and_repeated_ids_are_kept_once() -> None:
    with FakeProvider([{"text": "hi"}]) as fake:
        await one_turn(request(user("hi")), "ollama:qwen3-coder", base_url=fake.openai_url)
    body = fake.requests[0].body
    assert body["model"] == "qwen3-coder"
    assert body["max_tokens"] == 1000 and "max_completion_tokens" not in body
    assert fake.requests[0].headers["authorization"] == "Bearer no-key-needed"


async def test_invalid_calls_are_replayed_with_empty_arguments() -> None:
    reply = {"calls": [{"id": "call_x", "name": "ls", "arguments": "[1, 2]"}]}
    with FakeProvider([reply, {"text": "fixed"}]) as fake:
        async with model("openai:gpt-5", base_url=fake.openai_url) as client:
            first = request(user("list"))
            _, done = await run_turn(client, first)
            [bad] = done.message.invalid_calls
            assert "must be a JSON object of named arguments, not an array" in bad.problem
            await answer_calls(client, first, done, result("call_x", "ls", bad.problem, error=True))
    replayed = fake.requests[1].body["messages"][2]
    assert replayed["tool_calls"][0]["function"] == {"name": "ls", "arguments": "{}"}


async def test_retry_after_429_waits_what_the_server_asked() -> None:
    limited = {"status": 429, "error": "Rate limit reached", "headers": {"retry-after": "2"}}
    sleeps = Sleeps()
    with FakeProvider([limited, {"text": "ok"}]) as fake:
        done = await one_turn(
            request(user("hi")), "openai:gpt-5", base_url=fake.openai_url, retry=sleeps.policy()
        )
    assert done.message.text == "ok"
    assert sleeps.waits == [2.0]
    assert len(fake.requests) == 2
    assert json.dumps(fake.requests[0].body) == json.dumps(fake.requests[1].body)


async def test_a_bad_request_reports_the_servers_message() -> None:
    bad = {"status": 400, "error": "Invalid 'messages[1].content': string too long."}
    with FakeProvider([bad]) as fake:
        with pytest.raises(ProviderError) as caught:
            await one_turn(request(user("hi")), "openai:gpt-5", base_url=fake.openai_url)
    assert caught.value.kind == "bad_request" and len(fake.requests) == 1
    assert str(caught.value) == (
        f"OpenAI at {fake.openai_url} rejected the request (400: Invalid "
        "'messages[1].content': string too long.)."
    )


async def test_a_rejected_key_names_the_variable_to_fix() -> None:
    with FakeProvider([{"status": 401, "error": "Incorrect API key provided."}]) as fake:
        with pytest.raises(ProviderError) as caught:
            await one_turn(
                request(user("hi")), "openai:gpt-5", base_url=fake.openai_url, api_key="x"
            )
    assert caught.value.kind == "auth"
    assert str(caught.value) == (
        f"OpenAI at {fake.openai_url} rejected the API key (401: Incorrect API key provided.); "
        "set OPENAI_API_KEY to a valid key."
    )


async def test_cancelling_during_a_retry_wait_stops_without_asking_again() -> None:
    limited = {"status": 429, "error": "Slow down", "headers": {"retry-after": "60"}}
    waiting = anyio.Event()

    async def sleep(seconds: float) -> None:
        waiting.set()
        await anyio.sleep(seconds)

    async def consume(client: ModelClient) -> None:
        async for _ in client.stream(request(user("hi"))):
            pass

    with FakeProvider([limited, {"text": "never asked for"}]) as fake:
        policy = RetryPolicy(sleep=sleep)
        async with model("openai:gpt-5", base_url=fake.openai_url, retry=policy) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(consume, client)
                await waiting.wait()
                group.cancel_scope.cancel()
    assert len(fake.requests) == 1


@pytest.mark.parametrize("quirk", ["repeat_id_name", "name_late"])
async def test_calls_from_quirky_compatible_servers_are_assembled_once(quirk: str) -> None:
    reply = {
        "calls": [{"id": "call_q", "name": "read_file", "arguments": {"path": "a.txt"}}],
        "chat_quirk": quirk,
    }
    with FakeProvider([reply]) as fake:
        async with model("openai-compatible:m", base_url=fake.openai_url) as client:
            events, done = await run_turn(client, request(user("read")))
    assert events[:-1] == [ToolCallStarted("call_q", "read_file")]
    assert done.message.tool_calls == (ModelToolCall("call_q", "read_file", {"path": "a.txt"}),)
